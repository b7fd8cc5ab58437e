"""Django form fields generated from PynamoDB attributes, and items built from cleaned data."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib.admin import widgets
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.translation import gettext as _
from pynamodb.attributes import (
    Attribute,
    BooleanAttribute,
    JSONAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    NumberSetAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)

from dynamo import limits
from dynamo.models import DynamoModel

from .display import number_text, plain

VERSION_FIELD = "_version"


class NumberField(forms.CharField):
    """A DynamoDB number: whole numbers stay int, others float, digits shown exactly.

    A number input, as Django's admin gives integer and decimal fields; `step="any"` because
    an attribute may hold either, and the digits are checked here, not by the browser.
    """

    widget = forms.NumberInput(attrs={"step": "any", "class": "vIntegerField"})

    def prepare_value(self, value: Any) -> Any:
        return number_text(value) if isinstance(value, int | float | Decimal) else value

    def to_python(self, value: Any) -> int | float | None:
        text = super().to_python(value).strip()
        if not text:
            return None
        try:
            number = Decimal(text)
        except InvalidOperation as exc:
            raise ValidationError(_("Enter a number."), code="invalid") from exc
        if not number.is_finite():
            raise ValidationError(_("Enter a number."), code="invalid")
        # Checked as typed: float() would turn 1e-400 into 0 and 1e400 into inf.
        limits.check_number(number)
        return int(number) if number == number.to_integral_value() else float(number)


class SetField(forms.CharField):
    """A string or number set: one value per line; empty means no set."""

    widget = forms.Textarea(attrs={"rows": 3, "cols": 40})

    def __init__(self, *, numbers: bool = False, **kwargs: Any) -> None:
        self.numbers = numbers
        kwargs.setdefault("help_text", _("One value per line."))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, set | frozenset | list):
            return "\n".join(number_text(v) if self.numbers else str(v) for v in sorted(value))
        return value

    def to_python(self, value: Any) -> set | None:
        lines = {line.strip() for line in (super().to_python(value) or "").splitlines()}
        lines.discard("")
        if not lines:
            return None
        if self.numbers:
            return {NumberField().to_python(line) for line in lines}
        return lines


class DateTimeField(forms.SplitDateTimeField):
    """A UTC datetime in Django's admin date and time inputs, with its calendar and clock.

    Entered and shown in the admin's time zone (DateTimeShortcuts.js notes when the browser's
    differs), stored in UTC.
    """

    widget = widgets.AdminSplitDateTime

    def compress(self, data_list):
        result = super().compress(data_list)
        return result.astimezone(UTC) if result is not None else None


class ChoiceField(forms.TypedChoiceField):
    """One of the model's choices for the attribute, as a select with an empty first option."""

    def __init__(self, *, choices: tuple[str, ...], **kwargs: Any) -> None:
        options = [("", "---------"), *((value, value) for value in choices)]
        super().__init__(choices=options, empty_value=None, **kwargs)


class JSONValueField(forms.JSONField):
    """A list or map as JSON."""

    def __init__(self, *, kind: type, **kwargs: Any) -> None:
        self.kind = kind
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 4, "cols": 60}))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return super().prepare_value(plain(value))

    def to_python(self, value: Any) -> Any:
        result = super().to_python(value)
        if result is not None and not isinstance(result, self.kind):
            raise ValidationError(
                _("Enter a JSON list.") if self.kind is list else _("Enter a JSON object.")
            )
        return result


def formfield_for(
    name: str, attribute: Attribute, *, choices: tuple[str, ...] | None = None, **kwargs: Any
) -> forms.Field:
    """Return the form field that edits one attribute, chosen by its type; kwargs override.

    With `choices` (the model's `field_choices`) it is a select, as Django's admin gives a
    field with choices.
    """
    required = not attribute.null and not isinstance(
        attribute, BooleanAttribute | UnicodeSetAttribute | NumberSetAttribute
    )
    common = {"required": required, "label": name.replace("_", " ").capitalize(), **kwargs}
    if choices:
        return ChoiceField(choices=choices, **common)
    if isinstance(attribute, UTCDateTimeAttribute):
        return DateTimeField(**common)
    if isinstance(attribute, BooleanAttribute):
        return forms.BooleanField(**{**common, "required": False})
    if isinstance(attribute, NumberAttribute):
        return NumberField(**common)
    if isinstance(attribute, UnicodeSetAttribute):
        return SetField(**common)
    if isinstance(attribute, NumberSetAttribute):
        return SetField(numbers=True, **common)
    if isinstance(attribute, ListAttribute):
        return JSONValueField(kind=list, **common)
    if isinstance(attribute, MapAttribute | JSONAttribute):
        return JSONValueField(kind=dict, **common)
    return forms.CharField(**{"strip": False, **common})


