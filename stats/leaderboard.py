"""Leaderboards over sharded indexes: the merged top-K, a user's rank and neighbours.

Order: score descending, then username descending (the order a descending Query on
`score, username` yields), the same for every shard count. Equal scores share a rank
(1, 2, 2, 4). A page reads each shard once from its own position; the cursor carries every
shard's position and the rank of the page's last row, so no page counts anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dynamo import cursors

from .models import METRICS, UserStats, leaderboard_partitions

PAGE_SIZE = 50
MAX_PAGE_SIZE = 100
NEIGHBOURS = 5


class BadLeaderboardRequest(ValueError):
    """An unknown metric, a bad page size or a cursor made for another listing."""


@dataclass(frozen=True)
class Row:
    """One line of a leaderboard."""

    rank: int
    stats: UserStats

    @property
    def username(self) -> str:
        return self.stats.username


@dataclass
class Board:
    """One page of a leaderboard, with the cursor of the next page ("" on the last)."""

    metric: str
    rows: list[Row]
    next_cursor: str = ""
    user_rank: int | None = None
    username: str | None = None
    shards: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


def check_metric(metric: str) -> str:
    """Return the metric, or raise BadLeaderboardRequest naming the choices."""
    if metric not in METRICS:
        raise BadLeaderboardRequest(
            f"Unknown metric {metric!r}: choose one of {', '.join(METRICS)}."
        )
    return metric


def order_key(stats: UserStats, metric: str) -> tuple[Any, str]:
    """Return the leaderboard sort key of a row (larger comes first)."""
    return (getattr(stats, metric), stats.username)


def rank_sorted(items: Iterable[UserStats], metric: str) -> list[Row]:
    """Rank items by brute force (for tests and the naive benchmark)."""
    ordered = sorted(items, key=lambda s: order_key(s, metric), reverse=True)
    rows: list[Row] = []
    for position, stats in enumerate(ordered, start=1):
        same = rows and getattr(rows[-1].stats, metric) == getattr(stats, metric)
        rows.append(Row(rows[-1].rank if same else position, stats))
    return rows


# --- the top-K page -----------------------------------------------------------------------
def _scope(metric: str, shards: int) -> str:
    return f"leaderboard:{metric}:{shards}"


def _position_key(stats: UserStats, metric: str) -> dict[str, Any]:
    index = UserStats.leaderboard_index(metric)
    raw = stats.serialize()
    return {name: raw[name] for name in index.cursor_key_names()}


def _decode(cursor: str | None, metric: str, partitions: list[str]) -> dict[str, Any]:
    state: dict[str, Any] = {"position": 0, "rank": 0, "score": None, "shards": {}}
    if not cursor:
        return state
    try:
        saved = cursors.unsign(cursor, _scope(metric, len(partitions)))
        state["position"], state["rank"] = int(saved["n"]), int(saved["r"])
        state["score"] = None if saved["s"] is None else float(saved["s"])
        shards = saved["p"]
    except cursors.InvalidCursor as exc:
        raise BadLeaderboardRequest(str(exc)) from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise BadLeaderboardRequest("This page link is malformed.") from exc
    if not isinstance(shards, dict):
        raise BadLeaderboardRequest("This page link is malformed.")
    for partition, key in shards.items():
        if partition not in partitions or not (key is None or cursors.is_key(key)):
            raise BadLeaderboardRequest("This page link belongs to another shard layout.")
        state["shards"][partition] = key
    return state


def _encode(metric: str, partitions: list[str], state: dict[str, Any]) -> str:
    saved = {
        "n": state["position"],
        "r": state["rank"],
        "s": state["score"],
        "p": state["shards"],
    }
    return cursors.sign(saved, _scope(metric, len(partitions)))


def top(
    metric: str,
    *,
    cursor: str | None = None,
    limit: int = PAGE_SIZE,
    shards: int | None = None,
) -> Board:
    """Return one page of the leaderboard: one Query per shard, merged, ranked."""
    check_metric(metric)
    if not 1 <= limit <= MAX_PAGE_SIZE:
        raise BadLeaderboardRequest(f"A page holds 1 to {MAX_PAGE_SIZE} rows.")
    partitions = leaderboard_partitions(shards)
    index = UserStats.leaderboard_index(metric)
    state = _decode(cursor, metric, partitions)
    candidates: list[tuple[UserStats, str]] = []
    exhausted: set[str] = set()
    for partition in partitions:
        if partition in state["shards"] and state["shards"][partition] is None:
            continue  # this shard was read to its end on an earlier page
        results = index.query(
            partition,
            scan_index_forward=False,
            limit=limit,
            page_size=limit,
            last_evaluated_key=state["shards"].get(partition),
        )
        items = list(results)
        candidates.extend((item, partition) for item in items)
        if len(items) < limit:
            exhausted.add(partition)
    candidates.sort(key=lambda pair: order_key(pair[0], metric), reverse=True)
    taken, left = candidates[:limit], candidates[limit:]

    rows: list[Row] = []
    position, rank, score = state["position"], state["rank"], state["score"]
    for stats, partition in taken:
        position += 1
        value = getattr(stats, metric)
        if score is None or value != score:
            rank, score = position, value
        rows.append(Row(rank, stats))
        state["shards"][partition] = _position_key(stats, metric)
    # A shard is done once it came back short and every row it gave was shown.
    for partition in exhausted - {partition for _, partition in left}:
        state["shards"][partition] = None
    more = any(state["shards"].get(p, "unread") is not None for p in partitions)
    state.update(position=position, rank=rank, score=score)
    next_cursor = _encode(metric, partitions, state) if rows and more else ""
    return Board(metric, rows, next_cursor, shards=len(partitions))


# --- a user's rank and neighbours -----------------------------------------------------------
def count_higher(metric: str, score: Any, *, shards: int | None = None) -> int:
    """Count users whose score beats `score`: one COUNT Query per shard (cost grows with it)."""
    index = UserStats.leaderboard_index(metric)
    attribute = getattr(UserStats, metric)
    return sum(
        index.count(partition, range_key_condition=attribute > score)
        for partition in leaderboard_partitions(shards)
    )


def rank_of(metric: str, stats: UserStats, *, shards: int | None = None) -> int:
    """Return a user's rank: one plus the users with a higher score."""
    check_metric(metric)
    return 1 + count_higher(metric, getattr(stats, metric), shards=shards)


