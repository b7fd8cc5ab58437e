"""Django's admin form helpers over DynamoDB items, for Django's fieldset and inline templates.

`admin/includes/fieldset.html` and the inline templates walk an AdminForm into Fieldsets,
Fieldlines and fields. These subclasses of `django.contrib.admin.helpers` keep Django's
classes, markup and labels, and change one thing: a read-only field shows the stored item's
value as the admin displays it (exact numbers, sets, secrets masked), where Django's looks the
value up on a Django model instance, which a PynamoDB item is not.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib.admin import helpers
from django.contrib.admin.utils import flatten_fieldsets
from django.forms.formsets import DELETION_FIELD_NAME
from django.template.defaultfilters import linebreaksbr
from django.utils.html import conditional_escape
from django.utils.text import capfirst
from django.utils.translation import gettext

from dynamo.models import DynamoModel

from .display import display
from .meta import meta

if TYPE_CHECKING:
    from .inlines import InlineFormSet
    from .options import BaseDynamoAdmin

Fieldsets = Sequence[tuple[str | None, dict[str, Any]]]


def fieldsets_without(fieldsets: Fieldsets, names: Iterable[str]) -> list:
    """Return the fieldsets with these fields left out, and those left with none dropped."""
    names = set(names)
    kept = []
    for title, options in fieldsets:
        lines = []
        for line in options.get("fields", ()):
            if isinstance(line, list | tuple):
                line = tuple(name for name in line if name not in names)
                if line:
                    lines.append(line)
            elif line not in names:
                lines.append(line)
        if lines:
            kept.append((title, {**options, "fields": lines}))
    return kept


class AdminForm(helpers.AdminForm):
    """Django's AdminForm over an ItemForm and the item it shows (None on an add page).

    Each name in the fieldsets that the form does not edit shows read-only.
    """

    def __init__(
        self,
        form: forms.Form,
        fieldsets: Fieldsets,
        model_admin: BaseDynamoAdmin,
        item: DynamoModel | None = None,
    ) -> None:
        readonly = [name for name in flatten_fieldsets(fieldsets) if name not in form.fields]
        super().__init__(form, fieldsets, {}, readonly, model_admin)
        self.item = item

    def hidden_fields(self) -> list[forms.BoundField]:
        """Return the form's hidden fields no fieldset lists (the version the page shows)."""
        listed = set(flatten_fieldsets(self.fieldsets))
        return [field for field in self.form.hidden_fields() if field.name not in listed]

    def __iter__(self) -> Iterator[Fieldset]:
        for name, options in self.fieldsets:
            yield Fieldset(
                self.form,
                name,
                readonly_fields=self.readonly_fields,
                model_admin=self.model_admin,
                item=self.item,
                **options,
            )


class Fieldset(helpers.Fieldset):
    def __init__(self, form, name=None, *, item: DynamoModel | None = None, **options) -> None:
        super().__init__(form, name, **options)
        self.item = item

    def __iter__(self) -> Iterator[Fieldline]:
        for field in self.fields:
            yield Fieldline(
                self.form, field, self.readonly_fields, model_admin=self.model_admin, item=self.item
            )


class Fieldline(helpers.Fieldline):
    def __init__(self, form, field, readonly_fields=None, model_admin=None, item=None) -> None:
        super().__init__(form, field, readonly_fields, model_admin)
        self.item = item

    def __iter__(self):
        for i, field in enumerate(self.fields):
            if field in self.readonly_fields:
                yield AdminReadonlyField(self.form, field, i == 0, self.model_admin, self.item)
            else:
                yield helpers.AdminField(self.form, field, is_first=i == 0)


