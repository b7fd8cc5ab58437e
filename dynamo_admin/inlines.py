"""Inline formsets: the items of another table edited on the parent's change page."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms import formset_factory

from dynamo.exceptions import ConflictError
from dynamo.models import DynamoModel

from .display import display
from .forms import ItemForm, item_form_class
from .keys import object_id

if TYPE_CHECKING:
    from .options import DynamoInline

KEY_FIELD = "_key"


@dataclass
class InlineRow:
    """One form of an inline and the read-only values shown beside it."""

    form: ItemForm
    readonly: list[tuple[str, str]] = field(default_factory=list)


class InlineItemForm(ItemForm):
    """An inline row: carries the key of the item it edits; a stored item's key is fixed."""

    key_names: tuple[str, ...] = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields[KEY_FIELD] = forms.CharField(required=False, widget=forms.HiddenInput)
        if self.initial.get(KEY_FIELD):
            for name in self.key_names:
                if name in self.fields:
                    self.fields[name].disabled = True

    @property
    def stored_key(self) -> str:
        return self.initial.get(KEY_FIELD) or ""


class InlineFormSet:
    """The formset of one inline on one parent: built from its items, saved row by row."""

    def __init__(self, inline: DynamoInline, request, parent: DynamoModel, items, data=None):
        self.inline = inline
        self.request = request
        self.parent = parent
        self.items = {object_id(item): item for item in items}
        self.can_change = inline.has_change_permission(request)
        readonly = inline.get_readonly_fields(request, parent)
        self.editable = [n for n in inline.get_fields(request) if n not in readonly]
        self.readonly = [n for n in inline.get_fields(request) if n in readonly]
        form_class = type(
            f"{inline.model.__name__}InlineForm",
            (InlineItemForm, item_form_class(inline.model, self.editable)),
            {"key_names": tuple(inline.model.key_attribute_names())},
        )
        can_add = self.can_change and inline.has_add_permission(request)
        room = None if inline.max_num is None else max(0, inline.max_num - len(self.items))
        extra = min(inline.extra, room) if room is not None else inline.extra
        factory = formset_factory(
            form_class,
            extra=extra if can_add else 0,
            can_delete=inline.can_delete and inline.has_delete_permission(request),
        )
        initial = []
        for oid, item in self.items.items():
            values = {name: getattr(item, name, None) for name in self.editable}
            initial.append({**values, "_version": item.version, KEY_FIELD: oid})
        self.formset = factory(
            data=data if self.can_change else None,
            initial=initial,
            prefix=inline.model.model_name,
        )

    def rows(self) -> list[InlineRow]:
        empty = self.inline.get_empty_value_display()
        rows = []
        for form in self.formset.forms:
            item = self.items.get(form.initial.get(KEY_FIELD, ""))
            values = [
                (name, display(getattr(item, name, None), empty) if item else "")
                for name in self.readonly
            ]
            rows.append(InlineRow(form, values))
        return rows

    def is_valid(self) -> bool:
        return self.formset.is_valid()

    def pending(self) -> list[tuple[InlineItemForm, DynamoModel, str, dict[str, Any]]]:
        """Return (form, item, action, changes) for each row to write."""
        writes = []
        for form in self.formset.forms:
            stored = self.items.get(form.stored_key)
            deleting = self.formset.can_delete and form.cleaned_data.get("DELETE")
            if stored is not None and deleting:
                stored.version = form.shown_version()
                writes.append((form, stored, "delete", {}))
                continue
            if deleting or not form.has_changed():
                continue
            item = stored or self.inline.new_item(self.parent)
            if stored is not None:
                item.version = form.shown_version()
            changes = form.apply_to(item)
            writes.append((form, item, "change" if stored else "add", changes))
        return writes

    def save(self, model_admin, writes) -> bool:
        """Write the rows; a lost conditional write becomes the row's error. Return success."""
        ok = True
        for form, item, action, changes in writes:
            try:
                if action == "delete":
                    item.delete()
                else:
                    self.inline.save_item(self.request, item, form, action == "change")
            except ValidationError as exc:
                form.add_model_errors(exc)
                ok = False
                continue
            except ConflictError as exc:
                form.add_error(None, str(exc))
                ok = False
                continue
            log = {"add": "log_addition", "change": "log_change", "delete": "log_deletion"}
            getattr(model_admin, log[action])(self.request, item, changes)
        return ok
