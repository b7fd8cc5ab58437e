"""Which items of a shared table are a model's: its discriminator, or its admin's condition.

Several models may keep their items in one table (a single-table design). A model with a
PynamoDB `DiscriminatorAttribute` says which items are its own by the values its classes
registered; any model may also say it on its admin with `item_condition`, a PynamoDB condition
on key attributes written as in `Model.query` (`Order.SK.startswith("ORDER#")`). Every read of
the admin keeps only the items these hold for (stored.load asks `claims`), and a new item's key
must satisfy them (`key_problem`). The condition is evaluated here on the stored item, with
DynamoDB's own rules for the operators a key condition uses.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.operand import Path, Value
from pynamodb.models import Model

from .meta import meta

# The operators a condition on key attributes is written with; anything else is refused at
# start-up (dynamo_admin.E012) rather than guessed.
COMPARISONS = {"=", "<>", "<", "<=", ">", ">="}
SUPPORTED = COMPARISONS | {
    "BETWEEN",
    "IN",
    "begins_with",
    "attribute_exists",
    "attribute_not_exists",
    "AND",
    "OR",
    "NOT",
}


def discriminator_condition(model: type[Model]) -> Condition | None:
    """Return the condition on the discriminator that holds for the model's classes, or None.

    None where the model has no discriminator or no class of it registered a value (a base
    class read as itself): then the discriminator says nothing about which items are its own.
    """
    attribute = model._get_discriminator_attribute()
    if attribute is None:
        return None
    classes = attribute.get_registered_subclasses(model)
    return attribute.is_in(*classes) if classes else None


# Where a caller passes no condition of its own: the model's (item_condition(model)).
MODELS = object()


def item_condition(model: type[Model], declared: Any = MODELS) -> Condition | None:
    """Return the condition every item of the model holds: its admin's and its discriminator's.

    `declared` replaces the admin's `item_condition` (an inline's own).
    """
    declared = meta(model).item_condition if declared is MODELS else declared
    discriminated = discriminator_condition(model)
    if declared is None:
        return discriminated
    return declared if discriminated is None else declared & discriminated


def claims(model: type[Model], raw: dict[str, Any], condition: Any = MODELS) -> bool:
    """Return whether a stored item is the model's (its condition holds for it).

    `condition` replaces the model's own (an inline's `item_condition`; None: every item).
    """
    condition = item_condition(model) if condition is MODELS else condition
    return condition is None or holds(condition, raw)


def holds(condition: Condition, raw: dict[str, Any]) -> bool:
    """Return whether a condition holds for a stored item, as DynamoDB would decide it."""
    operator, values = condition.operator, condition.values
    if operator == "AND":
        return all(holds(part, raw) for part in values)
    if operator == "OR":
        return any(holds(part, raw) for part in values)
    if operator == "NOT":
        return not holds(values[0], raw)
    if operator not in SUPPORTED:
        raise ValueError(f"item_condition cannot use {operator!r}")
    stored = stored_value(values[0], raw)
    if operator == "attribute_exists":
        return stored is not None
    if operator == "attribute_not_exists":
        return stored is None
    operands = [operand_value(value) for value in values[1:]]
    if stored is None or any(kind(o) != kind(stored) for o in operands):
        return False  # DynamoDB compares values of one type only
    have = comparable(stored)
    wanted = [comparable(o) for o in operands]
    if operator == "begins_with":
        return isinstance(have, str | bytes) and have.startswith(wanted[0])
    if operator == "BETWEEN":
        return wanted[0] <= have <= wanted[1]
    if operator == "IN":
        return have in wanted
    return compare(operator, have, wanted[0])


def compare(operator: str, have: Any, wanted: Any) -> bool:
    if operator == "=":
        return have == wanted
    if operator == "<>":
        return have != wanted
    if operator == "<":
        return have < wanted
    if operator == "<=":
        return have <= wanted
    if operator == ">":
        return have > wanted
    return have >= wanted


def stored_value(path: Any, raw: dict[str, Any]) -> dict[str, Any] | None:
    """Return the stored value ({type: value}) at a condition's top-level attribute, or None."""
    if not isinstance(path, Path) or len(path.path) != 1:
        raise ValueError("item_condition must name top-level attributes, not document paths")
    value = raw.get(path.path[0])
    return None if value is None or "NULL" in value else value


def operand_value(operand: Any) -> dict[str, Any]:
    if not isinstance(operand, Value):
        raise ValueError("item_condition must compare attributes with values")
    return operand.value


def kind(value: dict[str, Any]) -> str:
    return next(iter(value))


def comparable(value: dict[str, Any]) -> Any:
    """Return a stored scalar as Python orders it the way DynamoDB does (numbers as numbers)."""
    (type_name, content), *_rest = value.items()
    if type_name == "N":
        return Decimal(content)
    return content  # strings by code point: the order of their UTF-8 bytes


