"""History entries for API writes, so the admin's History pages show them with their actor."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from dynamo.models import DynamoModel
from dynamo_admin.display import plain
from dynamo_admin.models import AdminLog

ADDITION, CHANGE, DELETION = "add", "change", "delete"


def snapshot(item: DynamoModel) -> dict[str, Any]:
    """Return an item's attributes as JSON-ready values."""
    return {name: plain(value) for name, value in item.to_display().items()}


def changes_between(before: dict[str, Any], after: dict[str, Any]) -> dict[str, list[Any]]:
    """Return {field: [old, new]} for every field whose value differs (the admin's shape)."""
    return {
        name: [before.get(name), after.get(name)]
        for name in dict.fromkeys([*before, *after])
        if before.get(name) != after.get(name) and name not in ("updated_at", "version")
    }


def log(request: HttpRequest, item: DynamoModel, action: str, before: dict[str, Any]) -> None:
    """Record an add, change or delete made through the API by the request's user.

    `before` is the item's snapshot before the write ({} for an addition).
    """
    after = {} if action == DELETION else snapshot(item)
    changes = changes_between(before, after)
    AdminLog.record(item, action, user=request.user.get_username(), changes=changes)


def log_session(request: HttpRequest, stats: DynamoModel, session: dict[str, Any]) -> None:
    """Record a study session on the learner's stats: the session and the XP it moved.

    The stats are moved by ADD without a read first, so the XP before is the XP after less
    the session's: exact even when sessions run concurrently.
    """
    changes = {
        "session": [None, plain(session)],
        "xp": [stats.xp - session["xp"], stats.xp],
        "sessions": [stats.sessions - 1, stats.sessions],
    }
    action = ADDITION if stats.sessions == 1 else CHANGE
    AdminLog.record(stats, action, user=request.user.get_username(), changes=changes)
