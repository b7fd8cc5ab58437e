"""Score tiers: learners counted per score range, so a rank costs the same at any depth.

`rebuild_rank_tiers` reads each board's index once and cuts tiers of about TIER_SIZE learners,
never inside a group of equal scores; the board's pointer (the `rank_tiers:<metric>` job)
names that generation and keeps its tiers' ceilings, best first; the `rank_counts:<metric>`
job, how many learners each tier holds now. Tier i holds the scores above tier i+1's ceiling
up to its own; the top tier has no upper end and the bottom one no lower end, so every score
falls in one tier.

The counts are kept by the user-stats stream (stats/boards/upkeep.py): every change of a
score moves a learner from one tier's count to another's, exactly once. A rank is then one
plus the learners of the tiers above the learner's, plus a live COUNT of the higher scores
inside that one small tier. It is exact whenever the stream's consumer is caught up: the
`rank_upkeep` job holds the moment up to which the counts hold every change (`consume_streams`
writes it, or the Lambda's watcher), and a page that finds that older than UPKEEP_LAG shows the
rank as approximate, saying how far behind the counts are.
"""

from __future__ import annotations

import bisect
import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute

from dynamo.batch import batch_delete, batch_put, get_together
from dynamo.models import DynamoMeta, DynamoModel, client_for, utcnow
from stats.models import METRICS, UserStats, leaderboard_partitions
from workers import jobs

# Learners per tier: the COUNT inside a tier reads fewer than this many index items (about
# 270 bytes each, so under 4 RCU), which keeps a rank within 10 RCU even on eight shards.
TIER_SIZE = 100
# Scores are whole numbers (xp, streak) or tenths (the percentages), so no score lies
# strictly between s and s + SCORE_EPSILON: BETWEEN s + SCORE_EPSILON AND c means s < x <= c.
SCORE_EPSILON = 1e-6
# A build older than this is not made current (its half could have been cleared meanwhile),
# and a generation that never became current is cleared once this old.
STALE_AFTER = timedelta(hours=1)
PAGE_SIZE = 1000
JOB_PREFIX = "rank_tiers:"
# A board's learners per tier, kept by the stream, in an item of their own: every batch that
# moves them rewrites the item, and the ceilings (a few KB at 100,000 learners) stay put.
COUNTS_PREFIX = "rank_counts:"
# The moment up to which the counts hold every change (an ISO time, its watermark).
UPKEEP_JOB = "rank_upkeep"
# Counts confirmed caught up at most this long ago are exact: the consumer polls an idle
# stream every second at most, and a change is in the counts 14-183 ms after it is written.
UPKEEP_LAG = timedelta(seconds=5)


class RankTier(DynamoModel):
    """One score range of one board's generation: its learners and how many stand above."""

    app_label = "stats"
    model_name = "ranktier"
    verbose_name = "rank tier"

    class Meta(DynamoMeta):
        table_suffix = "rank-tiers"

    board = UnicodeAttribute(hash_key=True)  # `<metric>#<generation>`
    ceiling = NumberAttribute(range_key=True)  # the tier's highest score at the build
    floor = NumberAttribute()  # its lowest score at the build
    learners = NumberAttribute()  # learners with a score from floor to ceiling
    above = NumberAttribute()  # learners with a score above the ceiling
    # [[score, learners], ...] best first, as at the build: a rank inside the tier is a sum.
    scores = JSONAttribute(null=True)


def board_key(metric: str, generation: str) -> str:
    """Return the hash key of one board's generation of tiers."""
    return f"{metric}#{generation}"


def job_name(metric: str) -> str:
    """Return the name of the job item that points a board at its current generation."""
    return f"{JOB_PREFIX}{metric}"


