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
ago (and no earlier than the learner joined) and now (a few minutes of clock drift allowed).
It is written with the day's totals and the learner's in one transaction (stats/history/models.py),
with a check that the learner is still there: in the history if and only if in the totals.
`UserStats.after_session` holds the rules; this module checks the input and the learner and
writes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.core.exceptions import ValidationError
from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from dynamo.batch import backoff_delay
from dynamo.exceptions import AlreadyExists, ConflictError
from dynamo.models import DynamoModel, utcnow
from dynamo.validators import FieldErrors, whole_number
from dynamo_admin.display import plain
from dynamo_admin.models import ADDITION, CHANGE, AdminLog
from stats.models import UserStats, accuracy_of, efficiency_of, percentage
from users.models import User, validate_username

from .models import (
    CORRECTION,
    MAX_MINUTES_PER_SESSION,
    MAX_QUESTIONS_PER_SESSION,
    MAX_XP_PER_SESSION,
    StudyDay,
    StudySession,
    session_id_for,
)

__all__ = [
    "MAX_MINUTES_PER_SESSION",
    "MAX_QUESTIONS_PER_SESSION",
    "MAX_XP_PER_SESSION",
    "accuracy_of",
    "efficiency_of",
    "percentage",
    "record_correction",
    "record_session",
    "validate_session",
]

MAX_BACKDATE = timedelta(days=365)
WRITE_ROUNDS = 12
# CancellationReason codes: a condition lost, or another transaction on an item at once.
CONDITION_FAILED, CONFLICT = "ConditionalCheckFailed", "TransactionConflict"
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


def learner_date_error(when: datetime, learner: User) -> str | None:
    """Return why a session's date does not fit its learner (before they joined), or None."""
    if learner.created_at is not None and when < learner.created_at:
        joined = learner.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M")
        return f"Cannot be before the learner joined ({joined} UTC)."
    return None


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
    skill_id: str | None = None,
    source: str = "api",
    actor: str | None = None,
    also: Callable[[UserStats, StudySession], list[DynamoModel]] | None = None,
) -> UserStats:
    """Record one study session and move the learner's totals; return the stats after it.

    The session, the day's totals, the learner's totals and (with `actor`) the history entry
    are one TransactWriteItems, the totals conditional on the version read; `also` returns
    further new items for the transaction (the API's Idempotency-Key). Raise ValidationError
    for bad input, AlreadyExists when a new item's key is taken (nothing is written then).
    """
    now = utcnow()
    validate_session(
        username, xp=xp, questions=questions, correct=correct, minutes=minutes, when=when, now=now
    )
    learner = learner_for_session(username)
    started = when or now
    if message := learner_date_error(started, learner):
        raise ValidationError({"when": message})
    session = StudySession(
        username,
        session_id_for(started),
        started_at=started.astimezone(UTC),
        xp=xp,
        questions_answered=questions,
        questions_correct=correct,
        minutes=round(float(minutes), 2),
        skill_id=skill_id or None,
        source=source,
    )
    session.full_clean()  # the skill, against the catalog
    return commit_session(session, learner, now, actor=actor, also=also)


def record_correction(username: str, *, xp: int, reason: str, actor: str) -> UserStats:
    """Correct a learner's XP by a session with a reason (source "correction"); return the stats.

    Staff never type a total: a correction is a row of the history, summed like any session
    (it counts for no session and leaves the streak), written with its History entry.
    """
    now = utcnow()
    learner = learner_for_session(username)
    session = StudySession(
        username,
        session_id_for(now),
        started_at=now,
        xp=xp,
        questions_answered=0,
        questions_correct=0,
        minutes=0,
        source=CORRECTION,
        reason=(reason or "").strip() or None,
    )
    session.full_clean()
    return commit_session(session, learner, now, actor=actor)


