from .decorators import register
from .models import AdminLog
from .options import DynamoModelAdmin


@register(AdminLog)
class AdminLogAdmin(DynamoModelAdmin):
    """The change log, read-only: entries are written by the admin's own views."""

    list_display = ("object_key", "logged_at", "action", "user", "object_repr")
    search_fields = ("=object_key",)
    date_hierarchy = "gsi_logged_month"  # the listing walks it newest first
    ordering = ("-logged_at",)

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
