"""The add and change form (inlines written with the item, stale and duplicate keys), raw view."""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.contrib.admin.helpers import AdminErrorList
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.text import capfirst
from django.utils.translation import gettext as _

from dynamo.models import DynamoModel
from dynamo.parallel import read_together

from .. import helpers
from ..display import display, masked
from ..forms import ItemForm
from ..inlines import InlineFormSet
from ..keys import Original, key_item
from ..models import ADDITION, CHANGE, DELETION, AdminLog, object_key_for, secret_fields
from ..writes import (
    CANCELLED_BY_CONDITION,
    MAX_TRANSACTION_ITEMS,
    TRANSACTION_CONFLICT,
    Cancelled,
    Write,
    write_together,
)

if TYPE_CHECKING:
    from ..options import DynamoModelAdmin


def changeform_view(
    model_admin: DynamoModelAdmin, request, object_id: str | None, form_url="", extra_context=None
):
    """Show and save the add form (object_id None) or the change form of one item.

    The steps are the admin's hooks, as in Django's: get_form, save_model, save_related, the
    log_* entries, response_add/response_change, render_change_form.
    """
    item, prefetched = None, {}
    if object_id is None:
        model_admin.require(model_admin.has_add_permission(request))
    else:
        model_admin.require(model_admin.has_view_permission(request))
        item, prefetched = read_item_and_rows(model_admin, request, object_id)
        if item is None:
            return missing_item_redirect(model_admin, request, object_id)
    can_save = item is None or model_admin.has_change_permission(request, item)
    if request.method == "POST":
        model_admin.require(can_save)
    readonly = model_admin.get_readonly_fields(request, item)
    fields = model_admin.get_fields(request, item)
    if not can_save:
        readonly = fields
    editable = [n for n in fields if n not in readonly]
    form_class = model_admin.get_form(request, item, change=item is not None, fields=editable)
    data = request.POST if request.method == "POST" else None
    form = form_class(data, item=item)
    inline_admins = model_admin.get_inline_instances(request, item)
    # Each inline's rows are one read of its own table, most read with the item already.
    stored = inline_rows(inline_admins, item, prefetched)
    inlines = [
        InlineFormSet(inline, request, item, items, data if can_save else None)
        for inline, items in zip(inline_admins, stored, strict=True)
    ]
    stale = None
    if data is not None and form.is_valid() and all(i.is_valid() for i in inlines):
        saved, stale = save_forms(model_admin, request, form, item, inlines)
        if saved is not None:
            if item is None:
                return model_admin.response_add(request, saved)
            return model_admin.response_change(request, saved)
    context = {
        **model_admin.admin_site.each_context(request),
        **change_form_context(model_admin, request, form, item, readonly, inlines, can_save),
        "object_id": object_id,
        "stale_items": stale,
        **(extra_context or {}),
    }
    return model_admin.render_change_form(
        request, context, add=item is None, change=item is not None, form_url=form_url, obj=item
    )


def read_item_and_rows(model_admin, request, object_id: str) -> tuple[DynamoModel | None, dict]:
    """Return the stored item and, read at the same time, its inlines' rows by inline class.

    The inlines are those its key alone shows (one round trip for the page, not two); an
    inline that only the stored item brings is read after it, by inline_rows.
    """
    named = key_item(model_admin.model, model_admin.key_or_404(object_id))
    inlines = model_admin.get_inline_instances(request, named)
    reads = [partial(inline.get_items, named) for inline in inlines]
    item, *rows = read_together([partial(model_admin.get_object, request, object_id), *reads])
    return item, {type(inline): found for inline, found in zip(inlines, rows, strict=True)}


def inline_rows(inline_admins, item: DynamoModel | None, prefetched: dict) -> list[list]:
    """Return each inline's stored rows: those read with the item, the others read together."""
    if item is None:
        return [[] for _ in inline_admins]
    missing = [inline for inline in inline_admins if type(inline) not in prefetched]
    found = read_together([partial(inline.get_items, item) for inline in missing])
    late = dict(zip(map(type, missing), found, strict=True))
    return [prefetched.get(type(inline), late.get(type(inline))) for inline in inline_admins]


