"""The writes of a Tables item page: an item as typed DynamoDB JSON, saved as what changed.

A save is one UpdateItem that SETs the attributes whose values changed or were added and
REMOVEs the ones taken out, on the condition that each of them still holds what the page
showed; a registered model's version goes up with it. A new item is a Put on a free key, a
delete is conditional on the values shown. Each goes through `writes.write_together` with its
History entry, so a table page writes as every other door does.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from pynamodb.models import Model

from dynamo.codec import BadValue, decode_item, encode, encode_item, same_value

from .expressions import Expression
from .meta import meta
from .models import ADDITION, CHANGE, DELETION, AdminLog, object_key_for
from .tables import Table, logged_item
from .writes import Write, write_together


class BadItem(ValueError):
    """The `item` text is not an item of this table; the message says where and why."""


def item_text(raw: dict[str, Any]) -> str:
    """Return an item (the client's form) as the textarea shows it: typed JSON, names sorted."""
    return json.dumps(encode_item(raw), indent=2, sort_keys=True, ensure_ascii=False)


def parse_item(text: str, table: Table) -> dict[str, Any]:
    """Return the item a textarea holds, as the client takes it; raise BadItem saying where."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadItem(
            _("Line %(line)s, column %(column)s: %(problem)s.")
            % {"line": exc.lineno, "column": exc.colno, "problem": exc.msg}
        ) from None
    except RecursionError:
        raise BadItem(_("The item is nested too deep.")) from None
    try:
        item = decode_item(document)
    except BadValue as exc:
        raise BadItem(f"{where(text, document, str(exc))}{exc}") from None
    for name in table.key_names:
        if name not in item:
            raise BadItem(_("The item lacks its key attribute %(name)s.") % {"name": name})
        kind = next(iter(item[name]))
        wanted = table.attribute_types[name]
        if kind != wanted:
            raise BadItem(
                _("Key attribute %(name)s is of type %(wanted)s, not %(kind)s.")
                % {"name": name, "wanted": wanted, "kind": kind}
            )
    return item


def where(text: str, document: Any, problem: str) -> str:
    """Return "Line L, column C: " of the attribute a codec message names, or ''."""
    if not isinstance(document, dict):
        return ""
    named = next((name for name in document if problem.startswith(f"attribute {name!r}")), None)
    offset = text.find(json.dumps(named, ensure_ascii=False)) if named is not None else -1
    if offset < 0:
        return ""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return _("Line %(line)s, column %(column)s: ") % {"line": line, "column": column}


def key_of(table: Table, item: dict[str, Any]) -> dict[str, Any]:
    return {name: item[name] for name in table.key_names}


@dataclass
class Change:
    """What a save changes: attributes set (new or changed) and removed, against the shown."""

    shown: dict[str, Any]
    saved: dict[str, Any]

    @property
    def set(self) -> dict[str, Any]:
        return {
            name: value
            for name, value in self.saved.items()
            if name not in self.shown or not same_value(self.shown[name], value)
        }

    @property
    def removed(self) -> list[str]:
        return [name for name in self.shown if name not in self.saved]

    @property
    def names(self) -> list[str]:
        return [*self.set, *self.removed]

    def logged(self) -> dict[str, list[Any]]:
        """Return the History's changes: each attribute's [old, new] as typed JSON."""
        return {
            name: [
                encode(self.shown[name]) if name in self.shown else None,
                encode(self.saved[name]) if name in self.saved else None,
            ]
            for name in self.names
        }


def held(table: Table, shown: dict[str, Any], names: list[str], slots: Expression) -> str:
    """Return the condition that the item is there and each attribute holds what was shown."""
    parts = [f"attribute_exists({slots.name(table.hash_key)})"]
    for name in names:
        if name in shown:
            parts.append(f"{slots.name(name)} = {slots.value(shown[name])}")
        else:
            parts.append(f"attribute_not_exists({slots.name(name)})")
    return " AND ".join(parts)


def version_name(item: Model) -> str | None:
    """Return the stored name of the registered model's VersionAttribute, if it has one."""
    name = meta(type(item)).version_name
    return item.get_attributes()[name].attr_name if name else None


def update_request(table: Table, change: Change, version: str | None) -> dict[str, Any]:
    """Return the UpdateItem of what changed, on the values shown (a version goes up by one)."""
    slots = Expression()
    assignments = [f"{slots.name(n)} = {slots.value(v)}" for n, v in change.set.items()]
    expression = f"SET {', '.join(assignments)}" if assignments else ""
    if change.removed:
        expression += f" REMOVE {', '.join(slots.name(n) for n in change.removed)}"
    checked = change.names
    if version and version not in checked:
        expression += f" ADD {slots.name(version)} {slots.value({'N': '1'})}"
        checked = [*checked, version]
    request = {
        "TableName": table.name,
        "Key": key_of(table, change.shown),
        "UpdateExpression": expression.strip(),
        "ConditionExpression": held(table, change.shown, checked, slots),
    }
    return slots.into(request)


def delete_request(table: Table, shown: dict[str, Any]) -> dict[str, Any]:
    """Return the DeleteItem of an item, on its still holding every value shown."""
    slots = Expression()
    names = [n for n in shown if n not in table.key_names]
    request = {
        "TableName": table.name,
        "Key": key_of(table, shown),
        "ConditionExpression": held(table, shown, names, slots),
    }
    return slots.into(request)


def put_request(table: Table, item: dict[str, Any]) -> dict[str, Any]:
    """Return the PutItem of a new item, on its key being free."""
    slots = Expression()
    condition = f"attribute_not_exists({slots.name(table.hash_key)})"
    return slots.into({"TableName": table.name, "Item": item, "ConditionExpression": condition})


def save(table: Table, shown: dict[str, Any], saved: dict[str, Any], actor: str) -> Change:
    """Write what changed between the shown and the saved item; raise writes.Cancelled if
    the stored item no longer holds what was shown."""
    change = Change(shown, saved)
    if not change.names:
        return change
    item = logged_item(table, shown)
    request = update_request(table, change, version_name(item))
    write_together(
        [Write(None, None, item, CHANGE, change.logged(), request={"Update": request})], actor
    )
    return change


def add(table: Table, item: dict[str, Any], actor: str) -> None:
    """Write a new item; raise writes.Cancelled if its key is taken."""
    logged = logged_item(table, item)
    changes = Change({}, item).logged()
    request = {"Put": put_request(table, item)}
    write_together([Write(None, None, logged, ADDITION, changes, request=request)], actor)


def delete(table: Table, shown: list[dict[str, Any]], actor: str) -> None:
    """Delete these items, all or none, each on its still holding what was shown.

    At most writes.MAX_TRANSACTION_ITEMS items; their History keeps no values.
    """
    writes = [
        Write(
            None,
            None,
            logged_item(table, raw),
            DELETION,
            request={"Delete": delete_request(table, raw)},
        )
        for raw in shown
    ]
    write_together(writes, actor)
    for write in writes:
        AdminLog.forget(object_key_for(write.item))
