"""Signed, URL-safe cursors carrying a DynamoDB LastEvaluatedKey between pages."""

from __future__ import annotations

from typing import Any

from django.core import signing

SALT = "dynamo.cursor"


class InvalidCursor(ValueError):
    """The cursor was tampered with, truncated or made for another listing."""


def encode(key: dict[str, Any] | None, scope: str = "") -> str:
    """Return a signed token for a LastEvaluatedKey, bound to a listing scope."""
    if not key:
        return ""
    return signing.dumps({"k": key, "s": scope}, salt=SALT, compress=True)


def decode(token: str | None, scope: str = "") -> dict[str, Any] | None:
    """Return the LastEvaluatedKey in a token, or raise InvalidCursor."""
    if not token:
        return None
    try:
        payload = signing.loads(token, salt=SALT)
    except (signing.BadSignature, ValueError, TypeError) as exc:
        raise InvalidCursor("This page link is invalid or has been tampered with.") from exc
    if not isinstance(payload, dict) or payload.get("s") != scope:
        raise InvalidCursor("This page link belongs to another listing.")
    key = payload.get("k")
    if not isinstance(key, dict) or not all(
        isinstance(name, str) and isinstance(value, dict) and len(value) == 1
        for name, value in key.items()
    ):
        raise InvalidCursor("This page link is malformed.")
    return key
