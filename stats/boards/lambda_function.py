"""The rank upkeep's Lambda entry points: Django set up once a container, then upkeep.handler
(the stream's batches) or upkeep.watcher (once a minute: says when the counts are current)."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")  # as manage.py does
django.setup()

from stats.boards.upkeep import handler, watcher  # noqa: E402  (models need the settings first)

__all__ = ["handler", "watcher"]
