"""Keys in admin URLs and query strings: an object id quoted as Django's admin quotes a pk, a
value typed as its key attribute, and the indexes a model's keys can be read by."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.admin.utils import quote, unquote
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from pynamodb.attributes import Attribute, NumberAttribute, UTCDateTimeAttribute
from pynamodb.models import Model

from dynamo import limits
from dynamo.indexes import GlobalIndex
from dynamo.models import DynamoModel

from .meta import label_of, meta, pk_of

# quote() escapes commas inside a value, so a bare comma can only be the separator.
SEPARATOR = ","


def object_id(item: Model) -> str:
    """Return the URL segment naming an item: its key values, quoted and comma-joined.

    Each value is written as its attribute stores it, so a float or a date and time key
    comes back from the URL exactly.
    """
    attributes = item.get_attributes()
    return SEPARATOR.join(
        quote(key_text(attributes[name], value))
        for name, value in zip(meta(type(item)).key_names, pk_of(item), strict=True)
    )


def key_text(attribute: Attribute, value: Any) -> str:
    """Return a key value as text: as the attribute stores it where that is text."""
    if value is None:
        return ""
    stored = attribute.serialize(value)
    return stored if isinstance(stored, str) else str(value)


def key_values(model: type[DynamoModel], object_id: str) -> tuple[Any, ...] | None:
    """Return the key values an object id names, typed as the key attributes; None if malformed."""
    parts = object_id.split(SEPARATOR)
    names = meta(model).key_names
    if len(parts) != len(names):
        return None
    values = []
    for name, part in zip(names, parts, strict=True):
        value: Any = unquote(part)
        if value == "":
            return None
        attribute = model.get_attributes()[name]
        if isinstance(attribute, NumberAttribute):
            try:
                number = Decimal(value)
            except InvalidOperation:
                return None
            if not number.is_finite():
                return None
            value = int(number) if number == number.to_integral_value() else float(number)
        elif type(attribute).deserialize is not Attribute.deserialize:
            try:  # a date and time, or a custom attribute's own text
                value = attribute.deserialize(value)
            except (TypeError, ValueError, KeyError, AttributeError):
                return None
        values.append(value)
    return tuple(values)


def key_item(model: type[DynamoModel], values: tuple[Any, ...]) -> DynamoModel:
    """Return an unsaved item holding only key values (to name it in logs and URLs)."""
    return model(*values)


class QuotedObjectId:
    """An object id where Django's admin templates expect a pk: `admin_urlquote` keeps it whole.

    Django's `quote()` escapes strings only (an integer pk passes as it is), so an id already
    quoted, commas between key values included, reaches `{% url %}` unchanged.
    """

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text


class Original:
    """The page's item as Django's admin templates read `original`: its `pk` names it in URLs.

    Django's templates build links as `{% url ... original.pk|admin_urlquote %}`; an item's own
    `pk` is its tuple of key values, which that would not turn into its object id.
    """

    def __init__(self, item: DynamoModel) -> None:
        self.item = item
        self.pk = QuotedObjectId(object_id(item))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.item, name)

    def __str__(self) -> str:
        return label_of(self.item)


def indexes_of(model: type[DynamoModel]) -> dict[str, GlobalIndex]:
    """Return the model's global indexes by index name."""
    return {index.Meta.index_name: index for index in model._indexes.values()}


def parse_key_value(attribute: Attribute, text: str) -> Any:
    """Return a query-string value typed as the key attribute; raise ValueError if it is not."""
    if isinstance(attribute, NumberAttribute):
        try:
            number = Decimal(text)
        except InvalidOperation as exc:
            raise ValueError(_("%(value)r is not a number.") % {"value": text}) from exc
        problem = limits.number_problem(number)
        if problem:
            raise ValueError(problem)
        return int(number) if number == number.to_integral_value() else float(number)
    if isinstance(attribute, UTCDateTimeAttribute):
        value = parse_datetime(text)
        if not isinstance(value, datetime) or value.tzinfo is None:
            raise ValueError(_("%(value)r is not a date and time with its zone.") % {"value": text})
        return value
    problem = limits.key_problem(text, sort=attribute.is_range_key)
    if problem:
        raise ValueError(problem)
    return text


def hash_key_names(index: Any) -> list[str]:
    """Return an index's partition key attribute names, for a GlobalIndex or PynamoDB's own."""
    if isinstance(index, GlobalIndex):
        return index.hash_key_names()
    return [a.attr_name for a in index.Meta.attributes.values() if a.is_hash_key]


def range_key_names(index: Any) -> list[str]:
    """Return an index's sort key attribute names, for a GlobalIndex or PynamoDB's own."""
    if isinstance(index, GlobalIndex):
        return index.range_key_names()
    return [a.attr_name for a in index.Meta.attributes.values() if a.is_range_key]


def index_key_attribute(index: Any, stored_name: str) -> Attribute:
    """Return the index's own key attribute stored under this name (it types a Query's value)."""
    declared = getattr(index.Meta, "key_attributes", None) or index.Meta.attributes.values()
    return next(a for a in declared if a.attr_name == stored_name)


def python_name(model: type[Model], stored_name: str) -> str:
    """Return the Python name of the model's attribute stored under this name."""
    for name, attribute in model.get_attributes().items():
        if attribute.attr_name == stored_name:
            return name
    return stored_name


def stored_key_names(model: type[Model]) -> list[str]:
    """Return the stored names of the table's key attributes, hash key first."""
    attributes = model.get_attributes()
    return [attributes[name].attr_name for name in meta(model).key_names]


def searched(model: type[Model], search_fields, name: str, how: str) -> bool:
    """Return whether search_fields hold `how` (`=` or `^`) on this attribute.

    An entry names the attribute as Django's search_fields name a field, or as stored (the
    name the checks and `inspect_tables` use): both mean the same attribute.
    """
    stored = model.get_attributes()[name].attr_name
    return f"{how}{name}" in search_fields or f"{how}{stored}" in search_fields
