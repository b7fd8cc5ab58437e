"""Cursor pagination: a signed token carries where a page starts and where earlier pages did.

DynamoDB pages forward only, through LastEvaluatedKey. A page's token holds its start key and
the start keys of the pages before it, so "previous" is one more forward read from a known
key: no offsets, no counts, one call per page.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from dynamo import cursors
from dynamo.cursors import InvalidCursor

# Links keep at most this many earlier pages, in a token of at most this many characters
# (servers refuse long request lines: gunicorn's limit is 4,094): the oldest pages go first,
# and a "previous" past the ones kept restarts at the first page.
MAX_TRAIL = 100
MAX_TOKEN_CHARS = 2000

Key = dict[str, Any]

__all__ = ["InvalidCursor", "Position", "decode", "encode"]


@dataclass
class Position:
    """Where a page starts (None: the first page) and where the pages before it started."""

    start: Key | None = None
    trail: list[Key | None] = field(default_factory=list)

    def next(self, start: Key) -> Position:
        return Position(start, [*self.trail, self.start][-MAX_TRAIL:])

    def previous(self) -> Position | None:
        if not self.trail and self.start is None:
            return None
        if not self.trail:
            return Position()
        return Position(self.trail[-1], self.trail[:-1])


def encode(position: Position, scope: str) -> str:
    """Return the signed token for a position, bound to one listing."""
    if position.start is None:
        return ""
    trail = [key or {} for key in position.trail]
    while True:
        token = cursors.sign({"k": position.start, "t": trail}, scope)
        if len(token) <= MAX_TOKEN_CHARS or not trail:
            return token
        trail = trail[max(1, len(trail) // 4) :]


def decode(token: str | None, scope: str) -> Position:
    """Return the position in a token, or raise InvalidCursor."""
    if not token:
        return Position()
    payload = cursors.unsign(token, scope)
    start, trail = payload.get("k"), payload.get("t")
    if not (
        start
        and cursors.is_key(start)
        and isinstance(trail, list)
        and all(map(cursors.is_key, trail))
    ):
        raise InvalidCursor(_("This page link is malformed."))
    return Position(start, [key or None for key in trail])
