"""Each learner's study history: the sessions, the totals of each UTC day, the named requests.

A session is written in the same TransactWriteItems as the day's totals and the learner's
running totals it moves (stats/history/recording.py), so a session is in the history if and only if
it is in the totals, and `verify_stats` can recompute every learner's totals from here.

- `study-sessions` (username; session_id): one item per session. The id is the start time
  (ISO-8601, UTC, to the millisecond) and a random suffix, so a Query reads a learner's
  sessions in chronological order and `ScanIndexForward=false` gives the newest first.
- `study-days` (username; day `YYYY-MM-DD`): XP, sessions and minutes per learner and UTC day,
  moved with ADD in the same transaction, so a year's calendar is one Query of at most 366
  small items whatever the number of sessions a day.
- `session-keys` (username; key): a client's Idempotency-Key (its SHA-256), the fingerprint of
  the request it came with and the answer given, put in the same transaction with the key
  required to be free: the same key again finds the answer instead of adding a session.
  A key lives SESSION_KEY_TTL_HOURS (24): past it, it reads as absent and the same key
  records a new session; DynamoDB TTL removes it later (`expires_at`, epoch seconds).
"""

from __future__ import annotations

import contextlib
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from pynamodb.attributes import (
    JSONAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
    UTCDateTimeAttribute,
)

from catalog.models import SKILL_ID_RE, Skill, validate_skill_id
from dynamo.exceptions import ConflictError
from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, utcnow
from dynamo.validators import FieldErrors, length_between, number_between, one_of, whole_number
from stats.models import exact_sum
from users.models import validate_username

# A correction is staff's XP adjustment with a reason: summed like a session, counted as none.
CORRECTION = "correction"
SOURCES = ("admin", "api", "seed", CORRECTION)
MAX_REASON_LENGTH = 500
MAX_XP_PER_SESSION = 100_000
MAX_QUESTIONS_PER_SESSION = 10_000
MAX_MINUTES_PER_SESSION = 24 * 60
MAX_KEY_LENGTH = 255


def session_id_for(started_at: datetime, suffix: str | None = None) -> str:
    """Return a time-ordered session id: the UTC start to the millisecond and a random suffix."""
    moment = started_at.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return f"{moment}#{suffix or secrets.token_hex(4)}"


class StartedMonthIndex(GlobalIndex):
    """Every learner's sessions of one UTC month, in time order: the admin's newest first."""

    class Meta:
        index_name = "gsi_started_month"
        projection = AllProjection()

    started_month = UnicodeAttribute(hash_key=True)
    session_id = UnicodeAttribute(range_key=True)


def month_of(moment: datetime) -> str:
    """Return the UTC month (`YYYY-MM`) a session started in."""
    return moment.astimezone(UTC).strftime("%Y-%m")


