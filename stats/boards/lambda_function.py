"""The rank upkeep's Lambda entry point: Django set up once a container, then upkeep.handler."""

from __future__ import annotations

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")  # as manage.py does
django.setup()

from stats.boards.upkeep import handler  # noqa: E402  (models need the settings first)

__all__ = ["handler"]