def save_forms(model_admin, request, form: ItemForm, stored: DynamoModel | None, inlines):
    """Write the item and its inline rows together; return (item or None, stale items shown)."""
    adding = stored is None
    item = model_admin.model() if adding else stored
    if not adding:
        form.apply_version(item)  # the save must find what the page showed
    changes = form.apply_to(item)
    writes = []
    if adding or changes:
        writes.append(Write(model_admin, form, item, ADDITION if adding else CHANGE, changes))
    for inline in inlines:
        writes += inline.pending(item)
    if len(writes) > MAX_TRANSACTION_ITEMS:
        message = _(
            "This page would write %(count)s items, but DynamoDB writes at most %(most)s"
            " together with their history entries, so nothing was saved. Save fewer rows at"
            " a time."
        )
        form.add_error(None, message % {"count": len(writes), "most": MAX_TRANSACTION_ITEMS})
        return None, None
    gone = [(write, CANCELLED_BY_CONDITION) for write in writes if write.gone]
    if gone:  # its write could only fail: say so without trying
        return None, report_cancelled(form, gone)
    if not writes_are_valid(model_admin, request, form, writes, inlines, not adding):
        return None, None
    for write in writes:  # each entry from the admin's hook, written with its item
        write.entry = log_entry(model_admin, request, write)
    if writes:
        try:
            # Each item goes with its history entry: a change never commits unrecorded.
            write_together(writes, actor=request.user.get_username())
        except Cancelled as exc:
            return None, report_cancelled(form, exc.failures)
    for write in writes:  # only once the transaction has committed
        if write.action == DELETION:
            AdminLog.forget(object_key_for(write.item))
        else:
            write.item.mark_written(created=write.action == ADDITION)
    return item, None


def log_entry(model_admin, request, write: Write):
    """Return a write's history entry from the admin's log_addition/log_change/log_deletion."""
    if write.action == ADDITION:
        return model_admin.log_addition(request, write.item, write.changes)
    if write.action == CHANGE:
        return model_admin.log_change(request, write.item, write.changes)
    return model_admin.log_deletion(request, write.item, str(write.item))


def writes_are_valid(model_admin, request, form, writes: list[Write], inlines, change) -> bool:
    """Prepare and validate each item, and refuse two writes of one key; errors go on forms.

    The page's item goes through Django's save_model hook, the inline rows through
    save_related (each inline's prepare_item); then every item's rules are checked.
    """
    seen = set()
    for write in writes:
        if write.key in seen:
            message = _(
                "The %(name)s %(item)s is on this page twice; save one of the two changes first."
            )
            names = {"name": write.item.verbose_name, "item": write.item}
            write.form.add_error(None, message % names)
        seen.add(write.key)
    for write in writes:
        if write.form is form and write.action != DELETION:
            try:
                model_admin.save_model(request, write.item, form, change)
            except ValidationError as exc:
                form.add_model_errors(exc)
    model_admin.save_related(request, form, inlines, change)
    valid = True
    for write in writes:
        if write.form.errors:
            valid = False
            continue
        if write.action == DELETION:
            continue
        try:
            write.item.full_clean()
        except ValidationError as exc:
            write.form.add_model_errors(exc)
            valid = False
    return valid


def report_cancelled(form: ItemForm, failures) -> list[dict[str, Any]]:
    """Say on the page's form (and each row's) which writes lost; return their stored values."""
    stale = []
    for write, code in failures:
        item, name = write.item, write.item.verbose_name
        if code == TRANSACTION_CONFLICT:
            message = _("Another save was writing the %(name)s “%(item)s” at the same moment.")
        elif write.action == ADDITION:
            message = _("A %(name)s with the key %(item)s already exists.")
        else:
            message = _(
                "Someone else changed or deleted the %(name)s “%(item)s” since you opened it."
            )
        message %= {"name": name, "item": item}
        # Said once: on the row that lost, or above the page's own form.
        (write.form if write.form is not None else form).add_error(None, message)
        if code != TRANSACTION_CONFLICT:
            current = type(item).get_or_none(*item.pk, consistent_read=True)
            values = current_values(write.admin, current)
            stale.append({"title": f"{capfirst(name)} {item}", "values": values})
    form.add_error(
        None,
        _("Nothing was saved. The stored values are shown below; reload the page to edit them.")
        if stale
        else _("Nothing was saved; please save again."),
    )
    return stale


