from __future__ import annotations

from .decorators import register
from .models import AdminLog
from .options import DynamoModelAdmin


@register(AdminLog)
class AdminLogAdmin(DynamoModelAdmin):
    """The change log, read-only: entries are written by the admin's own views."""

    list_display = ("object_key", "logged_at", "action", "user", "object_repr")
    search_fields = ("=object_key",)
    ordering = ("-logged_at",)

    def get_object(self, request, object_id: str) -> AdminLog | None:
        # Viewing the log is not viewing the logged items: their values need that model's view.
        entry = super().get_object(request, object_id)
        return entry.values_hidden_from(request.user) if entry is not None else None

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
