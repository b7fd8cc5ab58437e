"""API writes with their history entries, so the admin's History pages show them and who."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from dynamo.models import DynamoModel
from dynamo_admin.display import plain
from dynamo_admin.models import ADDITION, CHANGE, DELETION
from dynamo_admin.writes import write_with_history

__all__ = ["ADDITION", "CHANGE", "DELETION", "change", "snapshot", "write"]


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


def actor(request: HttpRequest) -> str:
    """Return the name history entries give the request's user (a token's owner)."""
    return request.user.get_username()


def write(request: HttpRequest, item: DynamoModel, action: str, before: dict | None = None):
    """Write an item and its history entry in one transaction, through the domain hooks.

    `before` is the item's snapshot as read (None for an addition); a change or delete is
    conditional on the version read, an addition on the key being free.
    """
    changes = {} if action == DELETION else changes_between(before or {}, snapshot(item))
    write_with_history(item, action, actor(request), changes)


def change(request: HttpRequest, item: DynamoModel, changes: dict[str, Any]) -> None:
    """Set the changed attributes on an item as read, then write it with its history entry."""
    before = snapshot(item)
    for name, value in changes.items():
        setattr(item, name, value)
    write(request, item, CHANGE, before)