def _walk(
    metric: str, stats: UserStats, partitions: list[str], *, upward: bool, window: int
) -> list[UserStats]:
    """Return up to `window` rows next to a user, nearest first, over every shard."""
    index = UserStats.leaderboard_index(metric)
    attribute = getattr(UserStats, metric)
    score, username = getattr(stats, metric), stats.username
    if upward:
        conditions = [
            (attribute == score) & (UserStats.username > username),
            attribute > score,
        ]
    else:
        conditions = [
            (attribute == score) & (UserStats.username < username),
            attribute < score,
        ]
    found: list[UserStats] = []
    for partition in partitions:
        got: list[UserStats] = []
        for condition in conditions:
            got += index.query(
                partition,
                range_key_condition=condition,
                scan_index_forward=upward,
                limit=window - len(got),
                page_size=window - len(got),
            )
            if len(got) >= window:
                break
        found += got
    found.sort(key=lambda s: order_key(s, metric), reverse=not upward)
    return found[:window]


def around(
    metric: str, username: str, *, window: int = NEIGHBOURS, shards: int | None = None
) -> Board | None:
    """Return a user's rank and the rows just above and below it, or None without stats."""
    check_metric(metric)
    stats = UserStats.get_or_none(username)
    if stats is None or stats.leaderboard_partition is None:
        return None
    partitions = leaderboard_partitions(shards)
    index = UserStats.leaderboard_index(metric)
    attribute = getattr(UserStats, metric)
    score = getattr(stats, metric)
    higher = count_higher(metric, score, shards=shards)
    ties_above = sum(
        index.count(p, range_key_condition=(attribute == score) & (UserStats.username > username))
        for p in partitions
    )
    position = higher + ties_above + 1
    above = list(reversed(_walk(metric, stats, partitions, upward=True, window=window)))
    below = _walk(metric, stats, partitions, upward=False, window=window)

    ordered = [*above, stats, *below]
    first = position - len(above)
    rows: list[Row] = []
    for offset, item in enumerate(ordered):
        value = getattr(item, metric)
        if value == score:
            rank = higher + 1
        elif rows and getattr(rows[-1].stats, metric) == value:
            rank = rows[-1].rank
        elif offset == 0 and first > 1:
            # The top row's group may start above the window: count it.
            rank = 1 + count_higher(metric, value, shards=shards)
        else:
            rank = first + offset
        rows.append(Row(rank, item))
    return Board(metric, rows, user_rank=higher + 1, username=username, shards=len(partitions))
