"""Record a study session: running totals with ADD, the streak with conditional SETs.

Definitions (the README quotes them):

- xp: the sum of the XP of every recorded session.
- accuracy: 100 * questions_correct / questions_answered over every session, rounded half up
  to one decimal; 0 while no question was answered.
- efficiency: correct answers per minute of study against a pace of two a minute,
  100 * questions_correct / (2 * minutes_studied), capped at 100, rounded half up to one
  decimal; 0 while no time was recorded.
- streak: the number of consecutive UTC days, ending on the user's last active day, with at
  least one session. A session on the same day keeps it, on the next day adds one, after a
  gap of a day or more starts it again at 1. A session dated before the last active day
  (a late back-dated record) leaves the streak alone.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.core.exceptions import ValidationError
from pynamodb.constants import ALL_NEW
from pynamodb.exceptions import UpdateError

from dynamo.models import CONDITION_FAILED, utcnow
from dynamo.validators import FieldErrors, whole_number
from users.models import User, validate_username

from .models import UserStats, leaderboard_partition_for

TARGET_CORRECT_PER_MINUTE = 2
MAX_XP_PER_SESSION = 100_000
MAX_QUESTIONS_PER_SESSION = 10_000
MAX_MINUTES_PER_SESSION = 24 * 60
STREAK_ROUNDS = 3


def percentage(part: float, whole: float) -> float:
    """Return 100 * part / whole rounded half up to one decimal, capped at 100; 0 if whole is 0."""
    if not whole:
        return 0.0
    value = min(Decimal(100), Decimal(100) * Decimal(str(part)) / Decimal(str(whole)))
    return float(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def accuracy_of(questions_answered: float, questions_correct: float) -> float:
    """Return the accuracy for running totals."""
    return percentage(questions_correct, questions_answered)


def efficiency_of(questions_correct: float, minutes_studied: float) -> float:
    """Return the efficiency for running totals."""
    return percentage(questions_correct, TARGET_CORRECT_PER_MINUTE * minutes_studied)


def validate_session(
    username: str, *, xp: Any, questions: Any, correct: Any, minutes: Any, when: Any
) -> None:
    """Raise a ValidationError naming every bad input of a session."""
    errors = FieldErrors()
    if errors.require("username", username):
        errors.check("username", validate_username, username)
    errors.check("xp", whole_number(0, MAX_XP_PER_SESSION), xp)
    errors.check("questions", whole_number(0, MAX_QUESTIONS_PER_SESSION), questions)
    errors.check("correct", whole_number(0, MAX_QUESTIONS_PER_SESSION), correct)
    if "questions" not in errors and "correct" not in errors and correct > questions:
        errors.add("correct", "Cannot exceed the questions answered.")
    if isinstance(minutes, bool) or not isinstance(minutes, int | float):
        errors.add("minutes", "Must be a number.")
    elif not 0 < minutes <= MAX_MINUTES_PER_SESSION:
        errors.add("minutes", f"Must be more than 0 and at most {MAX_MINUTES_PER_SESSION}.")
    if when is not None and (not isinstance(when, datetime) or when.utcoffset() is None):
        errors.add("when", "Must be a timezone-aware datetime.")
    if errors:
        raise ValidationError(dict(errors))


def record_session(
    username: str,
    *,
    xp: int,
    questions: int,
    correct: int,
    minutes: float,
    when: datetime | None = None,
) -> UserStats:
    """Add one study session to a user's stats, creating them if needed; return the stats.

    The totals, xp and version move with ADD in a single conditional UpdateItem whose
    condition picks the streak rule (same day, next day, after a gap), so concurrent
    sessions never lose one another. accuracy and efficiency cannot be divided inside an
    update expression: a new item gets the session's own values in that same update, an
    existing one gets them from the returned totals by a second UpdateItem guarded by those
    totals, so a stale value never overwrites a fresher one.
    """
    validate_session(
        username, xp=xp, questions=questions, correct=correct, minutes=minutes, when=when
    )
    now = utcnow()
    minutes = round(float(minutes), 2)
    day = (when or now).astimezone(UTC).date()
    today, yesterday = day.isoformat(), (day - timedelta(days=1)).isoformat()

    s = UserStats
    common = [
        s.xp.add(xp),
        s.questions_answered.add(questions),
        s.questions_correct.add(correct),
        s.minutes_studied.add(minutes),
        s.sessions.add(1),
        s.version.add(1),
        s.created_at.set(s.created_at | now),
        s.updated_at.set(now),
        s.leaderboard_partition.set(leaderboard_partition_for(username)),
        # Right for a new item; an existing one is corrected below from the new totals.
        s.accuracy.set(s.accuracy | accuracy_of(questions, correct)),
        s.efficiency.set(s.efficiency | efficiency_of(correct, minutes)),
    ]
    rules = [
        ([], s.last_active_day >= today),
        (
            [s.streak.set((s.streak | 0) + 1), s.last_active_day.set(today)],
            s.last_active_day == yesterday,
        ),
        (
            [s.streak.set(1), s.last_active_day.set(today)],
            s.last_active_day.does_not_exist() | (s.last_active_day < yesterday),
        ),
    ]
    stored = _first_applicable(username, common, rules)
    if (stored.accuracy, stored.efficiency) != derived_of(stored):
        stored = _refresh_derived(stored) or stored
    if stored.name is None:  # the learner's first stats: copy the name the boards show
        stored = _copy_name(stored) or stored
    return stored


def _copy_name(stored: UserStats) -> UserStats | None:
    learner = User.get_or_none(stored.username)
    if learner is None:
        return None
    s = UserStats
    return conditional_update(
        stored.username, [s.name.set(learner.name), s.version.add(1)], s.name.does_not_exist()
    )


def derived_of(stats: UserStats) -> tuple[float, float]:
    """Return the accuracy and efficiency the stored totals call for."""
    return (
        accuracy_of(stats.questions_answered, stats.questions_correct),
        efficiency_of(stats.questions_correct, stats.minutes_studied),
    )


def conditional_update(username: str, actions: list, condition) -> UserStats | None:
    """Apply one UpdateItem; return the stored item, or None when the condition failed."""
    try:
        data = UserStats._get_connection().update_item(
            username, actions=actions, condition=condition, return_values=ALL_NEW
        )
    except UpdateError as exc:
        if getattr(exc, "cause_response_code", None) == CONDITION_FAILED:
            return None
        raise
    return UserStats.from_raw_data(data["Attributes"])


def _first_applicable(username: str, common: list, rules: list) -> UserStats:
    # The rules cover every state of last_active_day; a concurrent session can move it
    # between two attempts, so go round again a few times before giving up.
    for _ in range(STREAK_ROUNDS):
        for streak_actions, condition in rules:
            stored = conditional_update(username, common + streak_actions, condition)
            if stored is not None:
                return stored
    raise UpdateError(f"Could not record a session for {username}: too much contention.")


def _refresh_derived(stored: UserStats) -> UserStats | None:
    s = UserStats
    accuracy, efficiency = derived_of(stored)
    return conditional_update(
        stored.username,
        [
            s.accuracy.set(accuracy),
            s.efficiency.set(efficiency),
            s.version.add(1),
        ],
        (s.questions_answered == stored.questions_answered)
        & (s.questions_correct == stored.questions_correct)
        & (s.minutes_studied == stored.minutes_studied),
    )