@dataclass(frozen=True)
class Pointer:
    """A board's current generation of tiers, as its job item records it."""

    metric: str
    generation: str
    previous: str | None
    learners: int
    tiers: int
    built_at: str
    # The tiers' ceilings, best first, and the learners each holds now (kept by the stream).
    ceilings: tuple[float, ...] = ()
    counts: tuple[int, ...] | None = None
    # When the stream's consumer last confirmed it had applied every change; None when it
    # never did (no consumer runs).
    caught_up_at: datetime | None = None
    # The counts' item was read at another generation than the pointer: a rebuild's hand-over
    # wrote both between the two reads (one BatchGetItem reads its items one by one).
    torn: bool = False

    @classmethod
    def from_job(
        cls,
        metric: str,
        job: jobs.Job | None,
        upkeep: jobs.Job | None = None,
        kept: jobs.Job | None = None,
    ) -> Pointer | None:
        """Return the pointer a job item holds, or None before the board's first rebuild.

        `upkeep` is the `rank_upkeep` job item: when the counts were last known caught up;
        `kept` the board's `rank_counts` item, whose counts are this generation's when its
        watermark names it.
        """
        if job is None or not job.watermark or not job.state:
            return None
        state = job.state
        ceilings = tuple(state.get("ceilings") or ())
        counts = None
        torn = kept is not None and kept.watermark != job.watermark
        if kept is not None and not torn and kept.counts is not None:
            counts = tuple(int(n) for n in kept.counts)
        if counts is not None and len(counts) != len(ceilings):
            counts = None  # not this generation's counts
        caught_up_at = None
        if upkeep is not None and upkeep.watermark:
            caught_up_at = datetime.fromisoformat(upkeep.watermark)
        return cls(
            metric,
            job.watermark,
            state.get("previous"),
            int(state.get("learners", 0)),
            int(state.get("tiers", 0)),
            state.get("built_at", ""),
            ceilings,
            counts,
            caught_up_at,
            torn,
        )

    @property
    def kept(self) -> bool:
        """Return whether the pointer keeps counts per tier (every generation since the stream)."""
        return self.counts is not None and bool(self.ceilings)

    @property
    def behind(self) -> timedelta | None:
        """Return how long ago the counts were last known to hold every change (None: never)."""
        if self.caught_up_at is None:
            return None
        return max(timedelta(0), utcnow() - self.caught_up_at)

    @property
    def exact(self) -> bool:
        """Return whether the counts hold every change: the consumer caught up just now."""
        return self.kept and self.behind is not None and self.behind <= UPKEEP_LAG

    def tier_of(self, score: Any) -> int:
        """Return the index of the tier a score falls in (see the module docstring)."""
        return tier_of(self.ceilings, score)

    def above(self, tier: int) -> int:
        """Return how many learners the tiers above one tier hold."""
        return sum((self.counts or ())[:tier])


def tier_of(ceilings: tuple[float, ...] | list[float], score: Any) -> int:
    """Return the index of the tier holding `score`: the one with the lowest ceiling at or above
    it, the top tier above every ceiling, the bottom tier below every ceiling."""
    at_or_above = bisect.bisect_right([-ceiling for ceiling in ceilings], -score)
    return min(max(0, at_or_above - 1), max(0, len(ceilings) - 1))


def counts_name(metric: str) -> str:
    """Return the name of the job item keeping a board's learners per tier."""
    return f"{COUNTS_PREFIX}{metric}"


def pointer_keys(metrics: Iterable[str]) -> list[tuple[Any, tuple[str]]]:
    """Return the job keys a rank needs: each board's pointer, each board's counts, then the
    upkeep's marker."""
    metrics = list(metrics)
    names = [job_name(m) for m in metrics] + [counts_name(m) for m in metrics] + [UPKEEP_JOB]
    return [(jobs.Job, (name,)) for name in names]


def pointers_from(metrics: list[str], found: list[jobs.Job | None]) -> dict[str, Pointer | None]:
    """Return each board's pointer from the items pointer_keys() named, in that order."""
    count = len(metrics)
    boards, kept, upkeep = found[:count], found[count : 2 * count], found[2 * count]
    return {
        m: Pointer.from_job(m, job, upkeep, counts)
        for m, job, counts in zip(metrics, boards, kept, strict=True)
    }


def pointers(metrics: Iterable[str], *, consistent_read: bool = False) -> dict[str, Pointer | None]:
    """Return each board's current generation, its counts and their lag: one BatchGetItem."""
    metrics = list(dict.fromkeys(metrics))
    found = get_together(pointer_keys(metrics), consistent_read=consistent_read)
    return pointers_from(metrics, found)


