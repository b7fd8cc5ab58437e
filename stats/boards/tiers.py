"""Score tiers: a small item per score range, so a learner's rank costs the same at any depth.

A tier covers the scores above the next lower tier's ceiling up to its own `ceiling` and
records, as of its generation's build, how many learners it held and how many stood above
it. `rebuild_rank_tiers` makes a generation from one pass over each board's index, cutting a
tier every TIER_SIZE learners but never inside a group of equal scores, then points the
board at it (the `rank_tiers:<metric>` job). A rank is then one plus the tier's `above` plus
a live COUNT of the scores above the learner's inside that one small tier.

Each tier also keeps its scores and how many learners hold each, so below the top tier a rank
needs no COUNT: `above` plus the learners of the tier with a higher score. The top tier (the
scores above the second tier's ceiling, which the pointer names) is counted live instead and is
always exact. Below it a rank is exact while no score moved on the board since the build: the
pointer keeps the boards' move counters (`rank_changes:<partition>`, stats/models.py) as the
build read them before its pass, and a rank compares them with the counters now. Otherwise it
is off by at most the number of learners who moved (studied, lost a streak, joined or left)
since the build, and says so.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from pynamodb.attributes import JSONAttribute, NumberAttribute, UnicodeAttribute

from dynamo.batch import batch_delete, batch_put, get_together
from dynamo.models import DynamoMeta, DynamoModel, client_for, utcnow
from stats.models import METRICS, UserStats, changes_job_name, leaderboard_partitions
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
    # Scores above this are counted live (the top tier); None: every score, "" unknown (a
    # generation built before the pointer said).
    live_above: float | str | None = ""
    # Whether no score moved on the board since the build (the move counters agree).
    unmoved: bool = False

    @classmethod
    def from_job(
        cls, metric: str, job: jobs.Job | None, moves: dict[str, int] | None = None
    ) -> Pointer | None:
        """Return the pointer a job item holds, or None before the board's first rebuild.

        `moves` are the move counters read now, by partition: the pointer is unmoved when they
        are the ones its build read.
        """
        if job is None or not job.watermark or not job.state:
            return None
        state = job.state
        built_with = state.get("moves")
        return cls(
            metric,
            job.watermark,
            state.get("previous"),
            int(state.get("learners", 0)),
            int(state.get("tiers", 0)),
            state.get("built_at", ""),
            state.get("live_above", ""),
            moves is not None and built_with is not None and built_with == moves,
        )

    def counts_live(self, score: Any) -> bool:
        """Return whether a score is in the top tier, whose rank is a live COUNT."""
        return self.live_above is None or (self.live_above != "" and score > self.live_above)


def pointer_keys(metrics: Iterable[str], partitions: list[str]) -> list[tuple[Any, tuple[str]]]:
    """Return the job keys a rank needs: each board's pointer, then each partition's counter."""
    names = [job_name(m) for m in metrics] + [changes_job_name(p) for p in partitions]
    return [(jobs.Job, (name,)) for name in names]


def pointers_from(
    metrics: list[str], found: list[jobs.Job | None], partitions: list[str]
) -> dict[str, Pointer | None]:
    """Return each board's pointer from the items pointer_keys() named, in that order."""
    boards, counters = found[: len(metrics)], found[len(metrics) :]
    moves = {p: int(c.count or 0) if c else 0 for p, c in zip(partitions, counters, strict=True)}
    return {m: Pointer.from_job(m, job, moves) for m, job in zip(metrics, boards, strict=True)}


def read_moves(partitions: list[str]) -> dict[str, int]:
    """Return each partition's move counter, read consistently (before a build's pass)."""
    found = get_together(
        [(jobs.Job, (changes_job_name(p),)) for p in partitions], consistent_read=True
    )
    return {p: int(c.count or 0) if c else 0 for p, c in zip(partitions, found, strict=True)}


def pointers(metrics: Iterable[str], *, shards: int | None = None) -> dict[str, Pointer | None]:
    """Return each board's current generation and whether it is unmoved: one BatchGetItem."""
    metrics = list(dict.fromkeys(metrics))
    partitions = leaderboard_partitions(shards)
    return pointers_from(metrics, get_together(pointer_keys(metrics, partitions)), partitions)


def tier_for(pointer: Pointer, score: Any) -> RankTier | None:
    """Return the tier whose range holds `score` (one Query), or None above the top tier."""
    found = RankTier.query(
        board_key(pointer.metric, pointer.generation),
        RankTier.ceiling >= score,
        scan_index_forward=True,
        limit=1,
        page_size=1,
    )
    return next(iter(found), None)


# --- building -------------------------------------------------------------------------------
def score_counts(
    metric: str, *, shards: int | None = None, progress: Callable[[int], None] | None = None
) -> Counter:
    """Read the board's index once, shard by shard; return how many learners hold each score."""
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
                ProjectionExpression="#m",
                ExpressionAttributeNames={"#m": metric},
                Limit=PAGE_SIZE,
                **({"ExclusiveStartKey": start} if start else {}),
            )  # raw pages: only the score is needed, so no model is built per learner
            for item in page.get("Items", []):
                counts[_number(item[metric]["N"])] += 1
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


def live_above(tiers: list[dict[str, Any]]) -> float | None:
    """Return the score above which the top tier counts live: the second tier's ceiling."""
    return tiers[1]["ceiling"] if len(tiers) > 1 else None


def make_current(
    metric: str,
    generation: str,
    learners: int,
    tiers: int,
    *,
    top_above: float | None = None,
    moves: dict[str, int] | None = None,
) -> bool:
    """Point the board at `generation` unless a build that started later already is.

    `top_above` is where its top tier starts (live_above()); `moves` the move counters the
    build read before its pass (None: ranks below the top tier stay approximate).
    """
    name = job_name(metric)
    for _ in range(jobs.WATERMARK_ROUNDS):
        stored = Pointer.from_job(metric, jobs.Job.get_or_none(name, consistent_read=True))
        if stored is not None and stored.generation >= generation:
            return False
        state = {
            "previous": stored.generation if stored else None,
            "learners": learners,
            "tiers": tiers,
            "built_at": utcnow().isoformat(),
            "live_above": top_above,
            "moves": moves,
        }
        if stored is None:
            condition = jobs.Job.watermark.does_not_exist()
        else:
            condition = jobs.Job.watermark == stored.generation
        done = jobs.Job.apply(
            name, [jobs.Job.watermark.set(generation), jobs.Job.state.set(state)], condition
        )
        if done is not None:
            return True
    raise RuntimeError(f"Could not point the {metric} board at its tiers: too much contention.")


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
