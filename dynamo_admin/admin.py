from __future__ import annotations

from typing import Any

from django.contrib.admin import display
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from dynamo import limits

from .decorators import register
from .models import AdminLog
from .options import ViewOnlyModelAdmin
from .sources import IndexQuery, Source, TableQuery


@register(AdminLog)
class AdminLogAdmin(ViewOnlyModelAdmin):
    """The change log, read-only: entries are written by the admin's own views."""

    list_display = ("logged_at", "object_link", "action_label", "user", "change_message")
    search_fields = ("=object_key",)
    search_help_text = _(
        "Type a key exactly as stored (case matters), such as a username, for every entry "
        "about the items it keys in any table, newest first; “app.model:key” for the "
        "entries of one item."
    )
    date_hierarchy = "gsi_logged_month"  # the listing walks it newest first
    ordering = ("-logged_at",)
    # The entry as Django's LogEntry reads: when, who, what, the action and message in words.
    fields = ("logged_at", "user", "object_link", "action_label", "change_message", "values")

    def get_search_results(
        self, request, queryset: Source, search_term: str
    ) -> tuple[Source, bool]:
        """List a log key's entries (`app.model:key/range`), else a key value's partition's."""
        term = search_term.strip()
        if not term:
            return queryset, False
        if not limits.keys_fit((term,)):
            raise ValueError(_("Bad search: that is no key a table could hold."))
        if ":" in term:  # whole, though the key search would split `alice/python` in two
            return TableQuery(term, range_key="logged_at"), False
        return IndexQuery(AdminLog.gsi_object_partition, term), False

    def get_object(self, request, object_id: str) -> AdminLog | None:
        # Viewing the log is not viewing the logged items: their values need that model's view.
        entry = super().get_object(request, object_id)
        return entry.values_hidden_from(request.user) if entry is not None else None

    def value_for(self, item: AdminLog, name: Any) -> Any:
        if name == "logged_at":
            return item.logged_time  # shown in the admin's time zone, not as the stored key
        return super().value_for(item, name)

    def label_for(self, name: Any) -> str:
        return _("Date/time") if name == "logged_at" else super().label_for(name)

    @display(description=_("object"))
    def object_link(self, entry: AdminLog) -> str:
        """Name the logged item, linking to its change page while it has one."""
        label = f"{entry.model_verbose_name}: {entry.object_repr or entry.object_key}"
        url = entry.get_admin_url()
        return format_html('<a href="{}">{}</a>', url, label) if url else label

    @display(description=_("action"))
    def action_label(self, entry: AdminLog) -> str:
        return entry.action_label

    @display(description=_("change message"))
    def change_message(self, entry: AdminLog) -> str:
        return entry.get_change_message()

    @display(description=_("changes"))
    def values(self, entry: AdminLog) -> str:
        """List each changed field with its old and new value in words, as History does."""
        return render_to_string("dynamo_admin/includes/change_lines.html", {"entry": entry})
