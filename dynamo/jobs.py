"""Bookkeeping of background work, one item per job name, in a table of its own.

Workers keep here what must outlive a run and be shared by every host that runs them: a
watermark (the earliest position a worker may still have to read again, an hour bucket or a
day), a checkpoint (where a long run stopped) or a marker (a seed in progress). Keeping them
out of the domain tables keeps those tables' scans, dumps and admin pages to domain items.

Names in use: `send_reminders` and `expire_streaks` (watermarks), `reshard_leaderboard`
(checkpoint), `seed` (marker of an unfinished seed), `rank_tiers:<metric>` (a board's current
generation of score tiers, see stats/tiers.py).
"""

from __future__ import annotations

from typing import Any

from pynamodb.attributes import JSONAttribute, UnicodeAttribute
from pynamodb.constants import ALL_NEW
from pynamodb.exceptions import UpdateError

from .models import CONDITION_FAILED, DynamoMeta, DynamoModel, utcnow

WATERMARK_ROUNDS = 5


class Job(DynamoModel):
    """One named piece of bookkeeping: a watermark, a checkpoint or a marker."""

    app_label = "dynamo"
    model_name = "job"
    verbose_name = "job"

    class Meta(DynamoMeta):
        table_suffix = "jobs"

    name = UnicodeAttribute(hash_key=True)
    # An ordered position (`YYYY-MM-DD-HH`, `YYYY-MM-DD`): compared as a string.
    watermark = UnicodeAttribute(null=True)
    # Anything else the job keeps: a checkpoint, the parameters of a marker.
    state = JSONAttribute(null=True)

    @classmethod
    def apply(cls, name: str, actions: list, condition=None) -> Job | None:
        """Apply one UpdateItem to a job's item; return it, or None when the condition failed."""
        now = utcnow()
        actions = [
            *actions,
            cls.created_at.set(cls.created_at | now),
            cls.updated_at.set(now),
            cls.version.add(1),
        ]
        try:
            data = cls._get_connection().update_item(
                name, actions=actions, condition=condition, return_values=ALL_NEW
            )
        except UpdateError as exc:
            if getattr(exc, "cause_response_code", None) == CONDITION_FAILED:
                return None
            raise
        return cls.from_raw_data(data["Attributes"])


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


def read_state(name: str) -> Any:
    """Return a job's stored state (a checkpoint, a marker's parameters), or None."""
    job = Job.get_or_none(name, consistent_read=True)
    return job.state if job is not None else None


def store_state(name: str, state: Any) -> None:
    """Store a job's state, replacing any before."""
    Job.apply(name, [Job.state.set(state)])


def forget(name: str) -> None:
    """Delete a job's item: its work is done and nothing of it needs keeping."""
    Job(name).delete(add_version_condition=False)
