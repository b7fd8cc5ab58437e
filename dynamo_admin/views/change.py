"""The add and change form (inlines written with the item, stale and duplicate keys), raw view."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.admin.helpers import AdminErrorList
from django.core.exceptions import ValidationError
from django.http import HttpResponseRedirect
from django.template.response import TemplateResponse
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from pynamodb.exceptions import TransactWriteError

from dynamo.batch import BATCH_GET_LIMIT, get_together
from dynamo.codec import encode_item
from dynamo.limits import keys_fit
from dynamo.models import DynamoModel

from .. import helpers
from ..claims import key_problem
from ..display import display, masked_stored
from ..forms import ItemForm
from ..keys import Original, key_item
from ..meta import label_of, meta, pk_of
from ..models import (
    ADDITION,
    CHANGE,
    DELETION,
    MISSING_LOG,
    AdminLog,
    is_missing_table,
    object_key_for,
    secret_fields,
)
from ..stored import (
    current_raw,
    full_clean,
    get_item,
    load,
    remember_written,
)
from ..writes import (
    CANCELLED_BY_CONDITION,
    MAX_TRANSACTION_ITEMS,
    TRANSACTION_CONFLICT,
    Cancelled,
    Update,
    Write,
    key_taken,
    write_together,
)


class ChangeFormViews:
    """The add, change and raw pages of DynamoModelAdmin, each step one of Django's hooks."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        """Show and save the add form (object_id None) or the change form of one item."""
        return self._changeform_view(request, object_id, form_url, extra_context)

    def _changeform_view(self, request, object_id, form_url, extra_context):
        """Run the page's steps, as Django's: get_form, the formsets, save_model, save_related,
        the log_* entries, response_add/response_change, render_change_form.
        """
        item, prefetched = None, {}
        if object_id is None:
            self.require(self.has_add_permission(request))
        else:
            self.require(self.has_view_permission(request))
            item, prefetched = self.read_item_and_rows(request, object_id)
            if item is None:
                return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        can_save = item is None or self.has_change_permission(request, item)
        if request.method == "POST":
            self.require(can_save)
        readonly = self.get_readonly_fields(request, item)
        fields = self.get_fields(request, item)
        if not can_save:
            readonly = fields
        editable = [n for n in fields if n not in readonly]
        form_class = self.get_form(request, item, change=item is not None, fields=editable)
        data = request.POST if request.method == "POST" else None
        form = form_class(data, item=item)
        inlines = self._create_formsets(
            request, item, change=item is not None, prefetched=prefetched
        )
        stale = None
        if data is not None and form.is_valid() and all(i.is_valid() for i in inlines):
            saved, stale = self.save_forms(request, form, item, inlines)
            if saved is not None:
                if item is None:
                    return self.response_add(request, saved)
                return self.response_change(request, saved)
        context = {
            **self.admin_site.each_context(request),
            **self.change_form_context(request, form, item, readonly, inlines, can_save),
            "object_id": object_id,
            "stale_items": stale,
            **(extra_context or {}),
        }
        return self.render_change_form(
            request, context, add=item is None, change=item is not None, form_url=form_url, obj=item
        )

    def get_formsets_with_inlines(self, request, obj: DynamoModel | None = None):
        """Yield (formset class, inline) for each inline this user may see on obj's page."""
        for inline in self.get_inline_instances(request, obj):
            yield inline.get_formset(request, obj), inline

    def get_object(self, request, object_id: str) -> DynamoModel | None:
        """Return the stored item an object id names (one GetItem), or None."""
        return get_item(self.model, self.key_or_404(object_id), consistent_read=True)

    def read_item_and_rows(self, request, object_id: str) -> tuple[DynamoModel | None, dict]:
        """Return the stored item and its inlines' rows by inline class.

        The item and the rows whose keys are known (the inline's item_keys: a save's shown
        rows, a row keyed by the item's key) are one consistent BatchGetItem; the other
        inlines' Queries come before it. An inline that only the stored item brings is read
        after it, by _create_formsets.
        """
        key = self.key_or_404(object_id)
        if not keys_fit(key):  # DynamoDB cannot hold the key: no item has it
            return None, {}
        named = key_item(self.model, key)
        # An admin's own get_object reads the item; the default one is a key of the batch.
        batched = type(self).get_object is ChangeFormViews.get_object
        wanted: list[tuple[type[DynamoModel], tuple[Any, ...]]] = [(self.model, key)] * batched
        keyed, queried = {}, []
        for inline in self.get_inline_instances(request, named):
            if inline.reads_stored_parent():
                continue  # read after the item, by _create_formsets
            keys = inline.item_keys(request, named)
            if keys is None or len(wanted) + len(keys) > BATCH_GET_LIMIT:
                queried.append(inline)
                continue
            keyed[type(inline)] = slice(len(wanted), len(wanted) + len(keys))
            wanted += [(inline.model, k) for k in keys]
        prefetched = {type(inline): inline.get_items(named) for inline in queried}
        together = get_together(wanted, consistent_read=True, load=load) if wanted else []
        item = together[0] if batched else self.get_object(request, object_id)
        prefetched.update({cls: [i for i in together[at] if i] for cls, at in keyed.items()})
        return item, prefetched

    def _create_formsets(
        self, request, obj: DynamoModel | None, change: bool, prefetched: dict | None = None
    ):
        """Return the page's inline formsets, bound to the POST data when it is one.

        Each inline's rows are one read of its own table: those `prefetched` with the item are
        used as read, the others are read here (none to add).
        """
        data = request.POST if request.method == "POST" else None
        pairs = list(self.get_formsets_with_inlines(request, obj))
        prefetched = prefetched or {}
        if obj is None:
            stored = [[] for _ in pairs]
        else:
            stored = [
                prefetched[type(inline)] if type(inline) in prefetched else inline.get_items(obj)
                for _formset, inline in pairs
            ]
        return [
            formset_class(inline, request, obj, items, data)
            for (formset_class, inline), items in zip(pairs, stored, strict=True)
        ]

    def construct_change_message(self, request, form, formsets, add: bool = False):
        """Return what the page's item's history entry records: {attribute: [old, new]}."""
        return form.changes

    def save_forms(
        self, request, form: ItemForm, stored: DynamoModel | None, formsets, commit: bool = True
    ):
        """Write the item and its inline rows together; return (item or None, stale items).

        Every door that edits an item goes through here: the change page, the change-a-field
        action and each row of an import. With `commit=False` (an import's preview) the item
        is prepared and checked as for a save, and nothing is written.
        """
        adding = stored is None
        item = self.model() if adding else stored
        if not adding:
            form.apply_version(item)  # the save must find what the page showed
        changes = form.apply_to(item)
        writes = []
        if adding or changes:
            message = self.construct_change_message(request, form, formsets, adding)
            writes.append(Write(self, form, item, ADDITION if adding else CHANGE, message))
        for formset in formsets:
            writes += formset.pending(item)
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
        if not self.writes_are_valid(request, form, writes, formsets, not adding):
            return None, None
        if not commit:
            return item, None
        for write in writes:  # each entry from the admin's hook, written with its item
            write.entry = self.log_write(request, write)
        if writes:
            updates = self.transaction_updates(request, item, writes, formsets)
            try:
                # Each item goes with its history entry: a change never commits unrecorded.
                write_together(writes, actor=request.user.get_username(), updates=updates)
            except Cancelled as exc:
                return None, report_cancelled(form, exc.failures)
            except TransactWriteError as exc:
                if not is_missing_table(exc):
                    raise
                form.add_error(None, MISSING_LOG % {"table": AdminLog.Meta.table_name})
                return None, None
        for write in writes:  # only once the transaction has committed
            if write.action == DELETION:
                AdminLog.forget(object_key_for(write.item))
            elif isinstance(write.item, DynamoModel):
                write.item.mark_written(
                    created=write.action == ADDITION, rows_written=write.rows_written
                )
            else:
                remember_written(write.item)
        return item, None

    def transaction_updates(
        self, request, item: DynamoModel, writes: list[Write], formsets
    ) -> list[Update]:
        """Return the copies to update in the save's transaction (none by default); a hook.

        A copy of the item's values kept on another item (a name the leaderboards show) is
        then written with the save, in its one round trip, rather than after it.
        """
        return []

    def log_write(self, request, write: Write) -> AdminLog:
        """Return a write's history entry from log_addition, log_change or log_deletions."""
        if write.action == ADDITION:
            return self.log_addition(request, write.item, write.changes)
        if write.action == CHANGE:
            return self.log_change(request, write.item, write.changes)
        return self.log_deletions(request, [write.item])[0]

    def writes_are_valid(self, request, form, writes: list[Write], formsets, change) -> bool:
        """Prepare and validate each item, and refuse two writes of one key; errors go on forms.

        The page's item goes through Django's save_model hook, the inline rows through
        save_related (each inline's prepare_item); then every item's rules are checked.
        """
        seen = set()
        for write in writes:
            if write.key in seen:
                message = _(
                    "The %(name)s %(item)s is on this page twice; save one of the two changes"
                    " first."
                )
                names = {"name": meta(type(write.item)).verbose_name, "item": label_of(write.item)}
                write.form.add_error(None, message % names)
            seen.add(write.key)
        for write in writes:
            if write.form is form and write.action != DELETION:
                try:
                    self.save_model(request, write.item, form, change)
                except ValidationError as exc:
                    form.add_model_errors(exc)
        self.save_related(request, form, formsets, change)
        valid = True
        for write in writes:
            if write.form.errors:
                valid = False
                continue
            if write.action == DELETION:
                continue
            if write.action == ADDITION:  # on a shared table, a key of this model's own
                problem = key_problem(
                    type(write.item), write.item, write.admin.get_item_condition()
                )
                if problem:
                    write.form.add_error(None, problem)
                    valid = False
                    continue
            try:
                full_clean(write.item)
            except ValidationError as exc:
                write.form.add_model_errors(exc)
                valid = False
        return valid

    def change_form_context(
        self, request, form: ItemForm, item, readonly, formsets, can_save: bool
    ) -> dict[str, Any]:
        """Return what Django's change form, fieldset, inline and submit-row templates read."""
        fieldsets = self.get_fieldsets(request, item)
        if item is None:  # nothing is stored yet: a read-only field has no value to show
            fieldsets = helpers.fieldsets_without(fieldsets, readonly)
        adminform = helpers.AdminForm(form, fieldsets, self, item)
        inline_admin_formsets = [helpers.InlineAdminFormSet(formset) for formset in formsets]
        media = self.media + adminform.media
        for inline_admin_formset in inline_admin_formsets:
            media += inline_admin_formset.media
        title = _("Add %s") if item is None else _("Change %s") if can_save else _("View %s")
        return {
            "title": title % self.opts.verbose_name,
            "subtitle": label_of(item) if item is not None else None,
            "opts": self.opts,
            "original": Original(item) if item is not None else None,
            "adminform": adminform,
            "inline_admin_formsets": inline_admin_formsets,
            "errors": AdminErrorList(form, [formset.formset for formset in formsets]),
            "media": media,
            # What Django's submit_row tag reads to choose the buttons (admin/submit_line.html).
            "add": item is None,
            "change": item is not None,
            "is_popup": False,
            "save_as": False,  # a stored item's key is fixed: no "Save as new"
            "save_on_top": self.save_on_top,
            "has_add_permission": self.has_add_permission(request),
            "has_change_permission": self.has_change_permission(request, item),
            "has_view_permission": self.has_view_permission(request, item),
            "has_delete_permission": item is not None and self.has_delete_permission(request, item),
            # Inline rows are saved with the item, so only a user who may save it edits them.
            "has_editable_inline_admin_formsets": can_save
            and any(f.can_add or f.can_change or f.can_delete for f in formsets),
        }

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        """Render the add or change page from its context, as Django's hook does."""
        context.update({"add": add, "change": change, "form_url": form_url})
        request.current_app = self.admin_site.name
        template = self.templates("change_form.html", self.change_form_template)
        return TemplateResponse(request, template, context)

    def _get_obj_does_not_exist_redirect(self, request, opts, object_id: str):
        """Go back to the listing saying the item is gone, as Django's admin does."""
        # Django's own message, so its translations apply.
        message = _("%(name)s with ID “%(key)s” doesn’t exist. Perhaps it was deleted?") % {  # noqa: RUF001
            "name": capfirst(self.opts.verbose_name),
            "key": object_id,
        }
        self.message_user(request, message, messages.WARNING)
        return HttpResponseRedirect(self.url_for("changelist"))

    def raw_view(self, request, object_id: str):
        """Show the stored item as DynamoDB JSON."""
        self.require(self.has_view_permission(request))
        item = self.get_object(request, object_id)
        if item is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Stored %s") % self.opts.verbose_name,
            "subtitle": label_of(item),
            "opts": self.opts,
            "original": Original(item),
            "object_id": object_id,
            "table_name": self.model.Meta.table_name,
            "raw_json": json.dumps(raw_masked(item), indent=2, sort_keys=True, ensure_ascii=False),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("raw_item.html"), context)


