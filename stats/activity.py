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

A session belongs to an existing learner who is not soft-deleted, and is dated between a year
ago and now (a few minutes of clock drift allowed). The writes themselves are methods of
`UserStats` (update expressions); this module checks the input and the learner.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError

from dynamo.models import utcnow
from dynamo.validators import FieldErrors, whole_number
from users.models import User, validate_username

from .models import UserStats, accuracy_of, efficiency_of, percentage

__all__ = ["accuracy_of", "efficiency_of", "percentage", "record_session", "validate_session"]

MAX_XP_PER_SESSION = 100_000
MAX_QUESTIONS_PER_SESSION = 10_000
MAX_MINUTES_PER_SESSION = 24 * 60
MAX_BACKDATE = timedelta(days=365)
CLOCK_DRIFT = timedelta(minutes=5)


def session_date_error(when: Any, now: datetime) -> str | None:
    """Return why a session's date is refused, or None when it is acceptable."""
    if not isinstance(when, datetime) or when.utcoffset() is None:
        return "Must be a timezone-aware date and time."
    if when > now + CLOCK_DRIFT:
        return "Cannot be in the future."
    if when < now - MAX_BACKDATE:
        return "Cannot be more than a year ago."
    return None


def validate_session(
    username: str,
    *,
    xp: Any,
    questions: Any,
    correct: Any,
    minutes: Any,
    when: Any,
    now: datetime | None = None,
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
    if when is not None and (message := session_date_error(when, now or utcnow())):
        errors.add("when", message)
    if errors:
        raise ValidationError(dict(errors))


def learner_for_session(username: str) -> User:
    """Return the learner a session is for, or raise a ValidationError on `username`."""
    learner = User.get_or_none(username, consistent_read=True)
    if learner is None:
        raise ValidationError({"username": "No learner has this username."})
    if learner.is_deleted:
        raise ValidationError(
            {"username": "This learner is deleted: restore them before recording a session."}
        )
    return learner


def record_session(
    username: str,
    *,
    xp: int,
    questions: int,
    correct: int,
    minutes: float,
    when: datetime | None = None,
) -> UserStats:
    """Add one study session to a learner's stats, creating them if needed; return the stats."""
    now = utcnow()
    validate_session(
        username, xp=xp, questions=questions, correct=correct, minutes=minutes, when=when, now=now
    )
    learner = learner_for_session(username)
    stored = UserStats.add_session(
        learner,
        xp=xp,
        questions=questions,
        correct=correct,
        minutes=round(float(minutes), 2),
        day=(when or now).astimezone(UTC).date(),
        now=now,
    )
    # A soft delete landing between the read above and the write would have its "off the
    # board" undone by this session: look again, and take the learner off if so.
    if User.get(username, consistent_read=True).is_deleted:
        UserStats.show_on_board(username, visible=False)
        stored.refresh(consistent_read=True)
    return stored
