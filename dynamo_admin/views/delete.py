"""The delete confirmation page: lists what goes with the item, then deletes all of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from dynamo import limits
from dynamo.exceptions import StaleVersion

from .change import missing_item_redirect

if TYPE_CHECKING:
    from ..options import DynamoModelAdmin


def delete_view(model_admin: DynamoModelAdmin, request, object_id: str, extra_context=None):
    """Confirm, then delete the item and its related items on the version the page showed."""
    item = model_admin.get_object(request, object_id)
    if item is None:
        model_admin.require(model_admin.has_delete_permission(request))
        return missing_item_redirect(model_admin, request, object_id)
    model_admin.require(model_admin.has_delete_permission(request, item))
    deleted_objects, model_count, perms_needed, protected = model_admin.get_deleted_objects(
        [item], request
    )
    error = None
    if request.method == "POST":
        # As Django's delete_view: a cascade into models the user may not delete is refused.
        model_admin.require(not perms_needed and not protected)
        shown = request.POST.get("version", "")
        try:
            # "²".isdigit(), but int() refuses it; 40 digits are a number DynamoDB refuses.
            if not (shown.isascii() and shown.isdigit()) or limits.number_problem(shown):
                raise ValidationError(_("The page did not say which version to delete."))
            item.version = int(shown)
            model_admin.delete_model(request, item)
        except (StaleVersion, ValidationError) as exc:
            error = exc.messages[0] if isinstance(exc, ValidationError) else str(exc)
            item = model_admin.get_object(request, object_id) or item
        else:
            message = _("The %(name)s “%(obj)s” was deleted successfully.")
            model_admin.message_user(
                request, message % {"name": item.verbose_name, "obj": item}, messages.SUCCESS
            )
            return HttpResponseRedirect(model_admin.url_for("changelist"))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Are you sure?"),
        "subtitle": None,
        "opts": model_admin.opts,
        "object": item,
        "object_id": object_id,
        "object_name": item.verbose_name,
        "deleted_objects": deleted_objects,
        "model_count": dict(model_count).items(),
        "perms_lacking": sorted(perms_needed),
        "protected": protected,
        "error": error,
        **(extra_context or {}),
    }
    request.current_app = model_admin.admin_site.name
    template = model_admin.templates(
        "delete_confirmation.html", model_admin.delete_confirmation_template
    )
    return TemplateResponse(request, template, context)