def report_cancelled(form: ItemForm, failures) -> list[dict[str, Any]]:
    """Say on the page's form (and each row's) which writes lost; return their stored values."""
    stale = []
    for write, code in failures:
        item, name = write.item, meta(type(write.item)).verbose_name
        names = {"name": name, "item": label_of(item)}
        if code == TRANSACTION_CONFLICT:
            message = _("Another save was writing the %(name)s “%(item)s” at the same moment.")
            message %= names
        elif write.action == ADDITION:
            message = key_taken(item)
        else:
            message = _(
                "Someone else changed or deleted the %(name)s “%(item)s” since you opened it."
            )
            message %= names
        # Said once: on the row that lost, or above the page's own form.
        (write.form if write.form is not None else form).add_error(None, message)
        if code != TRANSACTION_CONFLICT:
            current = get_item(type(item), pk_of(item), consistent_read=True)
            values = current_values(write.admin, current)
            stale.append({"title": f"{capfirst(name)} {label_of(item)}", "values": values})
    form.add_error(
        None,
        _("Nothing was saved. The stored values are shown below; reload the page to edit them.")
        if stale
        else _("Nothing was saved; please save again."),
    )
    return stale


def current_values(admin, current: DynamoModel | None) -> list[tuple[str, str]]:
    if current is None:
        deleted = _("The %(name)s has been deleted.")
        return [("", deleted % {"name": meta(admin.model).verbose_name})]
    empty = admin.get_empty_value_display()
    return [
        (admin.label_for(name), display(admin.value_for(current, name), empty))
        for name in admin.attribute_names()
    ]


def raw_masked(item: DynamoModel) -> dict[str, Any]:
    """Return the item as stored, in DynamoDB JSON, each secret masked (display.masked_stored).

    Undeclared attributes and values the model cannot read are shown as stored; a declared
    value as the admin holds it (a log entry's values hidden from this user stay hidden).
    """
    raw = encode_item(current_raw(item))
    for name in secret_fields(item):
        attribute = item.get_attributes()[name]
        if attribute.attr_name in raw:
            raw[attribute.attr_name] = {"S": masked_stored(getattr(item, name))}
    return raw
