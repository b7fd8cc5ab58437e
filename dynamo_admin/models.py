"""The admin's change log: who changed what, when, with the changed fields."""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from pynamodb.attributes import JSONAttribute, UnicodeAttribute

from dynamo.models import DynamoMeta, DynamoModel, utcnow

ADDITION, CHANGE, DELETION = "add", "change", "delete"


def object_key_for(item: DynamoModel) -> str:
    """Return the log key of an item: `app.model:key[/range]`."""
    return f"{item.app_label}.{item.model_name}:{'/'.join(str(v) for v in item.pk)}"


class AdminLog(DynamoModel):
    """One add, change or delete made through the admin."""

    app_label = "dynamo_admin"
    model_name = "adminlog"
    verbose_name = "log entry"
    verbose_name_plural = "log entries"

    class Meta(DynamoMeta):
        table_suffix = "admin-log"

    object_key = UnicodeAttribute(hash_key=True)
    # ISO-8601 time plus a random suffix, so two entries in one instant never collide.
    logged_at = UnicodeAttribute(range_key=True)
    action = UnicodeAttribute()
    user = UnicodeAttribute()
    object_repr = UnicodeAttribute(null=True)
    changes = JSONAttribute(null=True)

    @classmethod
    def record(
        cls,
        item: DynamoModel,
        action: str,
        user: str,
        changes: dict[str, Any] | None = None,
        when: datetime | None = None,
    ) -> AdminLog:
        """Write a log entry for an item; `changes` maps field to [old, new]."""
        when = when or utcnow()
        entry = cls(
            object_key_for(item),
            f"{when.isoformat(timespec='microseconds')}#{secrets.token_hex(3)}",
            action=action,
            user=user,
            object_repr=str(item)[:200],
            changes=changes or {},
        )
        entry.save()
        return entry

    @classmethod
    def history(cls, item: DynamoModel, limit: int = 100) -> list[AdminLog]:
        """Return an item's log entries, newest first (one Query)."""
        return list(cls.query(object_key_for(item), scan_index_forward=False, limit=limit))

    @property
    def logged_time(self) -> datetime:
        return datetime.fromisoformat(self.logged_at.split("#", 1)[0])
