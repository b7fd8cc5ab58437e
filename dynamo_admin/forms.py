"""Django form fields generated from PynamoDB attributes, and items built from cleaned data."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django import forms
from django.contrib.admin import widgets
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from pynamodb.attributes import (
    Attribute,
    BooleanAttribute,
    JSONAttribute,
    ListAttribute,
    MapAttribute,
    NumberAttribute,
    NumberSetAttribute,
    UnicodeAttribute,
    UnicodeSetAttribute,
    UTCDateTimeAttribute,
)
from pynamodb.models import Model

from dynamo import limits
from dynamo.codec import BadValue, decode, encode
from dynamo.models import DynamoModel

from .display import number_text, plain
from .meta import field_label, meta, version_of
from .stored import raw_of

VERSION_FIELD = "_version"
# The stored values the page showed, by attribute, as DynamoDB JSON: what a save compares with.
SHOWN_FIELD = "_shown"
# The attribute classes a form edits; any other (binary, a TTL, a custom serialisation) is
# shown read-only and never rewritten.
EDITABLE_ATTRIBUTES = (
    UnicodeAttribute,
    NumberAttribute,
    BooleanAttribute,
    UTCDateTimeAttribute,
    UnicodeSetAttribute,
    NumberSetAttribute,
    ListAttribute,
    MapAttribute,
    JSONAttribute,
)


def is_editable(attribute: Attribute) -> bool:
    """Return whether a form can edit the attribute and write back exactly what it stores.

    Its class is one of EDITABLE_ATTRIBUTES, or a subclass keeping its serialisation (a typed
    map); an attribute with a serialisation of its own (an Enum, a JSON-encoded number) is not.
    """
    for base in EDITABLE_ATTRIBUTES:
        if isinstance(attribute, base):
            kind = type(attribute)
            return kind.serialize is base.serialize and kind.deserialize is base.deserialize
    return False


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
    """A list or map as JSON, checked against the attribute's declared shape."""

    def __init__(self, *, kind: type, attribute: Attribute | None = None, **kwargs: Any) -> None:
        self.kind = kind
        self.attribute = attribute
        kwargs.setdefault("widget", forms.Textarea(attrs={"rows": 4, "cols": 60}))
        super().__init__(**kwargs)

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value is not None and self.attribute is not None:
            problems = shape_errors(self.attribute, value, self.label or "value")
            if problems:
                raise ValidationError(problems[:10])

    def prepare_value(self, value: Any) -> Any:
        return super().prepare_value(plain(value))

    def to_python(self, value: Any) -> Any:
        result = super().to_python(value)
        if result is not None and not isinstance(result, self.kind):
            raise ValidationError(
                _("Enter a JSON list.") if self.kind is list else _("Enter a JSON object.")
            )
        return result


def shape_errors(attribute: Attribute, value: Any, path: str) -> list[str]:
    """Return what in a JSON value does not fit the attribute, each problem named by its path.

    A typed map is checked attribute by attribute (`Location.latlng.lat: not a number`), a
    typed list element by element (`contacts[1].platform: required`); nothing of a value
    that does not fit is written.
    """
    if value is None:
        return []
    if isinstance(attribute, MapAttribute) and not attribute.is_raw():
        if not isinstance(value, dict):
            return [_("%(path)s: not an object") % {"path": path}]
        declared = attribute.get_attributes()
        problems = [
            _("%(path)s: no such attribute") % {"path": f"{path}.{key}"}
            for key in value
            if key not in declared
        ]
        for name, inner in declared.items():
            if value.get(name) is None:
                if not inner.null and inner.default is None:
                    problems.append(_("%(path)s: required") % {"path": f"{path}.{name}"})
                continue
            problems += shape_errors(inner, value[name], f"{path}.{name}")
        return problems
    if isinstance(attribute, ListAttribute):
        if not isinstance(value, list):
            return [_("%(path)s: not a list") % {"path": path}]
        if attribute.element_type is None:
            return []
        element = attribute.element_type()
        return [
            problem
            for at, inner in enumerate(value)
            for problem in shape_errors(element, inner, f"{path}[{at}]")
        ]
    kinds = {
        NumberAttribute: ((int, float), _("not a number")),
        UnicodeAttribute: ((str,), _("not a text")),
        BooleanAttribute: ((bool,), _("not true or false")),
    }
    for kind, (types, problem) in kinds.items():
        if isinstance(attribute, kind):
            # JSON's true is a bool, and a bool is an int to Python: not a number here.
            bad_number = kind is NumberAttribute and isinstance(value, bool)
            return [f"{path}: {problem}"] if bad_number or not isinstance(value, types) else []
    try:
        attribute.serialize(value)
    except (TypeError, ValueError, AttributeError):
        return [_("%(path)s: not a valid value") % {"path": path}]
    return []


