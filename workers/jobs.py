"""Bookkeeping of background work, one item per job name, in a table of its own.

Workers keep here what must outlive a run and be shared by every host that runs them: a
watermark (the earliest position a worker may still have to read again, an hour bucket or a
day), a checkpoint (where a long run stopped) or a marker (a seed in progress). Keeping them
out of the domain tables keeps those tables' scans, dumps and admin pages to domain items.

Names in use: `send_reminders` and `expire_streaks` (watermarks), `reshard_leaderboard`
(checkpoint), `seed` (marker of an unfinished seed), `sync_user_skills:<skill_id>` (a lease,
held while one run rewrites a skill's copies, deleted when it is done), `rank_tiers:<metric>`
(a board's current generation of score tiers) and `rank_counts:<metric>` (its learners per
tier), see stats/boards/tiers.py, `rank_upkeep:<shard>` (the last user-stats stream record
applied to them from one shard) and `rank_upkeep` (the moment up to which they hold every
change), see stats/boards/upkeep.py.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from datetime import timedelta
from typing import Any

from pynamodb.attributes import (
    JSONAttribute,
    ListAttribute,
    NumberAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)

from dynamo.exceptions import ConflictError
from dynamo.models import DynamoMeta, DynamoModel, utcnow

WATERMARK_ROUNDS = 5


class Job(DynamoModel):
    """One named piece of bookkeeping: a watermark, a checkpoint or a marker."""

    app_label = "workers"
    model_name = "job"
    verbose_name = "job"

    class Meta(DynamoMeta):
        table_suffix = "jobs"

    name = UnicodeAttribute(hash_key=True)
    # An ordered position (`YYYY-MM-DD-HH`, `YYYY-MM-DD`): compared as a string.
    watermark = UnicodeAttribute(null=True)
    # Anything else the job keeps: a checkpoint, the parameters of a marker.
    state = JSONAttribute(null=True)
    # A counter moved with ADD: many writers bump it without reading it.
    count = NumberAttribute(null=True)
    # Counters moved one by one (`SET counts[i] = counts[i] + :d`): a board's learners per tier.
    counts = ListAttribute(of=NumberAttribute, null=True)
    # A lease: which run holds the job, and until when (a killed run's lease runs out).
    lease_token = UnicodeAttribute(null=True)
    lease_until = UTCDateTimeAttribute(null=True)

    @classmethod
    def apply(cls, name: str, actions: list, condition=None, **kwargs) -> Job | None:
        """Apply one conditional UpdateItem to a job's item, stamping it; None if refused."""
        now = utcnow()
        stamps = [cls.created_at.set(cls.created_at | now), cls.updated_at.set(now)]
        return super().apply(name, [*actions, *stamps], condition, **kwargs)


def read_watermark(name: str) -> str | None:
    """Return a job's stored watermark, or None before its first run."""
    job = Job.get_or_none(name, consistent_read=True)
    return job.watermark if job is not None else None


def store_watermark(name: str, read: str | None, proposal: str) -> str:
    """Store `proposal` if the watermark is still `read`, else the earlier of the two; return it.

    Two runs finishing together each read the same watermark: the one that stores second
    keeps the earlier proposal, so a position another run left behind is never skipped.
    """
    expected, value = read, proposal
    for _ in range(WATERMARK_ROUNDS):
        if expected is None:
            condition = Job.watermark.does_not_exist()
        else:
            condition = Job.watermark == expected
        if Job.apply(name, [Job.watermark.set(value)], condition) is not None:
            return value
        expected = read_watermark(name)
        value = min(expected, proposal) if expected else proposal
        if value == expected:
            return value
    raise RuntimeError(f"Could not store the {name} watermark: too much contention.")


class WatermarkWalk:
    """One run's walk over a job's positions, from its stored watermark up to `last`.

    Positions are ordered strings (hour buckets, days); `following` gives the next one. A run
    killed midway stored nothing, so the next run walks again from the same watermark: every
    step of a walk must be safe to repeat (a conditional write).
    """

    def __init__(
        self,
        name: str,
        *,
        start: str,
        last: str,
        following: Callable[[str], str],
        stored: Callable[[], str | None] | None = None,
    ) -> None:
        self.name = name
        # `stored` reads the watermark where a job kept it before (None: read_watermark).
        self.read = stored() if stored is not None else read_watermark(name)
        self.first = self.read or start  # `start` only before the first run
        self.last = last
        self.following = following

    def positions(self) -> Iterator[str]:
        """Yield every position from the watermark to `last`, both included."""
        position = self.first
        while position <= self.last:
            yield position
            position = self.following(position)

    def finish(self, earliest_left: str | None = None) -> str:
        """Store the watermark: where the run left something behind, else `last`; return it.

        Return "" when there was nothing to walk (a watermark ahead of `last`).
        """
        if self.first > self.last:
            return ""
        return store_watermark(self.name, self.read, earliest_left or self.last)


def read_state(name: str) -> Any:
    """Return a job's stored state (a checkpoint, a marker's parameters), or None."""
    job = Job.get_or_none(name, consistent_read=True)
    return job.state if job is not None else None


def store_state(name: str, state: Any) -> None:
    """Store a job's state, replacing any before."""
    Job.apply(name, [Job.state.set(state)])


def count_up(name: str) -> None:
    """Add one to a job's counter (creating the item at 1): one UpdateItem, no condition."""
    Job.apply(name, [Job.count.add(1)])


def forget(name: str) -> None:
    """Delete a job's item: its work is done and nothing of it needs keeping."""
    Job(name).delete(add_version_condition=False)


def take_lease(name: str, token: str, *, seconds: float) -> bool:
    """Hold the job `name` for `seconds` unless another run's unexpired lease holds it."""
    now = utcnow()
    free = Job.lease_until.does_not_exist() | (Job.lease_until < now) | (Job.lease_token == token)
    actions = [Job.lease_token.set(token), Job.lease_until.set(now + timedelta(seconds=seconds))]
    return Job.apply(name, actions, free) is not None


def release_lease(name: str, token: str) -> None:
    """Give the lease up by deleting its item, if this run still holds it."""
    with suppress(ConflictError):  # it ran out and another run holds it now: theirs to delete
        Job(name).delete(condition=Job.lease_token == token, add_version_condition=False)


@contextmanager
def lease(name: str, *, seconds: float) -> Iterator[bool]:
    """Hold the job `name` for the block; yield False (holding nothing) if another run does."""
    token = uuid.uuid4().hex
    if not take_lease(name, token, seconds=seconds):
        yield False
        return
    try:
        yield True
    finally:
        release_lease(name, token)