# --- building -------------------------------------------------------------------------------
def score_counts(
    metric: str,
    *,
    shards: int | None = None,
    progress: Callable[[int], None] | None = None,
    seen: dict[str, Any] | None = None,
) -> Counter:
    """Read the board's index once, shard by shard; return how many learners hold each score.

    `seen`, when given, is filled with each learner's score as read (the hand-over needs it).
    """
    client = client_for(UserStats)
    counts: Counter = Counter()
    read = 0
    for partition in leaderboard_partitions(shards):
        start: dict[str, Any] | None = None
        while True:
            page = client.query(
                TableName=UserStats.Meta.table_name,
                IndexName=f"gsi_leaderboard_{metric}",
                KeyConditionExpression="leaderboard_partition = :p",
                ExpressionAttributeValues={":p": {"S": partition}},
                ProjectionExpression="#m, username",
                ExpressionAttributeNames={"#m": metric},
                Limit=PAGE_SIZE,
                **({"ExclusiveStartKey": start} if start else {}),
            )  # raw pages: only the score is needed, so no model is built per learner
            for item in page.get("Items", []):
                score = _number(item[metric]["N"])
                counts[score] += 1
                if seen is not None:
                    seen[item["username"]["S"]] = score
            read += len(page.get("Items", []))
            if progress:
                progress(read)
            start = page.get("LastEvaluatedKey")
            if not start:
                break
    return counts


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def cut_tiers(counts: Counter, size: int = TIER_SIZE) -> list[dict[str, Any]]:
    """Return tiers, best first: about `size` learners each, never splitting equal scores."""
    tiers: list[dict[str, Any]] = []
    above = 0
    current: dict[str, Any] | None = None
    for score in sorted(counts, reverse=True):
        many = counts[score]
        if current is None or current["learners"] + many > size:
            if current is not None:
                above += current["learners"]
                tiers.append(current)
            current = {"ceiling": score, "floor": score, "learners": 0, "above": above}
            current["scores"] = []
        current["floor"] = score
        current["learners"] += many
        current["scores"].append([score, many])
    if current is not None:
        tiers.append(current)
    return tiers


def new_generation(now: datetime) -> str:
    """Return a generation id that sorts by when its build started."""
    return f"{now:%Y%m%dT%H%M%S.%f}-{uuid.uuid4().hex[:6]}"


def started_at(generation: str) -> datetime:
    """Return when the build of a generation started."""
    return datetime.strptime(generation.split("-")[0], "%Y%m%dT%H%M%S.%f").replace(tzinfo=UTC)


def write_tiers(metric: str, generation: str, tiers: list[dict[str, Any]]) -> int:
    """Store a generation's tiers (batches of 25); return how many."""
    key = board_key(metric, generation)
    return batch_put(RankTier, (RankTier(key, **tier) for tier in tiers))


def per_tier(counts: Counter, ceilings: list[float]) -> list[int]:
    """Return how many learners of a score count fall in each tier of these ceilings."""
    learners = [0] * len(ceilings)
    for score, many in counts.items():
        learners[tier_of(ceilings, score)] += many
    return learners


def drop_generation(metric: str, generation: str) -> int:
    """Delete every tier of one generation; return how many."""
    return batch_delete(RankTier, RankTier.query(board_key(metric, generation), page_size=500))


def clear_unused(now: datetime) -> int:
    """Delete generations no board points at: superseded, lost or left by a killed build.

    The current and the previous generation stay (a reader may hold the previous pointer);
    one that started after the current may still be building, so it stays until stale. A
    maintenance Scan of this small table, projected to its keys.
    """
    live = {m: p for m, p in pointers(METRICS).items() if p is not None}
    doomed: dict[tuple[str, str], list[RankTier]] = {}
    for tier in RankTier.scan(attributes_to_get=["board", "ceiling"], page_size=1000):
        metric, _, generation = tier.board.partition("#")
        pointer = live.get(metric)
        if pointer is not None and generation in (pointer.generation, pointer.previous):
            continue
        superseded = pointer is not None and generation < pointer.generation
        if superseded or now - started_at(generation) > STALE_AFTER:
            doomed.setdefault((metric, generation), []).append(tier)
    return sum(batch_delete(RankTier, tiers) for tiers in doomed.values())