class StudySession(DynamoModel):
    """One study session of a learner, as recorded."""

    app_label = "stats"
    model_name = "studysession"
    verbose_name = "study session"

    class Meta(DynamoMeta):
        table_suffix = "study-sessions"

    username = UnicodeAttribute(hash_key=True)
    session_id = UnicodeAttribute(range_key=True)
    started_at = UTCDateTimeAttribute()
    xp = NumberAttribute(default=0)
    questions_answered = NumberAttribute(default=0)
    questions_correct = NumberAttribute(default=0)
    minutes = NumberAttribute()
    skill_id = UnicodeAttribute(null=True)  # a catalog skill, checked like a user-skill's
    source = UnicodeAttribute()  # admin, api, seed or correction
    reason = UnicodeAttribute(null=True)  # why staff corrected the XP (corrections only)
    # Derived in clean() from started_at: the partition of gsi_started_month.
    started_month = UnicodeAttribute(null=True)

    gsi_started_month = StartedMonthIndex()

    # The catalog skill a batch path already holds (seed), so clean() need not read it.
    given_skill: Skill | None = None

    @property
    def is_correction(self) -> bool:
        """Return whether this is staff's correction rather than a study session."""
        return self.source == CORRECTION

    @property
    def day(self) -> date:
        """The UTC day the session counts for."""
        return self.started_at.astimezone(UTC).date()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("username", self.username):
            errors.check("username", validate_username, self.username)
        errors.require("session_id", self.session_id)
        errors.require("started_at", self.started_at)
        if self.is_correction:
            return self.correction_errors(errors)
        errors.check("xp", whole_number(0, MAX_XP_PER_SESSION), self.xp)
        for name in ("questions_answered", "questions_correct"):
            errors.check(name, whole_number(0, MAX_QUESTIONS_PER_SESSION), getattr(self, name))
        if (
            "questions_answered" not in errors
            and "questions_correct" not in errors
            and self.questions_correct > self.questions_answered
        ):
            errors.add("questions_correct", "Cannot exceed the questions answered.")
        errors.check("minutes", number_between(0, MAX_MINUTES_PER_SESSION), self.minutes)
        if "minutes" not in errors and not self.minutes > 0:
            errors.add("minutes", "Must be more than 0.")
        if self.skill_id is not None:
            errors.check("skill_id", validate_skill_id, self.skill_id)
        if errors.require("source", self.source):
            errors.check("source", one_of(SOURCES), self.source)
        if self.reason is not None:
            errors.add("reason", "Only a correction carries a reason.")
        return errors

    def correction_errors(self, errors: FieldErrors) -> FieldErrors:
        """A correction moves XP only, by a whole number other than 0, and says why."""
        errors.check("xp", whole_number(-MAX_XP_PER_SESSION, MAX_XP_PER_SESSION), self.xp)
        if "xp" not in errors and self.xp == 0:
            errors.add("xp", "A correction of 0 XP changes nothing.")
        for name in ("questions_answered", "questions_correct", "minutes"):
            if getattr(self, name):
                errors.add(name, "A correction moves XP only.")
        if errors.require("reason", self.reason):
            errors.check("reason", length_between(1, MAX_REASON_LENGTH), self.reason)
        return errors

    def clean(self) -> None:
        """Derive the month; a session's skill must be a catalog skill not being removed."""
        if isinstance(self.started_at, datetime):
            self.started_month = month_of(self.started_at)
        if self.skill_id is None or not SKILL_ID_RE.fullmatch(self.skill_id):
            return
        skill = self.given_skill
        if skill is None or skill.skill_id != self.skill_id:
            skill = Skill.get_or_none(self.skill_id)
        if skill is None:
            raise ValidationError({"skill_id": [f"No catalog skill {self.skill_id!r}."]})
        if skill.is_being_removed:
            raise ValidationError(
                {"skill_id": [f"“{skill.name}” is being removed from the catalog."]}
            )

    @classmethod
    def newest_first(
        cls, username: str, *, limit: int, last_evaluated_key: dict[str, Any] | None = None
    ):
        """Return one page of a learner's sessions, newest first (one Query)."""
        return cls.query(
            username,
            scan_index_forward=False,
            limit=limit,
            page_size=limit,
            last_evaluated_key=last_evaluated_key,
        )


class StudyDay(DynamoModel):
    """A learner's totals of one UTC day: XP, sessions and minutes."""

    app_label = "stats"
    model_name = "studyday"
    verbose_name = "study day"

    class Meta(DynamoMeta):
        table_suffix = "study-days"

    username = UnicodeAttribute(hash_key=True)
    day = UnicodeAttribute(range_key=True)  # YYYY-MM-DD, UTC
    xp = NumberAttribute(default=0)
    sessions = NumberAttribute(default=0)
    minutes = NumberAttribute(default=0)

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("username", self.username):
            errors.check("username", validate_username, self.username)
        if errors.require("day", self.day):
            try:
                date.fromisoformat(self.day)
            except (TypeError, ValueError):
                errors.add("day", "Enter a date as YYYY-MM-DD.")
        errors.check("xp", whole_number(0), self.xp)
        errors.check("sessions", whole_number(0), self.sessions)
        if self.minutes is None or self.minutes < 0:
            errors.add("minutes", "Must be 0 or more.")
        return errors

    @classmethod
    def mend(cls, username: str, day: str, stored: StudyDay | None, wanted: Any) -> bool:
        """Write a day's totals as its sessions give them, if unchanged since read; False if not.

        `wanted` is a `DayTotals`, None for a day no session falls on (deleted). Each is conditional
        on the version read (a session moves it), or on the day being absent still.
        """
        if stored is None:
            condition = cls.day.does_not_exist()
        elif stored.version is None:
            condition = cls.version.does_not_exist()
        else:
            condition = cls.version == stored.version
        if wanted is None:
            if stored is None:
                return True
            try:
                stored.delete(condition=condition, add_version_condition=False)
            except ConflictError:
                return False
            return True
        now = utcnow()
        actions = [
            cls.xp.set(wanted.xp),
            cls.sessions.set(wanted.sessions),
            cls.minutes.set(wanted.minutes),
            cls.created_at.set(cls.created_at | now),
            cls.updated_at.set(now),
        ]
        return cls.apply(username, actions, condition, range_key=day) is not None

    @classmethod
    def since(cls, username: str, first_day: date):
        """Return a learner's days from `first_day` on, oldest first (one Query)."""
        return cls.query(username, range_key_condition=cls.day >= first_day.isoformat())