class AdminReadonlyField(helpers.AdminReadonlyField):
    """A read-only field showing the item's value as the admin's columns show it.

    Django's __init__ reads the form's `_meta` (a ModelForm's) and the model's fields, which
    an ItemForm over a PynamoDB model has not, so this one sets the same attributes from the
    admin's own labels; tests/test_admin_partials.py pins that list against Django's.
    """

    def __init__(
        self,
        form: forms.Form,
        field: str | Callable,
        is_first: bool,
        model_admin: BaseDynamoAdmin,
        item: DynamoModel | None = None,
    ) -> None:
        if callable(field):
            name = field.__name__ if field.__name__ != "<lambda>" else ""
        else:
            name = field
        self.field = {
            "name": name,
            "label": model_admin.label_for(field),
            "help_text": "",
            "field": field,
            "is_hidden": False,
        }
        self.form = form
        self.model_admin = model_admin
        self.is_first = is_first
        self.is_checkbox = False
        self.is_readonly = True
        self.empty_value_display = model_admin.empty_value_for(field)
        self.item = item

    def contents(self) -> str:
        """Return the item's value as the admin displays it, escaped, line breaks kept."""
        if self.item is None:
            return ""  # a row not stored yet has nothing to show
        value = self.model_admin.value_for(self.item, self.field["field"])
        text = display(value, self.empty_value_display)
        return conditional_escape(text if hasattr(text, "__html__") else linebreaksbr(text))


class InlineAdminForm(AdminForm):
    """One row of an inline: its form and its stored item (`original`, None for a new row)."""

    def __init__(self, formset, form, fieldsets, model_admin, original) -> None:
        super().__init__(form, fieldsets, model_admin, item=original)
        self.formset = formset
        self.original = original

    def deletion_field(self) -> helpers.AdminField:
        return helpers.AdminField(self.form, DELETION_FIELD_NAME, False)


class InlineAdminFormSet:
    """What the inline templates read of one inline on the page, named as in Django's admin.

    `opts` is the inline's options (its `template`, titles and permissions), `formset` the
    Django formset; iterating yields an InlineAdminForm per row.
    """

    def __init__(self, inline_formset: InlineFormSet) -> None:
        self.inline_formset = inline_formset
        self.opts = inline_formset.inline
        self.formset = inline_formset.formset
        self.fieldsets = self.opts.get_fieldsets(inline_formset.request, inline_formset.parent)
        # The empty row is what inlines.js copies on "Add another". Stored rows cannot be
        # removed on the page, so with max_num of them it never shows the link: no row to copy.
        full = self.formset.initial_form_count() >= self.formset.max_num
        self.has_add_permission = inline_formset.can_add and not full
        self.has_change_permission = inline_formset.can_change
        self.has_delete_permission = inline_formset.can_delete

    def __iter__(self) -> Iterator[InlineAdminForm]:
        """Yield each row, then (with the add permission) the empty row inlines.js copies."""
        items = self.inline_formset.items
        for form in self.formset.forms:
            original = items.get(form.stored_key)
            yield InlineAdminForm(self.formset, form, self.fieldsets, self.opts, original)
        if self.has_add_permission:
            empty = self.formset.empty_form
            yield InlineAdminForm(self.formset, empty, self.fieldsets, self.opts, None)

    def inline_formset_data(self) -> str:
        """Return the JSON inlines.js reads: the formset's prefix and its link texts."""
        return json.dumps(
            {
                "name": f"#{self.formset.prefix}",
                "options": {
                    "prefix": self.formset.prefix,
                    # Django's own msgids, so its translations apply.
                    "addText": gettext("Add another %(verbose_name)s")
                    % {"verbose_name": capfirst(meta(self.opts.model).verbose_name)},
                    "deleteText": gettext("Remove"),
                },
            }
        )

    def fields(self) -> Iterator[dict[str, Any]]:
        """Yield each column's name, label and whether it is required, in the fields' order."""
        editable = self.formset.form.base_fields
        for name in flatten_fieldsets(self.fieldsets):
            field = editable.get(name)
            yield {
                "name": name,
                "label": field.label if field is not None else self.opts.label_for(name),
                "required": field is not None and field.required,
                "help_text": field.help_text if field is not None else "",
            }

    def non_form_errors(self):
        return self.formset.non_form_errors()

    @property
    def media(self) -> forms.Media:
        return self.opts.media + self.formset.media
