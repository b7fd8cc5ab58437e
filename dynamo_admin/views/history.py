"""The History page of an item: its log entries, newest first."""

from __future__ import annotations

from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from ..keys import Original, key_item
from ..meta import label_of
from ..models import AdminLog


class HistoryViews:
    """The History page of DynamoModelAdmin, with Django's name and signature."""

    def history_view(self, request, object_id: str, extra_context=None):
        """List an item's log entries, newest first (one Query; works after a delete too)."""
        self.require(self.has_view_permission(request))
        item = key_item(self.model, self.key_or_404(object_id))
        entries = AdminLog.history(item)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Change history: %s") % label_of(item),
            "subtitle": None,
            "opts": self.opts,
            "object": Original(item),
            "object_id": object_id,
            "action_list": entries,
            **(extra_context or {}),
        }
        request.current_app = self.admin_site.name
        template = self.templates("object_history.html", self.object_history_template)
        return TemplateResponse(request, template, context)
