"""DynamoDB JSON as AWS writes it: `{"S": "text"}`, `{"N": "1.50"}`, sets, maps, lists, binary
in base64. One codec for every file the package writes or reads (backups, exports, imports)
and for the values a page posts back, so each reads the others' files.

The client's own form differs only in binary, which it holds as bytes.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from typing import Any

SCALAR_TYPES = {"S", "N", "B", "BOOL", "NULL"}
SET_TYPES = {"SS": "S", "NS": "N", "BS": "B"}
ALL_TYPES = SCALAR_TYPES | set(SET_TYPES) | {"M", "L"}
NUMBER_RE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
# Deeper than DynamoDB's own limit of 32 levels is no item: refuse it before recursing further.
MAX_DEPTH = 32


class BadValue(ValueError):
    """A value that is not DynamoDB JSON; the message says what is wrong."""


def encode_item(item: dict[str, Any]) -> dict[str, Any]:
    """Return a stored item (as the client returns it) in DynamoDB JSON."""
    return {name: encode(value) for name, value in item.items()}


def encode(value: dict[str, Any]) -> dict[str, Any]:
    """Return one attribute value (as the client holds it) in DynamoDB JSON."""
    (kind, inner), *_ = value.items()
    if kind == "B":
        return {"B": base64.b64encode(inner).decode("ascii")}
    if kind == "BS":
        return {"BS": [base64.b64encode(v).decode("ascii") for v in inner]}
    if kind == "M":
        return {"M": encode_item(inner)}
    if kind == "L":
        return {"L": [encode(v) for v in inner]}
    return {kind: inner}


def decode_item(item: Any) -> dict[str, Any]:
    """Return an item in DynamoDB JSON as the client takes it; raise BadValue naming the problem."""
    if not isinstance(item, dict) or not item:
        raise BadValue('an item is a non-empty object of attributes, like {"Name": {"S": "…"}}')
    decoded = {}
    for name, value in item.items():
        try:
            decoded[name] = decode(value)
        except BadValue as exc:
            raise BadValue(f"attribute {name!r}: {exc}") from None
    return decoded


def decode(value: Any, depth: int = 0) -> dict[str, Any]:
    """Return one attribute value in DynamoDB JSON as the client takes it."""
    if depth > MAX_DEPTH:
        raise BadValue(f"nested more than {MAX_DEPTH} levels deep")
    if not isinstance(value, dict) or len(value) != 1:
        raise BadValue('an attribute value is an object with one type key, like {"S": "text"}')
    (kind, inner), *_ = value.items()
    if kind not in ALL_TYPES:
        raise BadValue(f"unknown type {kind!r}")
    if kind == "S" and isinstance(inner, str):
        return value
    if kind == "N" and isinstance(inner, str) and NUMBER_RE.fullmatch(inner):
        return value
    if kind == "B" and isinstance(inner, str):
        return {"B": _from_base64(inner)}
    if kind == "BOOL" and isinstance(inner, bool):
        return value
    if kind == "NULL" and inner is True:
        return value
    if kind in SET_TYPES and isinstance(inner, list) and inner:
        members = [decode({SET_TYPES[kind]: member}, depth + 1) for member in inner]
        values = [next(iter(m.values())) for m in members]
        if len(set(values)) != len(values):
            raise BadValue(f"a {kind} set holds duplicates")
        return {kind: values}
    if kind == "M" and isinstance(inner, dict):
        return {"M": {name: decode(member, depth + 1) for name, member in inner.items()}}
    if kind == "L" and isinstance(inner, list):
        return {"L": [decode(member, depth + 1) for member in inner]}
    raise BadValue(f"bad {kind} value {json.dumps(inner)[:60]}")


def same_value(a: dict[str, Any] | None, b: dict[str, Any] | None) -> bool:
    """Return whether two attribute values (the client's form) are equal: sets in any order."""
    return _canonical(a) == _canonical(b)


def _canonical(value: Any) -> Any:
    if not isinstance(value, dict) or len(value) != 1:
        return value
    (kind, inner), *_ = value.items()
    if kind in SET_TYPES:
        return {kind: sorted(inner)}
    if kind == "M":
        return {"M": {name: _canonical(member) for name, member in inner.items()}}
    if kind == "L":
        return {"L": [_canonical(member) for member in inner]}
    return value


def loads(line: str) -> Any:
    """Return one line of JSON; raise BadValue for text that is not JSON or nests too deep."""
    try:
        return json.loads(line)
    except RecursionError:
        raise BadValue("not valid JSON (nested too deep)") from None
    except json.JSONDecodeError as exc:
        raise BadValue(f"not valid JSON ({exc.msg})") from None


def _from_base64(text: str) -> bytes:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise BadValue("binary values must be base64") from exc