def at_shown_precision(value: Any) -> Any:
    """Return a value as its widget shows it: a date and time to the whole second."""
    if isinstance(value, datetime):
        return value.replace(microsecond=0)
    return value


class ItemForm(forms.Form):
    """A form over a DynamoDB item's editable attributes, carrying the version it showed."""

    model: type[DynamoModel]

    def __init__(self, *args: Any, item: DynamoModel | None = None, **kwargs: Any) -> None:
        self.item = item
        if item is not None and "initial" not in kwargs:
            kwargs["initial"] = {name: getattr(item, name, None) for name in self.base_fields}
            kwargs["initial"][VERSION_FIELD] = item.version
        super().__init__(*args, **kwargs)

    def shown_version(self) -> int | None:
        """Return the version the page showed (the one a save must find stored)."""
        value = self.cleaned_data.get(VERSION_FIELD)
        return int(value) if value not in (None, "") else None

    def apply_version(self, item: DynamoModel) -> None:
        """Make the item's save conditional on the version the page showed."""
        shown = self.shown_version()
        if shown is not None or item.version is not None:
            item.version = shown

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        # A page showing a stored item always posts its version: without it a save could
        # overwrite a change made meanwhile, so it is refused, never guessed.
        shown_one = self.initial.get(VERSION_FIELD) is not None
        if shown_one and cleaned.get(VERSION_FIELD) is None and VERSION_FIELD not in self.errors:
            raise ValidationError(
                _(
                    "The page did not say which version it showed, so nothing was saved. "
                    "Reload it and make the change again."
                )
            )
        return cleaned

    def apply_to(self, item: DynamoModel) -> dict[str, list[Any]]:
        """Set the cleaned values on an item; return {attribute: [old, new]} for each change."""
        changes = {}
        for name in self.base_fields:
            if name == VERSION_FIELD:
                continue
            new = self.cleaned_data.get(name)
            if isinstance(self.fields[name], forms.CharField) and new == "":
                new = None
            old = getattr(item, name, None)
            if at_shown_precision(old) == new:
                new = old  # the widget shows whole seconds: untouched, it keeps the stored digits
            if plain(old) != plain(new):
                changes[name] = [plain(old), plain(new)]
            setattr(item, name, new)
        self.changes = changes  # what construct_change_message records by default
        return changes

    def add_model_errors(self, error: ValidationError) -> None:
        """Show the model's validation errors on their fields, others above the form.

        An error on a field the user cannot edit (a copy derived from another field, such as a
        user-skill's skill name) is left out when an editable field has one: mending that one
        mends the other, and a message about a read-only column only confuses.
        """
        messages_by_name = error.message_dict
        editable = [name for name in messages_by_name if name in self.fields]
        for name, messages in messages_by_name.items():
            if name in self.fields:
                self.add_error(name, messages)
            elif name == NON_FIELD_ERRORS:
                self.add_error(None, messages)
            elif not editable:
                label = name.replace("_", " ").capitalize()
                self.add_error(None, [f"{label}: {m}" for m in messages])


def item_form_class(
    model: type[DynamoModel],
    names: list[str],
    formfield_callback: Callable[[str, Attribute], forms.Field] | None = None,
) -> type[ItemForm]:
    """Return a form class editing these attributes of the model, with a hidden version."""
    attributes = model.get_attributes()
    make = formfield_callback or formfield_for
    fields: dict[str, Any] = {name: make(name, attributes[name]) for name in names}
    fields[VERSION_FIELD] = forms.IntegerField(required=False, widget=forms.HiddenInput)
    fields["model"] = model
    return type(f"{model.__name__}Form", (ItemForm,), fields)
