"""Items as stored: read whatever the table holds, whatever its model declares.

The admin serves tables it did not make. An item may carry attributes its model does not
declare, or a value of another type than its model says (a number stored as a string set): it
is still listed, opened and deleted, the attribute that does not fit shown as stored and
never rewritten (what a save writes is in writes.py).
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from pynamodb.attributes import AttributeContainer
from pynamodb.constants import ITEM
from pynamodb.models import Model

from dynamo import limits
from dynamo.codec import encode
from dynamo.models import DynamoModel

from .claims import MODELS, claims


def load(model: type[Model], raw: dict[str, Any], condition: Any = MODELS) -> Model | None:
    """Return the item a raw DynamoDB item is for the model; None if another model's.

    Another model's item is one of another discriminator value, or one the model's
    `item_condition` does not hold for (dynamo_admin.claims); `condition` replaces that one
    (an inline's own; None: any item).

    An attribute whose stored value the model cannot read is left unset and kept in the
    item's misfits ({name: stored value}); the raw item is kept as `_stored`.
    """
    try:
        stored_class = model._get_discriminator_class(raw)
    except (TypeError, ValueError):
        return None  # a discriminator no class of the model's declares
    if stored_class is not None and not issubclass(stored_class, model):
        return None  # another class's item on a shared table
    if not claims(model, raw, condition):
        return None  # another type's item on a shared table
    try:
        item = model.from_raw_data(raw)
        misfits: dict[str, Any] = {}
    except (TypeError, ValueError, KeyError):
        cls = stored_class or model
        misfits = {
            name: raw[a.attr_name]
            for name, a in cls.get_attributes().items()
            if a.attr_name in raw and not fits(a, raw[a.attr_name])
        }
        unread = stored_names(cls, misfits)
        fitting = {key: value for key, value in raw.items() if key not in unread}
        item = cls(_user_instantiated=False)
        AttributeContainer._container_deserialize(item, fitting)
    item._stored = raw
    item._misfits = misfits
    return item


def fits(attribute, value: dict[str, Any]) -> bool:
    """Return whether the attribute can read a stored value."""
    try:
        attribute.deserialize(attribute.get_value(value))
    except (TypeError, ValueError, KeyError, AttributeError):
        return False
    return True


def stored_names(model: type[Model], names) -> set[str]:
    attributes = model.get_attributes()
    return {attributes[name].attr_name for name in names}


def misfits_of(item: Model) -> dict[str, Any]:
    """Return the attributes whose stored values the model cannot read: {name: stored value}."""
    return getattr(item, "_misfits", None) or {}


def misfit_text(attribute, raw: dict[str, Any]) -> str:
    """Return how a value the model cannot read shows: as stored, with what was expected."""
    stored = json.dumps(encode(raw), ensure_ascii=False, sort_keys=True)
    return _("%(stored)s (stored as %(kind)s; the model expects %(expected)s)") % {
        "stored": stored,
        "kind": next(iter(raw), "?"),
        "expected": attribute.attr_type,
    }


def raw_of(item: Model) -> dict[str, Any]:
    """Return the item as it was last read (its undeclared attributes too); {} if never read."""
    return getattr(item, "_stored", None) or {}


def tolerant(results: Any, model: type[Model], condition: Any = MODELS) -> Any:
    """Make a Query's or Scan's results read every item as load() does, skipping none.

    Another model's items on a shared table come out as None: callers skip them.
    """
    results._map_fn = partial(load, model, condition=condition)
    return results


def get_item(model: type[Model], key: tuple[Any, ...], consistent_read: bool = False):
    """Return the item at this key as load() reads it, or None."""
    raw = get_raw(model, key, consistent_read)
    return load(model, raw) if raw else None


def get_raw(
    model: type[Model], key: tuple[Any, ...], consistent_read: bool = False
) -> dict[str, Any] | None:
    """Return the stored item at this key as DynamoDB holds it, whichever type's, or None."""
    if not limits.keys_fit(key):  # DynamoDB cannot hold the key: no item has it
        return None
    hash_key, range_key = model._serialize_keys(*key)
    data = model._get_connection().get_item(
        hash_key, range_key=range_key, consistent_read=consistent_read
    )
    return (data or {}).get(ITEM) or None


def full_clean(item: Model) -> None:
    """Check an item before a write: a DynamoModel's own rules, any model's DynamoDB limits."""
    if isinstance(item, DynamoModel):
        item.full_clean()
        return
    errors = limits.attribute_errors(item) or limits.size_errors(item)
    if errors:
        raise ValidationError(errors)


def current_raw(item: Model) -> dict[str, Any]:
    """Return the item as it would be stored now: its declared values as the item holds them,
    undeclared attributes and values the model cannot read as they were read."""
    raw = dict(raw_of(item))
    written = item.serialize(null_check=False)
    for name, attribute in item.get_attributes().items():
        if name in misfits_of(item):
            continue
        if attribute.attr_name in written:
            raw[attribute.attr_name] = written[attribute.attr_name]
        else:
            raw.pop(attribute.attr_name, None)
    return raw


def remember_written(item: Model) -> None:
    """Take a committed write as the item's stored state (a DynamoModel follows its own hooks)."""
    item._stored = current_raw(item)
