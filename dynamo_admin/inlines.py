"""Inline formsets: the items of another table edited on the parent's change page."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.admin.widgets import AutocompleteSelect
from django.core.exceptions import ValidationError
from django.forms import formset_factory

from dynamo.models import DynamoModel

from .claims import condition_attributes
from .forms import SHOWN_FIELD, VERSION_FIELD, ItemForm, initial_for
from .keys import key_values, object_id
from .meta import meta
from .models import ADDITION, CHANGE, DELETION
from .writes import Write

if TYPE_CHECKING:
    from .options import DynamoInline

KEY_FIELD = "_key"
# Django's formsets read at most 1000 forms by default.
MAX_SHOWN_ROWS = 1000


class InlineItemForm(ItemForm):
    """An inline row: carries the key of the item it edits; a stored item's key is fixed."""

    key_names: tuple[str, ...] = ()
    can_change_stored = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields[KEY_FIELD] = forms.CharField(required=False, widget=forms.HiddenInput)
        if self.initial.get(KEY_FIELD):
            # A disabled field keeps its initial value whatever is posted.
            fixed = self.fields if not self.can_change_stored else self.key_names
            for name in fixed:
                if name in self.fields and name not in (KEY_FIELD, VERSION_FIELD, SHOWN_FIELD):
                    field = self.fields[name]
                    field.disabled = True
                    if isinstance(field.widget, AutocompleteSelect):
                        # A fixed value has nothing to search: a text input shows the same
                        # value without select2's markup and script.
                        field.widget = forms.TextInput()

    @property
    def stored_key(self) -> str:
        return self.initial.get(KEY_FIELD) or ""


class InlineFormSet:
    """The formset of one inline on one parent: built from its items, written with the page."""

    def __init__(
        self, inline: DynamoInline, request, parent: DynamoModel | None, items, data=None
    ) -> None:
        """Build the rows of a stored parent's items, or of a parent being added (None)."""
        self.inline = inline
        self.request = request
        self.parent = parent
        # The inline model's own permissions, checked on the server as Django's inlines do.
        self.can_add = inline.has_add_permission(request, parent)
        self.can_change = inline.has_change_permission(request, parent)
        self.can_delete = inline.can_delete and inline.has_delete_permission(request, parent)
        data = data if self.can_add or self.can_change or self.can_delete else None
        prefix = meta(inline.model).model_name
        stored = {object_id(item): item for item in items}
        shown = list(stored) if data is None else self.posted_keys(data, prefix)
        # Rows pair with the stored items by the keys the page showed, never by position.
        found = {oid: stored.get(oid) or self.gone_item(oid) for oid in shown}
        self.items = {oid: item for oid, item in found.items() if item is not None}
        self.gone = {oid for oid in self.items if oid not in stored}
        fields = inline.get_fields(request, parent)
        readonly = inline.get_readonly_fields(request, parent)
        if not (self.can_add or self.can_change):
            readonly = fields  # a view-only inline shows values, not inputs
        self.editable = [n for n in fields if n not in readonly]
        form_class = type(
            f"{inline.model.__name__}InlineForm",
            (InlineItemForm, inline.form_class_for(request, self.editable)),
            {
                # A stored row's key, and what its item_condition reads, stay as stored.
                "key_names": (
                    *meta(inline.model).key_names,
                    *condition_attributes(inline.model, inline.get_item_condition()),
                ),
                "can_change_stored": self.can_change,
            },
        )
        # Django's options: `extra` blank rows, at least `min_num` rows (those must be filled),
        # at most `max_num`; the formset caps the extra rows at max_num as Django's does.
        max_num = inline.get_max_num(request, parent)
        factory = formset_factory(
            form_class,
            extra=inline.get_extra(request, parent) if self.can_add else 0,
            min_num=inline.get_min_num(request, parent) if self.can_add else 0,
            can_delete=self.can_delete,
            max_num=max_num,
            validate_max=max_num is not None,
        )
        initial = []
        for oid in shown:
            item = self.items.get(oid)
            initial.append({**initial_for(item, self.editable), KEY_FIELD: oid} if item else {})
        self.formset = factory(data=data, initial=initial, prefix=prefix)

    @staticmethod
    def posted_keys(data, prefix: str) -> list[str]:
        """Return the keys of the stored rows the submitted page showed, in its order."""
        try:
            count = min(int(data.get(f"{prefix}-INITIAL_FORMS", 0)), MAX_SHOWN_ROWS)
        except ValueError:
            count = 0
        return [data.get(f"{prefix}-{n}-{KEY_FIELD}", "") for n in range(count)]

    def gone_item(self, oid: str) -> DynamoModel | None:
        """Return a key-only stand-in for a row the page showed that is no longer stored.

        Its write is conditional on the version the page showed, so it fails as stale.
        """
        key = key_values(self.inline.model, oid) if oid and self.parent is not None else None
        if key is None or key[0] != self.inline.parent_key(self.parent):
            return None  # not a row of this parent: the form counts as a new row
        return self.inline.model(*key)

    def is_valid(self) -> bool:
        return self.formset.is_valid()

    def prepare_rows(self, request) -> None:
        """Set what each row's form does not edit (the inline's prepare_item) before the write."""
        for write in getattr(self, "writes", []):
            if write.action == DELETION:
                continue
            try:
                self.inline.prepare_item(request, write.item, write.form, write.action == CHANGE)
            except ValidationError as exc:
                write.form.add_model_errors(exc)

    def pending(self, parent: DynamoModel) -> list[Write]:
        """Return the rows to write: each added, changed or deleted item with its form.

        `parent` is the page's item as it will be written (on an add page, the new one).
        """
        writes = []
        for form in self.formset.forms:
            stored = self.items.get(form.stored_key)
            gone = form.stored_key in self.gone
            deleting = self.formset.can_delete and form.cleaned_data.get("DELETE")
            if stored is not None and deleting:
                form.apply_version(stored)
                writes.append(Write(self.inline, form, stored, DELETION, gone=gone))
                continue
            if deleting or not form.has_changed():
                continue
            # Rows beyond the ones shown (a raised TOTAL_FORMS) or edits of stored rows count
            # only with the inline model's add or change permission, as in Django's inlines.
            if not (self.can_change if form.stored_key else self.can_add):
                continue
            item = stored or self.inline.new_item(parent)
            if stored is not None:
                form.apply_version(item)
            changes = form.apply_to(item)
            if stored is not None and not changes and not gone:
                continue  # the row's values are the ones shown: nothing to write
            action = CHANGE if stored else ADDITION
            writes.append(Write(self.inline, form, item, action, changes, gone=gone))
        self.writes = writes
        return writes
