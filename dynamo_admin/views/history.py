"""The History page of an item: its log entries, newest first."""

from __future__ import annotations

from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from pynamodb.models import Model

from ..claims import attribute_names, claims, item_condition
from ..keys import Original, key_item, stored_key_names
from ..meta import label_of
from ..models import AdminLog, object_keys_for
from ..stored import get_raw, load


class HistoryViews:
    """The History page of DynamoModelAdmin, with Django's name and signature."""

    def history_view(self, request, object_id: str, extra_context=None):
        """List an item's log entries and its inline rows', newest first (works after a delete).

        As Django's History lists changes made through inlines with the parent's, each saying
        which row; an item without inlines is one Query.
        """
        self.require(self.has_view_permission(request))
        item, stored = self.history_item(object_id)
        if item is None:  # another type's key on a shared table
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        row_models = [inline.model for inline in self.get_inline_instances(request, None)]
        entries = AdminLog.history_with_rows(item, row_models)
        if stored is False and not entries:  # no item, and none of this model's ever had it
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
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

    def history_item(self, object_id: str) -> tuple[Model | None, bool | None]:
        """Return the item a History is of (None: another type's) and whether it is stored.

        Where the model's condition reads only its key, the key decides (no read, stored
        unknown: None); where it reads more (a discriminator, an index key), one GetItem
        does. A deleted item has History only as this model's: its entries then say.
        """
        values = self.key_or_404(object_id)
        item = key_item(self.model, values)
        condition = item_condition(self.model)
        if condition is None:
            return item, None
        names = stored_key_names(self.model)
        if attribute_names(condition) <= set(names):
            key = {n: v for n, v in item.serialize(null_check=False).items() if n in names}
            return (item if claims(self.model, key, condition) else None), None
        raw = get_raw(self.model, values, consistent_read=True)
        if raw is None:
            return item, False
        return (item if load(self.model, raw) is not None else None), True
