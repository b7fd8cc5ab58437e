"""The delete confirmation page: lists what goes with the item, then deletes all of it."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from dynamo import limits
from dynamo.exceptions import StaleVersion

from ..keys import Original
from ..meta import label_of, meta
from ..models import AdminLog


class DeleteViews:
    """The delete page of DynamoModelAdmin, each step one of Django's hooks."""

    def delete_view(self, request, object_id: str, extra_context=None):
        """Confirm, then delete the item and its related items on the version the page showed."""
        return self._delete_view(request, object_id, extra_context)

    def _delete_view(self, request, object_id: str, extra_context):
        item = self.get_object(request, object_id)
        if item is None:
            self.require(self.has_delete_permission(request))
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        self.require(self.has_delete_permission(request, item))
        deleted_objects, model_count, perms_needed, protected = self.get_deleted_objects(
            [item], request
        )
        error = None
        if request.method == "POST":
            # As Django's delete_view: a cascade into models the user may not delete is refused.
            self.require(not perms_needed and not protected)
            obj_display = label_of(item)
            shown = request.POST.get("version", "")
            version_name = meta(self.model).version_name
            try:
                # "²".isdigit(), but int() refuses it; 40 digits are a number DynamoDB refuses.
                bad = not (shown.isascii() and shown.isdigit()) or limits.number_problem(shown)
                if version_name and bad:
                    raise ValidationError(_("The page did not say which version to delete."))
                if version_name:
                    setattr(item, version_name, int(shown))
                self.delete_model(request, item)  # its entries come from log_deletions
            except (StaleVersion, ValidationError) as exc:
                error = exc.messages[0] if isinstance(exc, ValidationError) else str(exc)
                item = self.get_object(request, object_id) or item
            else:
                return self.response_delete(request, obj_display, object_id)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Are you sure?"),
            "subtitle": None,
            "opts": self.opts,
            "object": Original(item),
            "object_id": object_id,
            "object_name": self.opts.verbose_name,
            "deleted_objects": deleted_objects,
            "model_count": dict(model_count).items(),
            "perms_lacking": sorted(perms_needed),
            "protected": protected,
            "error": error,
            **(extra_context or {}),
        }
        return self.render_delete_form(request, context)

    def render_delete_form(self, request, context):
        """Render the delete confirmation from its context, as Django's hook does."""
        request.current_app = self.admin_site.name
        template = self.templates("delete_confirmation.html", self.delete_confirmation_template)
        return TemplateResponse(request, template, context)

    def response_delete(self, request, obj_display: str, obj_id: str):
        """Say the item was deleted and go back to the listing, as Django's admin does."""
        message = _("The %(name)s “%(obj)s” was deleted successfully.")
        names = {"name": self.opts.verbose_name, "obj": obj_display}
        self.message_user(request, message % names, messages.SUCCESS)
        return HttpResponseRedirect(self.url_for("changelist"))

    def log_deletions(self, request, queryset) -> list[AdminLog]:
        """Return the history entries of deleted items (Django 5.1's name), one per item.

        They are written in the transaction that deletes the items, not here; by default each
        comes from log_deletion.
        """
        return [self.log_deletion(request, obj, label_of(obj)) for obj in queryset]
