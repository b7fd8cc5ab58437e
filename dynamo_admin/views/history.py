"""The History page of an item: its log entries, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from dynamo_admin.models import AdminLog

from ..keys import key_item

if TYPE_CHECKING:
    from ..options import DynamoModelAdmin


def history_view(model_admin: DynamoModelAdmin, request, object_id: str, extra_context=None):
    """List an item's log entries, newest first (one Query; works after a delete too)."""
    model_admin.require(model_admin.has_view_permission(request))
    item = key_item(model_admin.model, model_admin.key_or_404(object_id))
    entries = AdminLog.history(item)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Change history: %s") % item,
        "subtitle": None,
        "opts": model_admin.opts,
        "object": item,
        "object_id": object_id,
        "action_list": entries,
        **(extra_context or {}),
    }
    request.current_app = model_admin.admin_site.name
    template = model_admin.templates("object_history.html", model_admin.object_history_template)
    return TemplateResponse(request, template, context)
