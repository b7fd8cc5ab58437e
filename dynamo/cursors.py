"""Signed, URL-safe cursors: where a listing's next page starts, bound to that listing."""

from __future__ import annotations

from typing import Any

from django.core import signing

SALT = "dynamo.cursor"


class InvalidCursor(ValueError):
    """The cursor was tampered with, truncated or made for another listing."""


def sign(payload: dict[str, Any], scope: str) -> str:
    """Return a signed, compressed token carrying a JSON payload for one listing (scope)."""
    return signing.dumps({"s": scope, "p": payload}, salt=SALT, compress=True)


def unsign(token: str, scope: str) -> dict[str, Any]:
    """Return the payload of a token made by sign() for this scope, or raise InvalidCursor."""
    try:
        data = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise InvalidCursor("This page link is invalid or has been tampered with.") from exc
    if not isinstance(data, dict) or data.get("s") != scope or not isinstance(data.get("p"), dict):
        raise InvalidCursor("This page link belongs to another listing.")
    return data["p"]


def is_key(value: Any) -> bool:
    """Return whether a value has the shape of a DynamoDB key: {name: {type: value}}."""
    return isinstance(value, dict) and all(
        isinstance(name, str) and isinstance(typed, dict) and len(typed) == 1
        for name, typed in value.items()
    )


def encode(key: dict[str, Any] | None, scope: str = "") -> str:
    """Return a signed token for a LastEvaluatedKey ('' when there is no next page)."""
    return sign({"k": key}, scope) if key else ""


def decode(token: str | None, scope: str = "") -> dict[str, Any] | None:
    """Return the LastEvaluatedKey in a token (None for no token), or raise InvalidCursor."""
    if not token:
        return None
    key = unsign(token, scope).get("k")
    if not key or not is_key(key):
        raise InvalidCursor("This page link is malformed.")
    return key
