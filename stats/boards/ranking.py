"""Leaderboards over sharded indexes: the merged top-K, a user's rank and neighbours.

Order: score descending, then username descending (the order a descending Query on
`score, username` yields), the same for every shard count. Equal scores share a rank
(1, 2, 2, 4). A page reads each shard once from its own position; the cursor carries every
shard's position and the rank of the page's last row, so no page counts anything.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from dynamo import cursors
from stats.models import METRICS, UserStats, leaderboard_partitions

from . import tiers

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
    rank: RankInfo | None = None  # with `username`: the user's rank and its exactness
    exact: bool = True  # whether every rank on the page is exact


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
# Without tiers yet (a fresh install) a rank is counted, but never past this many index items
# a board (about 10 RCU); deeper than that it is a lower bound until the first rebuild.
FALLBACK_ITEMS = 300


@dataclass(frozen=True)
class RankInfo:
    """A learner's rank on one board, whether it is exact, and how to show it."""

    rank: int
    exact: bool
    # False before the first rebuild when counting stopped at its budget: `rank` is a floor.
    ready: bool = True
    learners: int | None = None  # on the board, as the kept counts say
    # How long ago the counts were last known caught up (None: never); shown when inexact.
    behind: timedelta | None = None

    @property
    def label(self) -> str:
        """Return the rank as the page shows it: `1,234`, `≈1,234`, or `301+` (a floor)."""
        if not self.ready:
            return f"{self.rank:,}+"
        return f"{self.rank:,}" if self.exact else f"≈{self.rank:,}"

    @property
    def lag(self) -> str:
        """Return how far behind an approximate rank's counts are, in words ("" when exact)."""
        if self.exact or not self.ready:
            return ""
        if self.behind is None:
            return "counts not kept up to date"
        return f"counts {int(self.behind.total_seconds()):,} s behind"

    @property
    def top_percent(self) -> int | None:
        """Return the share of the board at or above this rank, in whole percent (at least 1)."""
        if not self.learners or not self.ready:
            return None
        return max(1, min(100, -(-100 * self.rank // self.learners)))


def count_higher(metric: str, score: Any, *, shards: int | None = None) -> int:
    """Count users whose score beats `score` by COUNT Queries (maintenance and tests only)."""
    index = UserStats.leaderboard_index(metric)
    attribute = getattr(UserStats, metric)
    return sum(
        index.count(partition, range_key_condition=attribute > score)
        for partition in leaderboard_partitions(shards)
    )


def rank_info(metric: str, stats: UserStats, *, shards: int | None = None) -> RankInfo:
    """Return a user's rank with its exactness: 2 calls with one shard, 1 + shards at most."""
    check_metric(metric)
    return rank_infos(stats, [metric], shards=shards)[metric]


def rank_infos(
    stats: UserStats,
    metrics: Iterable[str] = METRICS,
    *,
    shards: int | None = None,
    pointers: dict[str, tiers.Pointer | None] | None = None,
) -> dict[str, RankInfo]:
    """Return a user's rank on several boards: the tier pointers in one call (or `pointers`,
    read beforehand by the caller), then a COUNT inside one tier per board and shard."""
    metrics = [check_metric(metric) for metric in metrics]
    found = pointers if pointers is not None else tiers.pointers(metrics)
    partitions = leaderboard_partitions(shards)
    ranks = [score_rank(m, getattr(stats, m), found[m], partitions) for m in metrics]
    return dict(zip(metrics, ranks, strict=True))


def rank_of(metric: str, stats: UserStats, *, shards: int | None = None) -> int:
    """Return a user's rank: one plus the users with a higher score (see rank_info)."""
    return rank_info(metric, stats, shards=shards).rank


def score_rank(
    metric: str, score: Any, pointer: tiers.Pointer | None, partitions: list[str]
) -> RankInfo:
    """Return the rank of a score from the board's kept counts: one COUNT Query a shard.

    One plus the learners of the tiers above the score's tier (the kept counts), plus
    a live COUNT of the higher scores inside that tier; exact while the counts are caught up,
    and always in the top tier.
    """
    if pointer is None or not pointer.kept:
        return _counted_rank(metric, score, partitions)
    index = UserStats.leaderboard_index(metric)
    attribute = getattr(UserStats, metric)
    tier = pointer.tier_of(score)
    if tier == 0:  # the top tier has no upper end
        condition = attribute > score
    else:
        ceiling = pointer.ceilings[tier]
        condition = attribute.between(score + tiers.SCORE_EPSILON, ceiling)
    inside = 0
    if tier == 0 or score < pointer.ceilings[tier]:
        inside = sum(index.count(p, range_key_condition=condition) for p in partitions)
    return RankInfo(
        1 + pointer.above(tier) + inside,
        # In the top tier nothing is above but the live COUNT: exact whatever the counts.
        exact=pointer.exact or tier == 0,
        learners=sum(pointer.counts or ()),
        behind=pointer.behind,
    )


def _counted_rank(metric: str, score: Any, partitions: list[str]) -> RankInfo:
    """Count the scores above, at most FALLBACK_ITEMS a board: a board with no tiers yet."""
    connection = UserStats._get_connection()
    attribute = getattr(UserStats, metric)
    budget = max(1, FALLBACK_ITEMS // len(partitions))
    higher, complete = 0, True
    for partition in partitions:
        page = connection.query(
            partition,
            range_key_condition=attribute > score,
            index_name=f"gsi_leaderboard_{metric}",
            select="COUNT",
            limit=budget,
        )
        higher += page.get("Count", 0)
        complete = complete and not page.get("LastEvaluatedKey")
    return RankInfo(1 + higher, exact=complete, ready=complete)


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


def _groups(rows: list[UserStats], metric: str) -> list[tuple[Any, int]]:
    """Return (score, how many) for each run of equal scores, in order."""
    groups: list[tuple[Any, int]] = []
    for item in rows:
        value = getattr(item, metric)
        if groups and groups[-1][0] == value:
            groups[-1] = (value, groups[-1][1] + 1)
        else:
            groups.append((value, 1))
    return groups


def around(
    metric: str, username: str, *, window: int = NEIGHBOURS, shards: int | None = None
) -> Board | None:
    """Return a user's rank and the rows just above and below it, or None without stats.

    The neighbours' ranks follow from the user's by the sizes of the score groups the window
    shows whole; a group the window cuts (the top one, the user's own before the first row
    below) gets its rank from the tiers instead, so nothing counts a whole group of ties.
    """
    check_metric(metric)
    stats = UserStats.get_or_none(username)
    if stats is None or stats.leaderboard_partition is None:
        return None
    partitions = leaderboard_partitions(shards)
    pointer = tiers.pointers([metric])[metric]
    score = getattr(stats, metric)
    mine = score_rank(metric, score, pointer, partitions)
    above = list(reversed(_walk(metric, stats, partitions, upward=True, window=window)))
    below = _walk(metric, stats, partitions, upward=False, window=window)

    ordered = [*above, stats, *below]
    groups = _groups(ordered, metric)
    mine_at = next(n for n, (value, _) in enumerate(groups) if value == score)
    ranks = [0] * len(groups)
    ranks[mine_at] = mine.rank
    exact = mine.exact
    top_whole = len(above) < window  # nothing above the window: its first group is whole
    for n in range(mine_at - 1, -1, -1):
        value, size = groups[n]
        ranks[n] = max(1, ranks[n + 1] - size)
        if n == 0 and not top_whole:
            found = score_rank(metric, value, pointer, partitions)
            ranks[n], exact = min(found.rank, ranks[n]), exact and found.exact
    for n in range(mine_at + 1, len(groups)):
        ranks[n] = ranks[n - 1] + groups[n - 1][1]
        if n - 1 == 0 and not top_whole:  # the user's own ties run on above the window
            found = score_rank(metric, groups[n][0], pointer, partitions)
            ranks[n], exact = max(found.rank, ranks[n]), exact and found.exact
    rank_of_value = {value: ranks[n] for n, (value, _) in enumerate(groups)}
    rows = [Row(rank_of_value[getattr(item, metric)], item) for item in ordered]
    return Board(
        metric,
        rows,
        user_rank=mine.rank,
        username=username,
        shards=len(partitions),
        rank=mine,
        exact=exact,
    )