def default_label(name: str) -> str:
    """Return a form field's label from its attribute's name alone."""
    return capfirst(name.replace("_", " "))


def formfield_for(
    name: str,
    attribute: Attribute,
    *,
    choices: tuple[str, ...] | None = None,
    three_state: bool = False,
    **kwargs: Any,
) -> forms.Field:
    """Return the form field that edits one attribute, chosen by its type; kwargs override.

    With `choices` (the model's `field_choices`) it is a select, as Django's admin gives a
    field with choices.
    """
    required = (
        not attribute.null
        and attribute.default is None
        and attribute.default_for_new is None
        and not isinstance(attribute, BooleanAttribute | UnicodeSetAttribute | NumberSetAttribute)
    )
    common = {"required": required, "label": default_label(name), **kwargs}
    if choices:
        return ChoiceField(choices=choices, **common)
    if isinstance(attribute, UTCDateTimeAttribute):
        return DateTimeField(**common)
    if isinstance(attribute, BooleanAttribute):
        if attribute.null and three_state:  # unknown, yes or no: an absent value stays absent
            return forms.NullBooleanField(**{**common, "required": False})
        return forms.BooleanField(**{**common, "required": False})
    if isinstance(attribute, NumberAttribute):
        return NumberField(**common)
    if isinstance(attribute, UnicodeSetAttribute):
        return SetField(**common)
    if isinstance(attribute, NumberSetAttribute):
        return SetField(numbers=True, **common)
    if isinstance(attribute, ListAttribute):
        return JSONValueField(kind=list, attribute=attribute, **common)
    if isinstance(attribute, MapAttribute | JSONAttribute):
        return JSONValueField(kind=dict, attribute=attribute, **common)
    return forms.CharField(**{"strip": False, **common})


def binary_within(value: Any) -> bool:
    """Return whether a map or list holds binary somewhere: JSON text cannot carry it back."""
    if isinstance(value, MapAttribute):
        value = value.as_dict()
    if isinstance(value, bytes):
        return True
    if isinstance(value, dict):
        return any(binary_within(v) for v in value.values())
    if isinstance(value, list | tuple | set | frozenset):
        return any(binary_within(v) for v in value)
    return False


def unformable(item: Model) -> list[str]:
    """Return the item's attributes whose values its form could not write back exactly."""
    return [
        name
        for name, attribute in item.get_attributes().items()
        if isinstance(attribute, MapAttribute | ListAttribute)
        and binary_within(getattr(item, name, None))
    ]


def initial_for(item: Model, names: list[str]) -> dict[str, Any]:
    """Return a form's initial data for a stored item: its values, version and shown values."""
    attributes = item.get_attributes()
    initial = {name: getattr(item, name, None) for name in names if name in attributes}
    initial[VERSION_FIELD] = version_of(item)
    raw = raw_of(item)
    shown = {
        name: shown_json(raw.get(attributes[name].attr_name))
        for name in names
        if name in attributes
    }
    initial[SHOWN_FIELD] = json.dumps(shown, sort_keys=True)
    return initial


def shown_json(raw: dict[str, Any] | None) -> dict[str, Any] | None:
    """Return a stored value as a page carries what it showed: DynamoDB JSON (None: absent)."""
    return encode(raw) if raw is not None else None


def value_shown(attribute: Attribute, raw: Any) -> Any:
    """Return the value a page showed for a stored raw value (None: absent, or its default)."""
    if raw is not None and "NULL" not in raw:
        try:
            return attribute.deserialize(attribute.get_value(raw))
        except (TypeError, ValueError, KeyError, AttributeError):
            return None
    default = attribute.default
    return default() if callable(default) else default


def unchanged(attribute: Attribute, before: Any, new: Any) -> bool:
    """Return whether a posted value is the one shown: as its widget shows it, or both empty.

    A date and time shows whole seconds; an unticked box is no change to an absent boolean.
    """
    if at_shown_precision(before) == new or plain(before) == plain(new):
        return True
    if isinstance(attribute, BooleanAttribute) and before is None and new is False:
        return not attribute.null
    empty = (None, "", [], {})
    return plain(before) in empty and plain(new) in empty and not isinstance(before, bool)