def current_values(admin, current: DynamoModel | None) -> list[tuple[str, str]]:
    if current is None:
        return [("", _("The %(name)s has been deleted.") % {"name": admin.model.verbose_name})]
    empty = admin.get_empty_value_display()
    return [
        (admin.label_for(name), display(admin.value_for(current, name), empty))
        for name in admin.attribute_names()
    ]


def change_form_context(
    model_admin, request, form: ItemForm, item, readonly, inlines, can_save: bool
) -> dict[str, Any]:
    """Return what Django's change form, fieldset, inline and submit-row templates read."""
    fieldsets = model_admin.get_fieldsets(request, item)
    if item is None:  # nothing is stored yet: a read-only field has no value to show
        fieldsets = helpers.fieldsets_without(fieldsets, readonly)
    adminform = helpers.AdminForm(form, fieldsets, model_admin, item)
    inline_admin_formsets = [helpers.InlineAdminFormSet(inline) for inline in inlines]
    media = model_admin.media + adminform.media
    for inline_admin_formset in inline_admin_formsets:
        media += inline_admin_formset.media
    title = _("Add %s") if item is None else _("Change %s") if can_save else _("View %s")
    return {
        "title": title % model_admin.opts.verbose_name,
        "subtitle": str(item) if item is not None else None,
        "opts": model_admin.opts,
        "original": Original(item) if item is not None else None,
        "adminform": adminform,
        "inline_admin_formsets": inline_admin_formsets,
        "errors": AdminErrorList(form, [inline.formset for inline in inlines]),
        "media": media,
        # What Django's submit_row tag reads to choose the buttons (admin/submit_line.html).
        "add": item is None,
        "change": item is not None,
        "is_popup": False,
        "save_as": False,  # a stored item's key is fixed: no "Save as new"
        "save_on_top": model_admin.save_on_top,
        "has_add_permission": model_admin.has_add_permission(request),
        "has_change_permission": model_admin.has_change_permission(request, item),
        "has_view_permission": model_admin.has_view_permission(request, item),
        "has_delete_permission": item is not None
        and model_admin.has_delete_permission(request, item),
        # Inline rows are saved with the item, so only a user who may save it edits them.
        "has_editable_inline_admin_formsets": can_save
        and any(inline.can_add or inline.can_change or inline.can_delete for inline in inlines),
    }


def missing_item_redirect(model_admin, request, object_id: str):
    """Go back to the listing saying the item is gone, as Django's admin does."""
    # Django's own message, so its translations apply.
    message = _("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?") % {  # noqa: RUF001
        "name": capfirst(model_admin.model.verbose_name),
        "key": object_id,
    }
    model_admin.message_user(request, message, messages.WARNING)
    return HttpResponseRedirect(model_admin.url_for("changelist"))


def raw_view(model_admin: DynamoModelAdmin, request, object_id: str):
    """Show the stored item as DynamoDB JSON."""
    model_admin.require(model_admin.has_view_permission(request))
    item = model_admin.get_object(request, object_id)
    if item is None:
        return missing_item_redirect(model_admin, request, object_id)
    context = {
        **model_admin.admin_site.each_context(request),
        "title": _("Stored %s") % model_admin.opts.verbose_name,
        "subtitle": str(item),
        "opts": model_admin.opts,
        "original": item,
        "object_id": object_id,
        "table_name": model_admin.model.Meta.table_name,
        "raw_json": json.dumps(raw_masked(item), indent=2, sort_keys=True, ensure_ascii=False),
    }
    request.current_app = model_admin.admin_site.name
    return TemplateResponse(request, model_admin.templates("raw_item.html"), context)


def raw_masked(item: DynamoModel) -> dict[str, Any]:
    """Return the item as DynamoDB JSON with each secret replaced by its masked summary."""
    raw = item.serialize()
    for name in secret_fields(item):
        attribute = item.get_attributes()[name]
        if attribute.attr_name in raw:
            raw[attribute.attr_name] = {"S": masked(getattr(item, name))}
    return raw
