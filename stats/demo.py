"""Deterministic demo statistics: totals first, metrics derived from them as sessions do."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from dynamo.batch import prepare_new
from users.models import User

from .models import UserStats, accuracy_of, efficiency_of

REMINDER_SPAN_SECONDS = 48 * 3600
MAX_SESSIONS = 2_000


def demo_stats(user: User, *, random_seed: int, now: datetime) -> UserStats:
    """Return a learner's stats drawn from the seed: totals, a current streak, a reminder.

    The metrics come from the totals through the same functions a recorded session uses,
    so the demo data satisfies the README's definitions: no accuracy without questions.
    """
    # A generator of the learner's own keeps the draws independent of the other apps'.
    rng = random.Random(f"{random_seed}:{user.username}")
    since = user.created_at
    days_signed_up = max(0, (now.date() - since.date()).days)
    sessions = 0 if rng.random() < 0.05 else min(MAX_SESSIONS, int(rng.lognormvariate(3, 1)) + 1)
    answered = sum(rng.randint(0, 30) for _ in range(min(sessions, 50))) * max(1, sessions // 50)
    correct = round(answered * rng.betavariate(8, 2))
    minutes = round(sessions * rng.uniform(5, 40), 2)
    stats = UserStats(
        user.username,
        name=user.name,
        xp=min(250_000, correct * 10 + sessions * 5),
        sessions=sessions,
        questions_answered=answered,
        questions_correct=correct,
        minutes_studied=minutes,
        accuracy=accuracy_of(answered, correct),
        efficiency=efficiency_of(correct, minutes),
        streak=0,
        created_at=since,
    )
    stats.learner = user
    if sessions:
        if days_signed_up >= 2 and rng.random() < 0.15:
            # The last session was two days ago or more: the streak is broken.
            last_day = now.date() - timedelta(days=rng.randint(2, min(60, days_signed_up)))
            streak = 0
        else:  # a current streak, ending today or yesterday, of days since sign-up
            last_day = now.date() - timedelta(days=rng.randint(0, min(1, days_signed_up)))
            longest = min(sessions, (last_day - since.date()).days + 1)
            streak = min(longest, 400, int(rng.expovariate(1 / 12)) + 1)
        stats.streak = streak
        stats.last_active_day = last_day.isoformat()
    if rng.random() < 0.7:
        stats.last_reminded_at = moment(
            max(since, now - timedelta(seconds=rng.randint(3600, 72 * 3600)))
        )
    stats.schedule_reminder(moment(now + timedelta(seconds=rng.randint(60, REMINDER_SPAN_SECONDS))))
    prepare_new(stats)
    stats.updated_at = moment(since + (now - since) * rng.random())
    return stats


def moment(when: datetime) -> datetime:
    """Drop sub-millisecond digits, as stored times have none."""
    return when.replace(microsecond=when.microsecond // 1000 * 1000)