def attribute_names(condition: Condition) -> set[str]:
    """Return the stored names of the attributes a condition reads."""
    if condition.operator in ("AND", "OR", "NOT"):
        return set().union(*(attribute_names(part) for part in condition.values))
    path = condition.values[0]
    return {path.path[0]} if isinstance(path, Path) else set()


def condition_attributes(model: type[Model], condition: Condition | None) -> list[str]:
    """Return the model's attributes a condition reads (fixed once an item is stored)."""
    stored = attribute_names(condition) if condition is not None else set()
    return [name for name, a in model.get_attributes().items() if a.attr_name in stored]


def conjuncts(condition: Condition | None) -> list[Condition]:
    """Return the parts of a condition joined by AND (the condition itself when it is not)."""
    if condition is None:
        return []
    if condition.operator == "AND":
        return [part for value in condition.values for part in conjuncts(value)]
    return [condition]


def fixed_value(condition: Condition | None, stored_name: str) -> dict[str, Any] | None:
    """Return the value ({type: value}) a condition fixes an attribute to, or None."""
    for part in conjuncts(condition):
        path = part.values[0] if part.values else None
        if fixes(part) and isinstance(path, Path) and path.path == [stored_name]:
            return operand_value(part.values[1])
    return None


def fixes(part: Condition) -> bool:
    """Return whether a condition fixes its attribute to one value (`=`, or IN of one)."""
    return part.operator == "=" or (part.operator == "IN" and len(part.values) == 2)


# What a range key condition of a Query may be: DynamoDB's KeyConditionExpression operators.
KEY_CONDITION_OPERATORS = {"=", "<", "<=", ">", ">=", "BETWEEN", "begins_with"}


def split_for_query(
    condition: Condition | None, hash_name: str, range_name: str | None
) -> tuple[Condition | None, Condition | None]:
    """Split a condition into a Query's range key condition and filter (the rest).

    DynamoDB filters no key attribute of what is queried: a part on the hash key (fixed by
    the Query itself, or a prefix the partition then holds or not) or a second part on the
    range key is left to each item as read (stored.load checks the whole condition).
    """
    range_condition, rest = None, []
    for part in conjuncts(condition):
        path = part.values[0] if part.values else None
        on = path.path if isinstance(path, Path) else None
        usable = part.operator in KEY_CONDITION_OPERATORS
        if range_condition is None and range_name is not None and on == [range_name] and usable:
            range_condition = part
            continue
        if on in ([hash_name], [range_name]):
            continue
        rest.append(part)
    filter_condition = None
    for part in rest:
        filter_condition = part if filter_condition is None else filter_condition & part
    return range_condition, filter_condition


def key_problem(model: type[Model], item: Model, condition: Any = MODELS) -> str | None:
    """Return why a new item is not the model's (its key breaks the condition), or None.

    The message says what the condition asks for (`SK starting with "ORDER#"`), so a person
    knows which prefix or value the key needs.
    """
    condition = meta(model).item_condition if condition is MODELS else condition
    if condition is None:
        return None
    raw = item.serialize(null_check=False)
    if holds(condition, raw):
        return None
    names = {"name": meta(model).verbose_name, "condition": describe(condition)}
    return _("This is not a %(name)s: its key must have %(condition)s.") % names


def describe(condition: Condition) -> str:
    """Return a condition in words: `SK starting with "ORDER#"` and `PK equal to "TASK"`."""
    operator, values = condition.operator, condition.values
    if operator in ("AND", "OR"):
        joiner = _(" and ") if operator == "AND" else _(" or ")
        return joiner.join(describe(part) for part in values)
    if operator == "NOT":
        return _("not (%(condition)s)") % {"condition": describe(values[0])}
    name = values[0].path[0] if isinstance(values[0], Path) else str(values[0])
    shown = [shown_operand(value) for value in values[1:]]
    words = {
        "=": _("%(name)s equal to %(a)s"),
        "<>": _("%(name)s other than %(a)s"),
        "<": _("%(name)s below %(a)s"),
        "<=": _("%(name)s at most %(a)s"),
        ">": _("%(name)s above %(a)s"),
        ">=": _("%(name)s at least %(a)s"),
        "BETWEEN": _("%(name)s between %(a)s and %(b)s"),
        "begins_with": _("%(name)s starting with %(a)s"),
        "attribute_exists": _("%(name)s set"),
        "attribute_not_exists": _("no %(name)s"),
    }
    if operator == "IN":
        return _("%(name)s one of %(values)s") % {"name": name, "values": ", ".join(shown)}
    padded = [*shown, "", ""]
    return words[operator] % {"name": name, "a": padded[0], "b": padded[1]}


def shown_operand(value: Any) -> str:
    content = comparable(operand_value(value))
    return f'"{content}"' if isinstance(content, str) else str(content)
