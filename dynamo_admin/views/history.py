"""The History page of an item: its log entries, newest first."""

from __future__ import annotations

from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from ..claims import key_problem
from ..keys import Original, key_item
from ..meta import label_of
from ..models import AdminLog, object_keys_for


class HistoryViews:
    """The History page of DynamoModelAdmin, with Django's name and signature."""

    def history_view(self, request, object_id: str, extra_context=None):
        """List an item's log entries and its inline rows', newest first (works after a delete).

        As Django's History lists changes made through inlines with the parent's, each saying
        which row; an item without inlines is one Query.
        """
        self.require(self.has_view_permission(request))
        item = key_item(self.model, self.key_or_404(object_id))
        if key_problem(self.model, item):  # another type's key on a shared table
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        row_models = [inline.model for inline in self.get_inline_instances(request, None)]
        entries = AdminLog.history_with_rows(item, row_models)
        own = object_keys_for(item)  # an entry logged before values were escaped is its own too
        for entry in entries:
            entry.row = entry.object_key not in own
            if entry.row:
                entry.values_hidden_from(request.user)
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
