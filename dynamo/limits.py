"""DynamoDB's own limits on keys, numbers and item size, checked before a request is sent.

The engine refuses a request breaking one of these with a ValidationException, which would
reach the user as a server error; checking here turns it into a field error or a 400 page.
Sizes are counted as DynamoDB counts them (developer guide, "Item sizes and formats"): UTF-8
bytes for strings and attribute names, about one byte per two significant digits for numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError

if TYPE_CHECKING:
    from .models import DynamoModel

MAX_PARTITION_KEY_BYTES = 2048
MAX_SORT_KEY_BYTES = 1024
MAX_ITEM_BYTES = 400 * 1024
NUMBER_PRECISION = 38
# Smallest and largest magnitude as powers of ten: 1E-130 to 9.99…(38 digits)E+125.
MIN_EXPONENT = -130
MAX_EXPONENT = 125
# A Python str from JSON ("\ud800") may hold a half of a UTF-16 pair alone: it has no UTF-8
# form, so hashing, logging or sending it fails. A paired half never survives decoding.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LONE_SURROGATE_MESSAGE = (
    "Enter valid text: this holds a lone surrogate (U+D800 to U+DFFF), which is not a character."
)


def has_lone_surrogate(value: Any) -> bool:
    """Return whether a string, or any string inside lists and dicts, holds a lone surrogate."""
    if isinstance(value, str):
        return LONE_SURROGATE.search(value) is not None
    if isinstance(value, list | tuple | set | frozenset):
        return any(has_lone_surrogate(member) for member in value)
    if isinstance(value, dict):
        return any(has_lone_surrogate(k) or has_lone_surrogate(v) for k, v in value.items())
    return False


def number_problem(value: Any) -> str | None:
    """Return why DynamoDB would refuse this number, or None when it can store it."""
    if isinstance(value, bool):
        return None
    try:
        number = value if isinstance(value, Decimal) else Decimal(str(value))
    except (InvalidOperation, ValueError):
        return "Enter a number."
    if not number.is_finite():
        return "Enter a finite number."
    if number.is_zero():
        return None
    digits = "".join(map(str, number.as_tuple().digits)).strip("0")
    if len(digits) > NUMBER_PRECISION:
        return f"DynamoDB keeps at most {NUMBER_PRECISION} significant digits of a number."
    if number.adjusted() > MAX_EXPONENT:
        return "Too large a number: DynamoDB stores magnitudes below 1E+126."
    if number.adjusted() < MIN_EXPONENT:
        return "Too small a number: DynamoDB stores magnitudes of 1E-130 or more (or zero)."
    return None


def check_number(value: Any) -> None:
    """Raise a ValidationError when DynamoDB could not store this number."""
    problem = number_problem(value)
    if problem:
        raise ValidationError(problem, code="invalid")


def key_problem(value: Any, *, sort: bool = False) -> str | None:
    """Return why DynamoDB would refuse this as a partition (or sort) key value, or None."""
    if isinstance(value, int | float | Decimal) and not isinstance(value, bool):
        return number_problem(value)
    if isinstance(value, str):
        size = len(value.encode("utf-8", "surrogatepass"))
    elif isinstance(value, bytes):
        size = len(value)
    else:
        return None  # dates and other typed keys serialize to short strings
    limit = MAX_SORT_KEY_BYTES if sort else MAX_PARTITION_KEY_BYTES
    if size == 0:
        return "A key value must not be empty."
    if size > limit:
        kind = "sort" if sort else "partition"
        return f"Too long: a DynamoDB {kind} key holds at most {limit} bytes (this is {size})."
    return None


def check_key(value: Any, *, sort: bool = False) -> None:
    """Raise a ValidationError when the value cannot be a partition (or sort) key."""
    problem = key_problem(value, sort=sort)
    if problem:
        raise ValidationError(problem, code="invalid")


def keys_fit(values: Iterable[Any]) -> bool:
    """Return whether these table key values (hash first) could name a stored item."""
    return all(
        key_problem(value, sort=position > 0) is None
        for position, value in enumerate(values)
        if value is not None
    )


def value_size(value: dict[str, Any]) -> int:
    """Return the bytes DynamoDB counts for one attribute value in its wire format."""
    (kind, inner), *_ = value.items()
    if kind == "S":
        return len(inner.encode("utf-8", "surrogatepass"))
    if kind == "N":
        return _number_size(inner)
    if kind == "B":
        return len(inner)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "SS":
        return sum(len(v.encode("utf-8", "surrogatepass")) for v in inner)
    if kind == "NS":
        return sum(_number_size(v) for v in inner)
    if kind == "BS":
        return sum(len(v) for v in inner)
    if kind == "L":
        return 3 + sum(1 + value_size(v) for v in inner)
    if kind == "M":
        return 3 + sum(1 + _name_size(n) + value_size(v) for n, v in inner.items())
    return 0


def item_size(serialized: dict[str, dict[str, Any]]) -> int:
    """Return the bytes DynamoDB counts for an item: attribute names plus values."""
    return sum(_name_size(name) + value_size(value) for name, value in serialized.items())


def _name_size(name: str) -> int:
    return len(name.encode("utf-8", "surrogatepass"))


def _number_size(text: str) -> int:
    try:
        digits = "".join(map(str, Decimal(text).as_tuple().digits)).strip("0")
    except (InvalidOperation, ValueError, TypeError):
        return len(str(text))
    return (len(digits) + 1) // 2 + 1


def _numbers_in(value: dict[str, Any]) -> Iterable[str]:
    (kind, inner), *_ = value.items()
    if kind == "N":
        yield inner
    elif kind == "NS":
        yield from inner
    elif kind == "L":
        for member in inner:
            yield from _numbers_in(member)
    elif kind == "M":
        for member in inner.values():
            yield from _numbers_in(member)


def key_roles(model: type[DynamoModel]) -> dict[str, bool]:
    """Return every attribute a key of the table or an index uses, True where it sorts."""
    roles: dict[str, bool] = {}
    schema = model._get_schema()
    entries = [*schema["key_schema"]]
    for index in schema["global_secondary_indexes"] + schema["local_secondary_indexes"]:
        entries += index["key_schema"]
    for entry in entries:
        name, sort = entry["AttributeName"], entry["KeyType"] == "RANGE"
        roles[name] = roles.get(name, False) or sort
    return roles


def attribute_errors(item: DynamoModel) -> dict[str, list[str]]:
    """Return one message per attribute whose value DynamoDB would refuse (keys, numbers, text)."""
    errors: dict[str, list[str]] = {}
    roles = key_roles(type(item))
    for name, attribute in item.get_attributes().items():
        value = getattr(item, name, None)
        if value is None:
            continue
        if has_lone_surrogate(value):
            errors[name] = [LONE_SURROGATE_MESSAGE]
            continue
        try:
            serialized = attribute.serialize(value)
        except (TypeError, ValueError, OverflowError, AttributeError):
            errors[name] = ["Enter a valid value."]
            continue
        if serialized is None:
            continue
        wire = {attribute.attr_type: serialized}
        for number in _numbers_in(wire):
            problem = number_problem(number)
            if problem:
                errors[name] = [problem]
                break
        if name not in errors and attribute.attr_name in roles:
            problem = key_problem(value, sort=roles[attribute.attr_name])
            if problem:
                errors[name] = [problem]
    return errors


def size_errors(item: DynamoModel) -> dict[str, list[str]]:
    """Return a message on the largest attribute when the item exceeds 400 KB, else nothing."""
    serialized = item.serialize()
    size = item_size(serialized)
    if size <= MAX_ITEM_BYTES:
        return {}
    names = {a.attr_name: name for name, a in item.get_attributes().items()}
    largest = max(serialized, key=lambda n: _name_size(n) + value_size(serialized[n]))
    message = (
        f"Too long: the item would take {size / 1024:.0f} KB and DynamoDB stores at most "
        f"{MAX_ITEM_BYTES // 1024} KB an item; shorten this value."
    )
    return {names.get(largest, largest): [message]}
