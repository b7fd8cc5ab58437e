"""JSON Lines backups of the tables: one item per line, in DynamoDB's own JSON.

A line is `{"item": {...}, "table": "<table suffix>"}`, the item as DynamoDB's wire format
writes it (`{"S": ...}`, `{"N": "1.50"}`, sets, maps, lists; binary as base64), so numbers,
sets, maps and bytes come back exactly as they were.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .models import DynamoModel, client_for
from .tables import expected_table

SCALAR_TYPES = {"S", "N", "B", "BOOL", "NULL"}
SET_TYPES = {"SS": "S", "NS": "N", "BS": "B"}
ALL_TYPES = SCALAR_TYPES | set(SET_TYPES) | {"M", "L"}
NUMBER_RE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class BadLine(ValueError):
    """A backup line that cannot be loaded."""


@dataclass
class Record:
    """One item to restore, decoded for the client (binary values as bytes)."""

    model: type[DynamoModel]
    item: dict[str, Any]

    def key(self) -> tuple[Any, ...]:
        return (self.model, *(_hashable(self.item[n]) for n in self.model.key_attribute_names()))


def scan_items(model: type[DynamoModel], page_size: int = 1000) -> Iterator[dict[str, Any]]:
    """Yield every stored item of a model's table as the client returns it (paginated Scan)."""
    client = client_for(model)
    request: dict[str, Any] = {
        "TableName": model.Meta.table_name,
        "ConsistentRead": True,
        "Limit": page_size,
    }
    while True:
        page = client.scan(**request)
        yield from page.get("Items", [])
        if not page.get("LastEvaluatedKey"):
            return
        request["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def to_line(model: type[DynamoModel], item: dict[str, Any]) -> str:
    """Return the backup line of one stored item (keys sorted, so equal items give equal lines)."""
    record = {"table": model.Meta.table_suffix, "item": _encode_item(item)}
    return json.dumps(record, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _encode_item(item: dict[str, Any]) -> dict[str, Any]:
    return {name: _encode(value) for name, value in item.items()}


def _encode(value: dict[str, Any]) -> dict[str, Any]:
    (kind, inner), *_ = value.items()
    if kind == "B":
        return {"B": base64.b64encode(inner).decode("ascii")}
    if kind == "BS":
        return {"BS": [base64.b64encode(v).decode("ascii") for v in inner]}
    if kind == "M":
        return {"M": _encode_item(inner)}
    if kind == "L":
        return {"L": [_encode(v) for v in inner]}
    return {kind: inner}


def parse_line(line: str, models: dict[str, type[DynamoModel]]) -> Record:
    """Check one backup line and decode it; raise BadLine saying what is wrong."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise BadLine(f"not valid JSON ({exc.msg})") from exc
    if not isinstance(record, dict) or set(record) != {"table", "item"}:
        raise BadLine('expected an object with exactly the keys "table" and "item"')
    suffix, item = record["table"], record["item"]
    model = models.get(suffix) if isinstance(suffix, str) else None
    if model is None:
        raise BadLine(f"unknown table {suffix!r}; expected one of {', '.join(sorted(models))}")
    if not isinstance(item, dict) or not item:
        raise BadLine('"item" must be a non-empty object of attributes')
    decoded = {}
    for name, value in item.items():
        try:
            decoded[name] = _decode(value)
        except BadLine as exc:
            raise BadLine(f"attribute {name!r}: {exc}") from None
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


def _decode(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict) or len(value) != 1:
        raise BadLine('an attribute value is an object with one type key, like {"S": "text"}')
    (kind, inner), *_ = value.items()
    if kind not in ALL_TYPES:
        raise BadLine(f"unknown type {kind!r}")
    if kind == "S" and isinstance(inner, str):
        return value
    if kind == "N" and _is_number(inner):
        return value
    if kind == "B" and isinstance(inner, str):
        return {"B": _from_base64(inner)}
    if kind == "BOOL" and isinstance(inner, bool):
        return value
    if kind == "NULL" and inner is True:
        return value
    if kind in SET_TYPES and isinstance(inner, list) and inner:
        members = [_decode({SET_TYPES[kind]: member}) for member in inner]
        values = [next(iter(m.values())) for m in members]
        if len(set(values)) != len(values):
            raise BadLine(f"a {kind} set holds duplicates")
        return {kind: values}
    if kind == "M" and isinstance(inner, dict):
        return {"M": {name: _decode(member) for name, member in inner.items()}}
    if kind == "L" and isinstance(inner, list):
        return {"L": [_decode(member) for member in inner]}
    raise BadLine(f"bad {kind} value {json.dumps(inner)[:60]}")


def _is_number(text: Any) -> bool:
    return isinstance(text, str) and NUMBER_RE.fullmatch(text) is not None


def _from_base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BadLine("binary values must be base64") from exc


def _hashable(value: dict[str, Any]) -> Any:
    (kind, inner), *_ = value.items()
    return kind, inner