class SessionKey(DynamoModel):
    """A client's Idempotency-Key for a recorded session, with the request and the answer."""

    app_label = "stats"
    model_name = "sessionkey"
    verbose_name = "session key"

    class Meta(DynamoMeta):
        table_suffix = "session-keys"

    username = UnicodeAttribute(hash_key=True)
    # SHA-256 of the caller (the token's owner) and the header: any header value fits.
    key = UnicodeAttribute(range_key=True)
    fingerprint = UnicodeAttribute()  # SHA-256 of the request the key first came with
    session_id = UnicodeAttribute(null=True)
    answer = JSONAttribute(null=True)  # what the first call answered: status, body, etag
    # Epoch seconds: DynamoDB TTL deletes the key some time (up to days) after it.
    expires_at = TTLAttribute(null=True)

    @staticmethod
    def digest(text: str) -> str:
        """Return the SHA-256 hex digest of a text."""
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def stamp(self) -> None:
        super().stamp()
        if self.expires_at is None:
            self.expires_at = self.created_at + timedelta(hours=settings.SESSION_KEY_TTL_HOURS)

    def has_expired(self, now: datetime) -> bool:
        """Return whether the key is past its expiry (TTL may not have deleted it yet)."""
        return self.expires_at is not None and self.expires_at <= now

    @classmethod
    def live(cls, username: str, key: str, now: datetime | None = None) -> SessionKey | None:
        """Return the stored key unless absent or expired; an expired one is deleted first.

        Deleted on the expiry read, so the retry's new key can be put (a new key must be free).
        """
        named = cls.get_or_none(username, key, consistent_read=True)
        if named is None or not named.has_expired(now or utcnow()):
            return named
        # Another retry may have deleted it first, or put its own: the put then decides.
        with contextlib.suppress(ConflictError):
            named.delete(condition=cls.expires_at == named.expires_at, add_version_condition=False)
        return None


@dataclass(frozen=True)
class Totals:
    """The running totals a learner's history adds up to."""

    xp: float = 0
    questions_answered: float = 0
    questions_correct: float = 0
    minutes_studied: float = 0
    sessions: int = 0

    @classmethod
    def of(cls, sessions: Iterable[StudySession]) -> Totals:
        """Add up sessions exactly (decimal arithmetic, as DynamoDB's ADD)."""
        items = list(sessions)
        return cls(
            xp=exact_sum(s.xp for s in items),
            questions_answered=exact_sum(s.questions_answered for s in items),
            questions_correct=exact_sum(s.questions_correct for s in items),
            minutes_studied=exact_sum(s.minutes for s in items),
            sessions=sum(1 for s in items if not s.is_correction),
        )

    @classmethod
    def stored_in(cls, stats: Any) -> Totals:
        """Return the totals a stats item holds."""
        return cls(
            xp=stats.xp or 0,
            questions_answered=stats.questions_answered or 0,
            questions_correct=stats.questions_correct or 0,
            minutes_studied=stats.minutes_studied or 0,
            sessions=int(stats.sessions or 0),
        )


@dataclass(frozen=True)
class DayTotals:
    """What one UTC day's sessions add up to: a study day's XP, sessions and minutes."""

    xp: float = 0
    sessions: int = 0
    minutes: float = 0

    FIELDS = ("xp", "sessions", "minutes")

    @classmethod
    def by_day(cls, sessions: Iterable[StudySession]) -> dict[str, DayTotals]:
        """Return {YYYY-MM-DD: totals} of the days the sessions fall on (exact sums)."""
        days: dict[str, list[StudySession]] = {}
        for session in sessions:
            days.setdefault(session.day.isoformat(), []).append(session)
        return {
            day: cls(
                xp=exact_sum(s.xp for s in items),
                sessions=sum(1 for s in items if not s.is_correction),
                minutes=exact_sum(s.minutes for s in items),
            )
            for day, items in days.items()
        }

    @classmethod
    def stored_in(cls, day: StudyDay | None) -> DayTotals:
        """Return the totals a study day holds (zero for a day not stored)."""
        if day is None:
            return cls()
        return cls(xp=day.xp or 0, sessions=int(day.sessions or 0), minutes=day.minutes or 0)


def history_of(username: str) -> list[StudySession]:
    """Return every session of a learner, oldest first (paged Queries, for commands)."""
    return list(StudySession.query(username, consistent_read=True))
