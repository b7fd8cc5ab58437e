"""Deterministic demo statistics: a study history first, the totals its sums, the metrics theirs."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

from dynamo.batch import prepare_new
from dynamo.models import DynamoModel
from users.models import User, UserSkill

from .history.models import StudyDay, StudySession, Totals, exact_sum, session_id_for
from .models import UserStats

REMINDER_SPAN_SECONDS = 48 * 3600
MAX_SESSIONS = 300
HISTORY_DAYS = 364  # record_session takes sessions up to a year back: so does the demo


def demo_stats(
    user: User, *, random_seed: int, now: datetime, skills: Sequence[UserSkill] = ()
) -> list[DynamoModel]:
    """Return a learner's stats, study sessions and study days, drawn from the seed.

    The sessions come first (a few weeks to a year of them, a current or broken streak at the
    end); the stats hold their sums and the metrics the same functions a recorded session
    uses derive from them, so `verify_stats` finds nothing to mend after `seed`.
    """
    # A generator of the learner's own keeps the draws independent of the other apps'.
    rng = random.Random(f"{random_seed}:{user.username}")
    first_day = max(user.created_at.date(), now.date() - timedelta(days=HISTORY_DAYS))
    count = 0 if rng.random() < 0.05 else min(MAX_SESSIONS, int(rng.lognormvariate(2.2, 0.9)) + 1)
    streak, days = study_days(rng, count, first_day, now.date())
    sessions = [demo_session(user, day, rng, now, skills) for day in days]
    sessions.sort(key=lambda session: session.session_id)
    totals = Totals.of(sessions)
    stats = UserStats(
        user.username,
        name=user.name,
        xp=totals.xp,
        sessions=totals.sessions,
        questions_answered=totals.questions_answered,
        questions_correct=totals.questions_correct,
        minutes_studied=totals.minutes_studied,
        streak=streak,
        created_at=user.created_at,
    )
    stats.accuracy, stats.efficiency = stats.derived_metrics()
    stats.learner = user
    if sessions:
        stats.last_active_day = max(days).isoformat()
    if rng.random() < 0.7:
        stats.last_reminded_at = moment(
            max(user.created_at, now - timedelta(seconds=rng.randint(3600, 72 * 3600)))
        )
    stats.schedule_reminder(moment(now + timedelta(seconds=rng.randint(60, REMINDER_SPAN_SECONDS))))
    prepare_new(stats)
    stats.updated_at = sessions[-1].created_at if sessions else user.created_at
    return [stats, *sessions, *day_totals(sessions)]


def study_days(rng: random.Random, count: int, first: date, today: date) -> tuple[int, list[date]]:
    """Return a streak and the days of `count` sessions between `first` and `today` that give it.

    A current streak is one session on each of its days, ending today or yesterday, with none
    the day before it; a broken one ends two days ago or more. Other sessions fall earlier.
    """
    if not count:
        return 0, []
    span = (today - first).days
    if span >= 2 and rng.random() < 0.15:
        last = today - timedelta(days=rng.randint(2, min(60, span)))
        streak, run = 0, [last]
        latest = last
    else:
        last = today - timedelta(days=rng.randint(0, min(1, span)))
        longest = min(count, (last - first).days + 1)
        streak = min(longest, int(rng.expovariate(1 / 12)) + 1)
        run = [last - timedelta(days=offset) for offset in range(streak)]
        latest = run[-1] - timedelta(days=2)  # the day before the streak stays empty
    days = list(run)
    for _ in range(count - len(run)):
        if latest >= first:
            days.append(first + timedelta(days=rng.randint(0, (latest - first).days)))
        else:  # no room before the streak: a second session on one of its days
            days.append(rng.choice(run))
    return streak, days


def demo_session(
    user: User, day: date, rng: random.Random, now: datetime, skills: Sequence[UserSkill]
) -> StudySession:
    """Return one validated demo session on a day (before `now` on today)."""
    midnight = datetime.combine(day, time(), tzinfo=UTC)
    earliest, latest = max(midnight, user.created_at), min(midnight + timedelta(days=1), now)
    started = moment(earliest + (latest - earliest) * rng.random())
    questions = rng.randint(0, 30)
    correct = round(questions * rng.betavariate(8, 2))
    minutes = round(rng.uniform(5, 40), 2)
    held = rng.choice(skills) if skills and rng.random() < 0.8 else None
    session = StudySession(
        user.username,
        session_id_for(started, f"{rng.getrandbits(32):08x}"),
        started_at=started,
        xp=correct * 10 + 5,
        questions_answered=questions,
        questions_correct=correct,
        minutes=minutes,
        skill_id=held.skill_id if held else None,
        source="seed",
        created_at=started,
    )
    if held is not None:
        session.given_skill = held.catalog_skill()
    prepare_new(session)
    session.updated_at = started
    return session


def day_totals(sessions: Sequence[StudySession]) -> list[StudyDay]:
    """Return the study days of sessions sorted by time, as recording them would leave them."""
    by_day: dict[str, list[StudySession]] = {}
    for session in sessions:
        by_day.setdefault(session.day.isoformat(), []).append(session)
    days = []
    for day, held in by_day.items():
        item = StudyDay(
            held[0].username,
            day,
            xp=exact_sum(s.xp for s in held),
            sessions=len(held),
            minutes=exact_sum(s.minutes for s in held),
            created_at=held[0].created_at,
        )
        prepare_new(item)
        item.version, item.updated_at = len(held), held[-1].created_at
        days.append(item)
    return days


def moment(when: datetime) -> datetime:
    """Drop sub-millisecond digits, as stored times have none."""
    return when.replace(microsecond=when.microsecond // 1000 * 1000)