def at_shown_precision(value: Any) -> Any:
    """Return a value as its widget shows it: a date and time to the whole second."""
    if isinstance(value, datetime):
        return value.replace(microsecond=0)
    return value


class ItemForm(forms.Form):
    """A form over a DynamoDB item's editable attributes, carrying the version it showed."""

    model: type[DynamoModel]

    def __init__(self, *args: Any, item: Model | None = None, **kwargs: Any) -> None:
        self.item = item
        self.shown: dict[str, Any] = {}
        # Attributes the model does not declare that a new item is added with, as stored
        # (an import of a whole item); a change never writes one.
        self.undeclared: dict[str, Any] = {}
        if item is not None and "initial" not in kwargs:
            kwargs["initial"] = initial_for(item, list(self.base_fields))
        super().__init__(*args, **kwargs)

    def has_changed(self) -> bool:
        """Return whether an attribute's value was changed (the hidden version and values aside)."""
        return any(name not in (VERSION_FIELD, SHOWN_FIELD) for name in self.changed_data)

    def shown_values(self) -> dict[str, Any] | None:
        """Return the stored values the page showed ({name: raw or None}); None if not posted."""
        text = self.cleaned_data.get(SHOWN_FIELD) or ""
        if not text:
            return None
        try:
            shown = json.loads(text)
        except ValueError:
            return None
        if not isinstance(shown, dict):
            return None
        try:
            return {k: decode(v) if v is not None else None for k, v in shown.items()}
        except BadValue:
            return None

    def shown_version(self) -> int | None:
        """Return the version the page showed (the one a save must find stored)."""
        value = self.cleaned_data.get(VERSION_FIELD)
        return int(value) if value not in (None, "") else None

    def apply_version(self, item: DynamoModel) -> None:
        """Make the item's save conditional on the version the page showed."""
        shown = self.shown_version()
        name = meta(type(item)).version_name
        if name and (shown is not None or getattr(item, name) is not None):
            setattr(item, name, shown)

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
        # Without a version, the values shown are what a save checks are still stored.
        unversioned = meta(self.model).version_name is None and self.initial.get(SHOWN_FIELD)
        if unversioned and not cleaned.get(SHOWN_FIELD):
            raise ValidationError(
                _(
                    "The page did not say which values it showed, so nothing was saved. "
                    "Reload it and make the change again."
                )
            )
        return cleaned

    def apply_to(self, item: Model) -> dict[str, list[Any]]:
        """Set the values the person changed on an item; return {attribute: [old, new]}.

        A value is changed when it differs from what the page showed (else from the item as
        stored now): an attribute nobody touched keeps its stored value, even if someone else
        changed it since the page was shown.
        """
        changes = {}
        shown = self.shown_values()
        attributes = item.get_attributes()
        for name in self.base_fields:
            if name in (VERSION_FIELD, SHOWN_FIELD):
                continue
            new = self.cleaned_data.get(name)
            if isinstance(self.fields[name], forms.CharField) and new == "":
                new = None
            old = getattr(item, name, None)
            before = value_shown(attributes[name], shown.get(name)) if shown is not None else old
            if unchanged(attributes[name], before, new):
                continue
            changes[name] = [plain(old), plain(new)]
            setattr(item, name, new)
        self.changes = changes  # what construct_change_message records by default
        self.shown = shown or {}
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
                label = capfirst(field_label(self.model, name))
                self.add_error(None, [f"{label}: {m}" for m in messages])


def item_form_class(
    model: type[DynamoModel],
    names: list[str],
    formfield_callback: Callable[[str, Attribute], forms.Field] | None = None,
) -> type[ItemForm]:
    """Return a form class editing these attributes of the model, with the version it showed."""
    attributes = model.get_attributes()
    make = formfield_callback or formfield_for
    fields: dict[str, Any] = {name: make(name, attributes[name]) for name in names}
    for name, field in fields.items():
        if field.label == default_label(name):  # not a label formfield_overrides gave
            field.label = capfirst(field_label(model, name))
    fields[VERSION_FIELD] = forms.IntegerField(required=False, widget=forms.HiddenInput)
    fields[SHOWN_FIELD] = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    fields["model"] = model
    return type(f"{model.__name__}Form", (ItemForm,), fields)
