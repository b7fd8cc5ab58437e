"""The add and change form (with inlines, stale-version and duplicate-key errors), and raw view."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.text import capfirst

from dynamo.exceptions import AlreadyExists, StaleVersion
from dynamo.models import DynamoModel

from ..display import display
from ..forms import ItemForm, item_form_class
from ..inlines import InlineFormSet
from ..keys import object_id as object_id_of

if TYPE_CHECKING:
    from ..options import DynamoModelAdmin


def changeform_view(model_admin: DynamoModelAdmin, request, object_id: str | None, extra_context):
    """Show and save the add form (object_id None) or the change form of one item."""
    item = None
    if object_id is None:
        model_admin.require(model_admin.has_add_permission(request))
    else:
        model_admin.require(model_admin.has_view_permission(request))
        item = model_admin.get_object(request, object_id)
        if item is None:
            return missing_item_redirect(model_admin, request, object_id)
    can_save = item is None or model_admin.has_change_permission(request, item)
    if request.method == "POST":
        model_admin.require(can_save)
    readonly = model_admin.get_readonly_fields(request, item)
    fields = model_admin.get_fields(request, item)
    if not can_save:
        readonly = fields
    form_class = item_form_class(model_admin.model, [n for n in fields if n not in readonly])
    data = request.POST if request.method == "POST" else None
    form = form_class(data, item=item)
    inlines = [
        InlineFormSet(inline, request, item, inline.get_items(item), data if can_save else None)
        for inline in model_admin.get_inline_instances(request, item)
        if item is not None and inline.has_view_permission(request)
    ]
    stale = None
    if data is not None and form.is_valid() and all(i.is_valid() for i in inlines):
        saved, stale = save_forms(model_admin, request, form, item, inlines)
        if saved is not None:
            return response_after_save(model_admin, request, saved, adding=item is None)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": ("Add %s" if item is None else "Change %s" if can_save else "View %s")
        % model_admin.model.verbose_name,
        "subtitle": str(item) if item is not None else None,
        "opts": model_admin.opts,
        "original": item,
        "object_id": object_id,
        "add": item is None,
        "change": item is not None,
        "can_save": can_save,
        "form": form,
        "fieldsets": layout(model_admin, request, form, item, readonly),
        "inline_formsets": inlines,
        "stale_values": stale,
        "has_delete_permission": item is not None
        and model_admin.has_delete_permission(request, item),
        "save_as_continue": model_admin.save_as_continue,
        "errors": form.errors
        or any(not i.formset.is_valid() for i in inlines if i.formset.is_bound),
        **(extra_context or {}),
    }
    request.current_app = model_admin.admin_site.name
    template = model_admin.templates("change_form.html", model_admin.change_form_template)
    return TemplateResponse(request, template, context)


def save_forms(model_admin, request, form: ItemForm, stored: DynamoModel | None, inlines):
    """Write the item, then its inline rows; return (item or None, current values if stale)."""
    adding = stored is None
    item = model_admin.model() if adding else stored
    if not adding:
        item.version = form.shown_version()  # the save must find what the page showed
    changes = form.apply_to(item)
    writes = [inline.pending() for inline in inlines]
    if any(inline.formset.total_error_count() for inline in inlines):
        return None, None
    try:
        if adding or changes:
            model_admin.save_model(request, item, form, not adding)
    except ValidationError as exc:
        form.add_model_errors(exc)
        return None, None
    except AlreadyExists:
        form.add_error(None, f"A {item.verbose_name} with the key {item} already exists.")
        return None, None
    except StaleVersion:
        current = model_admin.model.get_or_none(*stored.pk, consistent_read=True)
        form.add_error(
            None,
            f"Someone else changed this {item.verbose_name} since you opened it, so nothing was"
            " saved. The stored values are shown below; reload the page to edit them.",
        )
        return None, current_values(model_admin, request, current)
    if adding:
        model_admin.log_addition(request, item, changes)
    elif changes:
        model_admin.log_change(request, item, changes)
    rows_saved = all(
        [inline.save(model_admin, rows) for inline, rows in zip(inlines, writes, strict=True)]
    )
    return (item if rows_saved else None), None


def current_values(model_admin, request, current: DynamoModel | None) -> list[tuple[str, str]]:
    if current is None:
        return [("", f"The {model_admin.model.verbose_name} has been deleted.")]
    empty = model_admin.get_empty_value_display()
    return [
        (model_admin.label_for(name), display(getattr(current, name, None), empty))
        for name in model_admin.attribute_names()
    ]


def layout(model_admin, request, form: ItemForm, item, readonly) -> list[dict[str, Any]]:
    """Return the fieldsets to render: each field a bound form field or a read-only value."""
    empty = model_admin.get_empty_value_display()
    fieldsets = []
    for name, options in model_admin.get_fieldsets(request, item):
        lines = []
        for field in options.get("fields", ()):
            if field in form.fields:
                lines.append({"name": field, "field": form[field]})
            elif item is not None or field not in readonly:
                value = model_admin.value_for(item, field) if item is not None else None
                lines.append(
                    {
                        "name": field,
                        "label": model_admin.label_for(field),
                        "value": display(value, empty),
                    }
                )
        fieldsets.append(
            {
                "name": name,
                "classes": " ".join(options.get("classes", ())),
                "description": options.get("description"),
                "lines": lines,
            }
        )
    return fieldsets


def response_after_save(model_admin, request, item: DynamoModel, *, adding: bool):
    """Redirect as Django's admin does after Save, Save and continue, Save and add another."""
    name = capfirst(item.verbose_name)
    verb = "added" if adding else "changed"
    oid = object_id_of(item)
    if "_continue" in request.POST:
        messages.success(
            request,
            f"The {item.verbose_name} “{item}” was {verb} successfully. "
            "You may edit it again below.",
        )
        return HttpResponseRedirect(model_admin.url_for("change", oid))
    if "_addanother" in request.POST:
        messages.success(
            request,
            f"The {item.verbose_name} “{item}” was {verb} successfully. "
            f"You may add another {item.verbose_name} below.",
        )
        return HttpResponseRedirect(model_admin.url_for("add"))
    messages.success(request, f"{name} “{item}” was {verb} successfully.")
    return HttpResponseRedirect(model_admin.url_for("changelist"))


def missing_item_redirect(model_admin, request, object_id: str):
    messages.warning(
        request,
        f"{capfirst(model_admin.model.verbose_name)} with key “{object_id}” does not exist. "
        "Perhaps it was deleted?",
    )
    return HttpResponseRedirect(model_admin.url_for("changelist"))


def raw_view(model_admin: DynamoModelAdmin, request, object_id: str):
    """Show the stored item as DynamoDB JSON."""
    model_admin.require(model_admin.has_view_permission(request))
    item = model_admin.get_object(request, object_id)
    if item is None:
        return missing_item_redirect(model_admin, request, object_id)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": f"Stored {model_admin.model.verbose_name}",
        "subtitle": str(item),
        "opts": model_admin.opts,
        "original": item,
        "object_id": object_id,
        "table_name": model_admin.model.Meta.table_name,
        "raw_json": json.dumps(item.serialize(), indent=2, sort_keys=True, ensure_ascii=False),
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, model_admin.templates("raw_item.html"), context)
