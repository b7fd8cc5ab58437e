"""JSON Lines backups of the tables: one item per line, in DynamoDB's own JSON.

A line is `{"item": {...}, "table": "<table suffix>"}`, the item as DynamoDB's wire format
writes it (`{"S": ...}`, `{"N": "1.50"}`, sets, maps, lists; binary as base64), so numbers,
sets, maps and bytes come back exactly as they were.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .codec import BadValue, decode_item, encode_item, loads
from .models import DynamoModel, client_for
from .tables import expected_table


class BadLine(ValueError):
    """A backup line that cannot be loaded."""


@dataclass
class Record:
    """One item to restore, decoded for the client (binary values as bytes)."""

    model: type[DynamoModel]
    item: dict[str, Any]

    def key(self) -> tuple[Any, ...]:
        return (self.model, *(_hashable(self.item[n]) for n in self.model.key_attribute_names()))


def scan_items(
    model, condition=None, page_size: int = 1000, consistent_read: bool = True
) -> Iterator[dict[str, Any]]:
    """Yield every stored item of a model's table as the client returns it (paginated Scan).

    Consistent by default, so a backup taken right after a write holds it (an export reads
    eventually consistent, at half the cost); `condition` (a PynamoDB condition) filters on
    the server. Any PynamoDB model's table: a backup's or an export's.
    """
    client = client_for(model)
    request: dict[str, Any] = {
        "TableName": model.Meta.table_name,
        "ConsistentRead": consistent_read,
        "Limit": page_size,
    }
    if condition is not None:
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        request["FilterExpression"] = condition.serialize(names, values)
        request["ExpressionAttributeNames"] = {v: k for k, v in names.items()}
        if values:
            request["ExpressionAttributeValues"] = values
    while True:
        page = client.scan(**request)
        yield from page.get("Items", [])
        if not page.get("LastEvaluatedKey"):
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def table_label(model) -> str:
    """Return how a line names its table: the suffix of a DynamoModel's, else the table's name."""
    return getattr(model.Meta, "table_suffix", None) or model.Meta.table_name


def to_line(model, item: dict[str, Any]) -> str:
    """Return the backup line of one stored item (keys sorted, so equal items give equal lines)."""
    record = {"table": table_label(model), "item": encode_item(item)}
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def parse_line(line: str, models: dict[str, type[DynamoModel]]) -> Record:
    """Check one backup line and decode it; raise BadLine saying what is wrong."""
    try:
        record = loads(line)
    except BadValue as exc:
        raise BadLine(str(exc)) from None
    if not isinstance(record, dict) or set(record) != {"table", "item"}:
        raise BadLine('expected an object with exactly the keys "table" and "item"')
    suffix, item = record["table"], record["item"]
    model = models.get(suffix) if isinstance(suffix, str) else None
    if model is None:
        raise BadLine(f"unknown table {suffix!r}; expected one of {', '.join(sorted(models))}")
    if not isinstance(item, dict) or not item:
        raise BadLine('"item" must be a non-empty object of attributes')
    try:
        decoded = decode_item(item)
    except BadValue as exc:
        raise BadLine(str(exc)) from None
    key_types = _key_types(model)
    for name in model.key_attribute_names():
        if name not in decoded:
            raise BadLine(f"the item lacks its key attribute {name!r}")
    for name, wanted in key_types.items():
        if name not in decoded:
            continue
        (kind, inner), *_ = decoded[name].items()
        if kind != wanted:
            raise BadLine(f"key attribute {name!r} must be of type {wanted}, not {kind}")
        if inner in ("", b""):
            raise BadLine(f"key attribute {name!r} must not be empty")
    return Record(model, decoded)


def _key_types(model: type[DynamoModel]) -> dict[str, str]:
    """Return the type of every attribute a key of the table or of an index uses."""
    definitions = expected_table(model)["AttributeDefinitions"]
    return {d["AttributeName"]: d["AttributeType"] for d in definitions}


def _hashable(value: dict[str, Any]) -> Any:
    (kind, inner), *_ = value.items()
    return kind, inner
