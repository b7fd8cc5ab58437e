"""Break the streaks of learners who missed a day: one Query per day, from a watermark.

A session on day D keeps the streak alive through D + 1; it breaks at the start of D + 2
unless another session comes first. Every session write stores that day in
`streak_expires_on` (removed when the streak is broken), so `gsi_streak_expires_on` lists,
for each day, the learners whose streak breaks then. A run reads each day from the stored
watermark (jobs table, job `expire_streaks`) up to today and breaks each streak with one
UpdateItem conditioned on the last active day and the expiry it read: a session recorded
meanwhile wins, and two runs (or one run twice) never break a streak twice or wrongly. The
watermark then moves to today, which every run reads again; a session never stores an
expiry before tomorrow, so nothing is left behind it. Run hourly, the stored streak is true
within an hour of midnight UTC.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from stats.models import UserStats
from workers import jobs

JOB = "expire_streaks"
# No write stores an expiry that has passed (a session whose streak has broken since stores
# none; a whole-item save with one is refused), so a first run needs only the last few days.
FIRST_RUN_LOOKBACK = timedelta(days=2)


@dataclass
class Summary:
    """What one run did."""

    days: int = 0
    due: int = 0
    broken: int = 0
    kept: int = 0
    watermark_from: str = ""
    watermark_to: str = ""

    def __str__(self) -> str:
        return (
            f"days read: {self.days}, due: {self.due}, broken: {self.broken}, "
            f"kept (a session came first): {self.kept}"
        )


def next_day(day: str) -> str:
    """Return the day after `day` (YYYY-MM-DD)."""
    return (date.fromisoformat(day) + timedelta(days=1)).isoformat()


def expire_due(now: datetime, *, dry_run: bool = False) -> Summary:
    """Break every streak that expired on or before the day of `now`; return what was done."""
    summary = Summary()
    today = now.date()
    walk = jobs.WatermarkWalk(
        JOB,
        start=(today - FIRST_RUN_LOOKBACK).isoformat(),
        last=today.isoformat(),
        following=next_day,
    )
    summary.watermark_from = walk.first
    for day in walk.positions():
        summary.days += 1
        for stats in UserStats.gsi_streak_expires_on.query(day):
            summary.due += 1
            if dry_run:
                continue
            if stats.break_streak():
                summary.broken += 1
            else:
                summary.kept += 1
    if not dry_run:
        summary.watermark_to = walk.finish()
    return summary


def backfill(now: datetime) -> int:
    """Give every streak stored before expiries existed its expiry; return how many changed.

    A one-off maintenance Scan: a streak with a last active day is indexed under the day it
    breaks (today if that has passed, so the next run breaks it); one without a last active
    day (no session ever recorded it) is set to 0.
    """
    today = now.date().isoformat()
    pending = UserStats.scan(
        (UserStats.streak > 0) & UserStats.streak_expires_on.does_not_exist(), page_size=500
    )
    return sum(stats.give_streak_an_expiry(today) for stats in pending)