def commit_session(
    session: StudySession,
    learner: User,
    now: datetime,
    *,
    actor: str | None = None,
    also: Callable[[UserStats, StudySession], list[DynamoModel]] | None = None,
) -> UserStats:
    """Write a checked session with the totals it moves, retrying while the stats move."""
    username = session.username
    for attempt in range(1, WRITE_ROUNDS + 1):
        stored = UserStats.get_or_none(username, consistent_read=True)
        after = UserStats.after_session(
            stored,
            learner,
            xp=session.xp,
            questions=session.questions_answered,
            correct=session.questions_correct,
            minutes=session.minutes,
            day=session.day,
            now=now,
            counts=not session.is_correction,
        )
        if after.xp < 0:
            raise ValidationError(
                {"xp": f"Would take the learner's XP below 0 (it is {stored.xp if stored else 0})."}
            )
        news = [session]
        if actor is not None:
            news.append(history_entry(stored, after, session, actor))
        if also:
            # What the learner's stats will be once written: their version one more.
            written = UserStats.from_raw_data(after.serialize())
            written.version = (after.version or 0) + 1
            news += also(written, session)
        if write_session(news, after):
            break
        # The stats moved since they were read (another session, a reminder): read again.
        time.sleep(backoff_delay(attempt))
    else:
        raise ConflictError(f"Could not record a session for {username}: too much contention.")
    return after


def write_session(news: list[DynamoModel], after: UserStats) -> bool:
    """Put the new items and move the day's and the learner's totals, all or nothing.

    Return False when the stats changed since they were read; raise AlreadyExists when a new
    item's key is taken (a session or an Idempotency-Key recorded already).
    """
    session = news[0]
    # Any version but None makes PynamoDB ADD 1 to the stored one (no condition on it).
    day = StudyDay(session.username, session.day.isoformat(), version=0)
    connection = UserStats._get_connection().connection  # metered like every call
    try:
        with TransactWrite(connection=connection) as transaction:
            # The learner must still be there and not deleted: a hard delete claims them
            # (soft-deleted) before reading their history, so no session lands unseen.
            transaction.condition_check(
                User,
                session.username,
                condition=User.username.exists() & User.deleted_at.does_not_exist(),
            )
            for item in news:
                item.stamp()
                transaction.save(item)  # a new item: its version must not exist yet
            transaction.update(
                day,
                actions=[
                    StudyDay.xp.add(session.xp),
                    StudyDay.sessions.add(0 if session.is_correction else 1),
                    StudyDay.minutes.add(session.minutes),
                    StudyDay.created_at.set(StudyDay.created_at | session.updated_at),
                    StudyDay.updated_at.set(session.updated_at),
                ],
                add_version_condition=False,
            )
            transaction.update(after, actions=after.session_actions())
    except TransactWriteError as exc:
        reasons = [getattr(reason, "code", None) for reason in exc.cancellation_reasons or []]
        # The learner's check comes first in the request, then the puts, then the updates.
        if reasons and reasons[0] == CONDITION_FAILED:
            learner_for_session(session.username)  # names why: gone, or deleted meanwhile
            raise ConflictError(f"{session.username} is being deleted.") from exc
        for item, code in zip(news, reasons[1:], strict=False):
            if code == CONDITION_FAILED:
                raise AlreadyExists(f"The {item.verbose_name} {item} is recorded already.") from exc
        if not reasons or any(code not in (None, CONDITION_FAILED, CONFLICT) for code in reasons):
            raise
        return False  # nothing was written: the new items keep no version
    for item in news:
        item.mark_written(created=True)
    after._stored = after.serialize()
    return True


def history_entry(
    stored: UserStats | None, after: UserStats, session: StudySession, actor: str
) -> AdminLog:
    """Return the history entry of a session: the session and the totals it moved."""
    before = stored or UserStats(after.username)
    changes = {
        "session": [None, plain(session_fields(session))],
        "xp": [before.xp or 0, after.xp],
        "sessions": [before.sessions or 0, after.sessions],
    }
    action = ADDITION if stored is None else CHANGE
    return AdminLog.entry_for(after, action, actor, changes)


def session_fields(session: StudySession) -> dict[str, Any]:
    """Return what a history entry and an answer show of a session."""
    return {
        "session_id": session.session_id,
        "started_at": session.started_at,
        "xp": session.xp,
        "questions": session.questions_answered,
        "correct": session.questions_correct,
        "minutes": session.minutes,
        "skill_id": session.skill_id,
        "source": session.source,
        **({"reason": session.reason} if session.reason else {}),
    }
