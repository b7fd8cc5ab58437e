"""Built-in changelist actions: delete the selected items after a confirmation page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.admin import action
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dynamo.exceptions import StaleVersion

from .keys import object_id
from .meta import label_of, meta, version_of


@action(permissions=["delete"], description=gettext_lazy("Delete selected %(verbose_name_plural)s"))
def delete_selected(model_admin, request, items):
    """Show what would go with the selected items; on confirmation delete each of them."""
    model = model_admin.model
    deleted_objects, model_count, perms_needed, protected = model_admin.get_deleted_objects(
        items, request
    )
    if request.POST.get("post") == "yes":
        # As Django's delete_selected: a cascade the user may not delete is refused.
        if perms_needed or protected:
            raise PermissionDenied
        versions = dict(
            zip(
                request.POST.getlist("_selected_action"),
                request.POST.getlist("_selected_version"),
                strict=False,
            )
        )
        deleted, stale, refused = 0, [], []
        for item in items:
            shown = versions.get(object_id(item), "")
            same = shown.isascii() and shown.isdigit() and int(shown) == version_of(item)
            if meta(model).version_name is not None and not same:
                stale.append(label_of(item))
                continue
            try:
                model_admin.delete_model(request, item)
            except StaleVersion:
                stale.append(label_of(item))
                continue
            except ValidationError as exc:  # the model admin's refusal, as the delete page shows it
                refused.append(exc.messages[0])
                continue
            deleted += 1
        if deleted:
            opts = meta(model)
            plural = opts.verbose_name if deleted == 1 else opts.verbose_name_plural
            message = _("Successfully deleted %(count)d %(items)s.")
            model_admin.message_user(
                request, message % {"count": deleted, "items": plural}, messages.SUCCESS
            )
        if stale:
            message = _("Changed by someone else since you confirmed, not deleted: %(items)s.")
            model_admin.message_user(request, message % {"items": ", ".join(stale)}, messages.ERROR)
        for refusal in refused:
            model_admin.message_user(request, refusal, messages.ERROR)
        return None
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Are you sure?"),
        "subtitle": None,
        "opts": model_admin.opts,
        "objects_name": meta(model).verbose_name_plural,
        "deleted_objects": deleted_objects,
        "model_count": dict(model_count).items(),
        "perms_lacking": sorted(perms_needed),
        "protected": protected,
        "selected": [{"object_id": object_id(item), "version": version_of(item)} for item in items],
        "action_name": "delete_selected",
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(
        request, model_admin.templates("delete_selected_confirmation.html"), context
    )
