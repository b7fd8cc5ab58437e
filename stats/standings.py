"""A leaderboard page as plain data, read once per LEADERBOARD_CACHE_SECONDS for every caller.

The public page, its JSON variant and the API's `/api/leaderboard/{metric}` all serve
`standings()`: the same rows, the same names and the same cache entry for the same request,
so DynamoDB reads for the boards stay bounded per minute whatever the traffic.
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache

from users.models import User

from .leaderboard import PAGE_SIZE, Board, Row, around, top
from .models import METRICS

# One lock per cache key and process: when an entry expires under load, one thread reads the
# board again while the others wait for it, so reads stay bounded per key, TTL and process.
_refill_locks: dict[str, threading.Lock] = {}
_refill_locks_guard = threading.Lock()


def standings(
    metric: str, *, cursor: str | None = None, user: str | None = None, limit: int | None = None
) -> dict[str, Any] | None:
    """Return a page of the board by `metric`, or `user`'s rank and neighbours; None if unlisted.

    The data: metric, results (rank, username, name and every metric), next (the cursor of
    the next page or None), user and user_rank. From Django's cache while it is fresh; the
    key holds everything the data depends on and nothing else. Raise BadLeaderboardRequest.
    """
    limit = limit or PAGE_SIZE
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return _read(metric, cursor, user, limit)
    key = cache_key(metric, cursor=cursor, user=user, limit=limit)
    hit = cache.get(key)
    if hit is None:
        with _refill_locks_guard:
            lock = _refill_locks.setdefault(key, threading.Lock())
        try:
            with lock:
                hit = cache.get(key)
                if hit is None:
                    # Wrapped, so an unlisted learner (None) is cached too.
                    hit = {"data": _read(metric, cursor, user, limit)}
                    cache.set(key, hit, seconds)
        finally:
            with _refill_locks_guard:
                _refill_locks.pop(key, None)
    return hit["data"]


def cache_key(
    metric: str, *, cursor: str | None = None, user: str | None = None, limit: int | None = None
) -> str:
    """Return the cache key of one page: a hash of what its rows depend on."""
    parts = (metric, cursor or "", user or "", limit or PAGE_SIZE, settings.LEADERBOARD_SHARDS)
    return "leaderboard:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _read(metric: str, cursor: str | None, user: str | None, limit: int) -> dict[str, Any] | None:
    board = around(metric, user) if user else top(metric, cursor=cursor, limit=limit)
    if board is None:
        return None
    return as_data(board, names_of(board.rows))


def as_data(board: Board, names: dict[str, str]) -> dict[str, Any]:
    return {
        "metric": board.metric,
        "results": [
            {"rank": row.rank, "username": row.username, "name": names.get(row.username, "")}
            | {metric: getattr(row.stats, metric) for metric in METRICS}
            for row in board.rows
        ],
        "next": board.next_cursor or None,
        "user": board.username,
        "user_rank": board.user_rank,
        # Whether the ranks are exact, and the user's as shown ("≈1,234"): see stats/tiers.py.
        "user_rank_exact": board.rank.exact if board.rank else None,
        "user_rank_label": board.rank.label if board.rank else None,
        "ranks_exact": board.exact,
    }


def names_of(rows: list[Row]) -> dict[str, str]:
    """Return the learners' names: copied into their stats, else one BatchGetItem."""
    names = {row.username: row.stats.name for row in rows if row.stats.name}
    missing = list(dict.fromkeys(row.username for row in rows if not row.stats.name))
    if missing:
        names |= {learner.username: learner.name for learner in User.batch_get(missing)}
    return names
