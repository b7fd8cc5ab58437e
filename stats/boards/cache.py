"""A leaderboard page as plain data, read once per LEADERBOARD_CACHE_SECONDS for every caller.

The public page, its JSON variant and the API's `/api/leaderboard/{metric}` all serve
`standings()`: the same rows, the same names and the same cache entry for the same board
variant, so DynamoDB reads for the boards stay bounded per minute whatever the traffic.

An expired entry is read again by one request at a time, across processes and hosts when the
cache is shared: the refill lock is a `cache.add` that expires with the engine's deadline.
Meanwhile every other request serves the expired (stale) copy, kept STALE_SECONDS past its
freshness, or, with no copy at all, waits for the refill at most one engine deadline and then
answers 503. So no request queues behind another's refill, whatever the concurrency.
"""

from __future__ import annotations

import hashlib
import logging
import math
import time
import uuid
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.core.cache import cache, caches
from django.utils.safestring import SafeString, mark_safe

from dynamo.deadline import seconds_left
from dynamo.exceptions import EngineUnavailable, describe, outage_cause
from dynamo.models import call_deadline
from stats.models import METRICS
from users.models import User

from .ranking import PAGE_SIZE, Board, Row, around, top

logger = logging.getLogger(__name__)

# How long an expired entry is kept to serve while it is read again or the engine is down.
STALE_SECONDS = 300
# How often a request waiting for another's refill looks for its result.
POLL_SECONDS = 0.05


def standings(
    metric: str, *, cursor: str | None = None, user: str | None = None, limit: int | None = None
) -> dict[str, Any] | None:
    """Return a page of the board by `metric`, or `user`'s rank and neighbours; None if unlisted.

    The data: metric, results (rank, username, name and every metric), next (the cursor of
    the next page or None), user and user_rank. Raise BadLeaderboardRequest.
    """
    return board_entry(metric, cursor=cursor, user=user, limit=limit)["data"]


def board_entry(
    metric: str, *, cursor: str | None = None, user: str | None = None, limit: int | None = None
) -> dict[str, Any]:
    """Return the board's cache entry: `data`, `fresh_until` and `read` (the read's id).

    From Django's cache while it is fresh; the key holds everything the variant depends on
    and nothing else. Raise BadLeaderboardRequest, or EngineUnavailable when another
    request's refill does not land within the engine's deadline and there is no stale copy.
    """
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return {"data": _read(metric, cursor, user, limit or PAGE_SIZE), "read": None}
    key = cache_key(metric, cursor=cursor, user=user, limit=limit)
    # An entry never changes once written: a fresh one this process holds needs no round trip.
    entry = caches["boards"].get(key)
    if entry is None or entry["fresh_until"] <= time.time():
        entry = cache.get(key)
        if entry is not None:
            caches["boards"].set(key, entry, settings.LEADERBOARD_CACHE_SECONDS)
    if entry is not None and entry["fresh_until"] > time.time():
        return entry
    lock, token = refill_lock(key), uuid.uuid4().hex
    # Nobody holding the lock after a failed add means a cache that cannot be reached (or a
    # holder that just finished): read the engine rather than wait for a refill none makes.
    taken = cache.add(lock, token, timeout=math.ceil(call_deadline()) + 1)
    if taken or cache.get(lock) is None:
        try:
            return _refill(key, entry, metric, cursor, user, limit or PAGE_SIZE)
        finally:
            if cache.get(lock) == token:
                cache.delete(lock)
    if entry is not None:
        return entry  # another request is reading it again: the stale copy meanwhile
    return _wait_for_refill(key, lock)


def cache_key(
    metric: str, *, cursor: str | None = None, user: str | None = None, limit: int | None = None
) -> str:
    """Return the cache key of one board variant: a hash of what its rows depend on.

    A learner's rank and neighbours depend on the learner alone: a cursor or a page size
    given with `user` is ignored, so it cannot split the cache.
    """
    if user:
        parts: tuple[Any, ...] = (metric, "user", user)
    else:
        parts = (metric, "top", cursor or "", limit or PAGE_SIZE)
    parts += (settings.LEADERBOARD_SHARDS,)
    # "stale" names the entry's shape (data, fresh_until, read): hosts of an older release
    # sharing the cache during a rolling deploy keep entries of their own.
    return "leaderboard:stale:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def refill_lock(key: str) -> str:
    """Return the cache key of the lock a request holds while it reads the entry `key` again."""
    return f"{key}:refill"


def fragment(entry: dict[str, Any], name: str, render: Callable[[], str]) -> SafeString:
    """Return HTML made from an entry's data, rendered once per entry and process, not per request.

    It is kept in the process's own cache ("boards": Django's local-memory backend) under the
    id of the read that made the entry, so it always matches the data it was rendered from and
    costs no round trip to the shared cache; the least recently used go first when it is full.
    """
    if entry["read"] is None:  # the cache is off
        return mark_safe(render())
    key = f"leaderboard:html:{entry['read']}:{name}"
    html = caches["boards"].get(key)
    if html is None:
        html = mark_safe(render())
        caches["boards"].set(key, html, settings.LEADERBOARD_CACHE_SECONDS + STALE_SECONDS)
    return html


def _refill(
    key: str, stale: dict[str, Any] | None, metric: str, cursor, user, limit: int
) -> dict[str, Any]:
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    try:
        data = _read(metric, cursor, user, limit)
    except Exception as exc:
        if stale is None or outage_cause(exc) is None:
            raise
        logger.warning("Serving a stale leaderboard: DynamoDB unavailable: %s", describe(exc))
        return stale
    # Wrapped, so an unlisted learner (None) is cached too.
    entry = {"data": data, "fresh_until": time.time() + seconds, "read": uuid.uuid4().hex}
    cache.set(key, entry, seconds + STALE_SECONDS)
    caches["boards"].set(key, entry, seconds)
    return entry


def _wait_for_refill(key: str, lock: str) -> dict[str, Any]:
    """Wait for another request's refill of `key` for one engine deadline at most."""
    left = seconds_left()  # and no longer than this request has left
    deadline = time.monotonic() + (call_deadline() if left is None else min(call_deadline(), left))
    while time.monotonic() < deadline:
        time.sleep(POLL_SECONDS)
        entry = cache.get(key)
        if entry is not None:
            return entry
        if cache.get(lock) is None:
            entry = cache.get(key)  # it may have landed between the two reads
            if entry is not None:
                return entry
            break  # the refill failed: its engine is not answering this one either
    raise EngineUnavailable("the leaderboard was not read again within the engine's deadline")


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
        # Whether the ranks are exact, and the user's as shown ("≈1,234"): see boards/tiers.py.
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
