"""Built-in changelist actions: delete the selected items after a confirmation page."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.admin import action
from django.core.exceptions import PermissionDenied, ValidationError
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from dynamo.exceptions import StaleVersion

from .display import display
from .forms import SHOWN_FIELD, VERSION_FIELD, initial_for
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


@action(
    permissions=["change"],
    description=gettext_lazy("Change a field of the selected %(verbose_name_plural)s"),
)
def change_field(model_admin, request, items):
    """Set one attribute to one value on the selected items: choose, preview, then confirm.

    Each item is saved as its change page saves it (its form field checks the value, the
    admin's hooks and the model's rules run, one conditional write with its history entry),
    on the version or the values the preview showed: an item changed since is not written.
    """
    editable = changeable_fields(model_admin, request, items)
    name = request.POST.get("field", "")
    step = request.POST.get("step", "")
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Change a field of the selected %(name)s")
        % {"name": model_admin.opts.verbose_name_plural},
        "subtitle": None,
        "opts": model_admin.opts,
        "selected": [object_id(item) for item in items],
        "fields": [(n, model_admin.label_for(n)) for n in editable],
        "field": name,
        "action_name": "change_field",
    }
    if name in editable and step in ("preview", "confirm"):
        form_class = model_admin.get_form(request, items[0], change=True, fields=[name])
        value_form = form_class(request.POST, prefix="value")
        if value_form.is_valid():
            if step == "confirm":
                return confirm_change(model_admin, request, items, name, value_form)
            context["rows"] = [
                {
                    "item": label_of(item),
                    "object_id": object_id(item),
                    "old": display(
                        model_admin.value_for(item, name), model_admin.get_empty_value_display()
                    ),
                    "state": json.dumps(
                        {
                            "version": version_of(item),
                            "shown": initial_for(item, [name])[SHOWN_FIELD],
                        }
                    ),
                }
                for item in items
            ]
            context["new"] = display(
                value_form.cleaned_data.get(name), model_admin.get_empty_value_display()
            )
        context["value_form"] = value_form
    elif name in editable:
        form_class = model_admin.get_form(request, items[0], change=True, fields=[name])
        context["value_form"] = form_class(prefix="value")
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, model_admin.templates("change_field.html"), context)


def changeable_fields(model_admin, request, items) -> list[str]:
    """Return the attributes the change page lets this user edit on the first selected item."""
    item = items[0]
    readonly = set(model_admin.get_readonly_fields(request, item))
    return [n for n in model_admin.get_fields(request, item) if n not in readonly]


def confirm_change(model_admin, request, items, name: str, value_form):
    """Save each item with the new value, as its change page would; report what was refused."""
    states = dict(
        zip(request.POST.getlist("_selected_action"), request.POST.getlist("_state"), strict=False)
    )
    changed, unchanged, refused = 0, 0, []
    raw_value = {
        key: value for key, value in request.POST.items() if key.startswith(f"value-{name}")
    }
    for item in items:
        try:
            state = json.loads(states.get(object_id(item), ""))
        except ValueError:
            refused.append(
                _("%(item)s: the page did not say what it showed") % {"item": label_of(item)}
            )
            continue
        data = {
            **{key.removeprefix("value-"): v for key, v in raw_value.items()},
            VERSION_FIELD: "" if state.get("version") is None else str(state["version"]),
            SHOWN_FIELD: state.get("shown", ""),
        }
        form_class = model_admin.get_form(request, item, change=True, fields=[name])
        form = form_class(data, item=item)
        if not form.is_valid():
            refused.append(
                f"{label_of(item)}: {' '.join(form.errors.get(name, form.non_field_errors()))}"
            )
            continue
        saved, _stale = model_admin.save_forms(request, form, item, [])
        if saved is None:
            problems = form.non_field_errors() or [
                e for errors in form.errors.values() for e in errors
            ]
            refused.append(f"{label_of(item)}: {problems[0] if problems else _('not saved')}")
        elif form.changes:
            changed += 1
        else:
            unchanged += 1
    model_admin.message_user(
        request,
        _("Changed %(changed)s, unchanged %(unchanged)s, refused %(refused)s.")
        % {"changed": changed, "unchanged": unchanged, "refused": len(refused)},
        messages.SUCCESS if not refused else messages.WARNING,
    )
    for problem in refused:
        model_admin.message_user(request, problem, messages.ERROR)
    return None
