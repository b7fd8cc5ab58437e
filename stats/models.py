"""Each learner's statistics: XP, streak, efficiency, accuracy and the next reminder."""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext, ngettext
from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.expressions.update import Action

from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, client_for, utcnow
from dynamo.validators import FieldErrors, number_between, whole_number
from users.models import User, validate_username

METRICS = ("xp", "streak", "efficiency", "accuracy")
BUCKET_FORMAT = "%Y-%m-%d-%H"
TARGET_CORRECT_PER_MINUTE = 2


def percentage(part: float, whole: float) -> float:
    """Return 100 * part / whole rounded half up to one decimal, capped at 100; 0 if whole is 0."""
    if not whole:
        return 0.0
    value = min(Decimal(100), Decimal(100) * Decimal(str(part)) / Decimal(str(whole)))
    return float(value.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def exact_sum(values: Iterable[float]) -> float:
    """Add numbers as DynamoDB does (decimal, not binary floating point)."""
    total = sum((Decimal(str(value)) for value in values), Decimal(0))
    return float(total) if total != int(total) else int(total)


def accuracy_of(questions_answered: float, questions_correct: float) -> float:
    """Return the accuracy for running totals (defined in stats/history/recording.py)."""
    return percentage(questions_correct, questions_answered)


def efficiency_of(questions_correct: float, minutes_studied: float) -> float:
    """Return the efficiency for running totals (defined in stats/history/recording.py)."""
    return percentage(questions_correct, TARGET_CORRECT_PER_MINUTE * minutes_studied)


def leaderboard_partition_for(username: str, shards: int | None = None) -> str:
    """Return the leaderboard partition of a user: `ALL`, or `ALL#k` with k a stable hash."""
    shards = settings.LEADERBOARD_SHARDS if shards is None else shards
    if shards <= 1:
        return "ALL"
    return f"ALL#{zlib.crc32(username.encode('utf-8')) % shards}"


def leaderboard_partitions(shards: int | None = None) -> list[str]:
    """Return every leaderboard partition for a shard count."""
    shards = settings.LEADERBOARD_SHARDS if shards is None else shards
    return ["ALL"] if shards <= 1 else [f"ALL#{k}" for k in range(shards)]


def legacy_item(key: str) -> dict[str, Any] | None:
    """Return a bookkeeping item an earlier release kept in user-stats (raw), or None."""
    return (
        client_for(UserStats)
        .get_item(
            TableName=UserStats.Meta.table_name,
            Key={"username": {"S": key}},
            ConsistentRead=True,
        )
        .get("Item")
    )


def forget_legacy_item(key: str) -> None:
    """Delete a bookkeeping item an earlier release kept in user-stats, once moved."""
    client_for(UserStats).delete_item(
        TableName=UserStats.Meta.table_name, Key={"username": {"S": key}}
    )


def reminder_bucket(when: datetime) -> str:
    """Return the UTC hour bucket (`YYYY-MM-DD-HH`) a reminder time falls in."""
    return when.astimezone(UTC).strftime(BUCKET_FORMAT)


class LeaderboardIndex(GlobalIndex):
    """A leaderboard partition sorted by one metric, ties by username."""

    class Meta:
        projection = AllProjection()

    leaderboard_partition = UnicodeAttribute(hash_key=True)


def leaderboard_index(metric: str) -> LeaderboardIndex:
    """Return the index `gsi_leaderboard_<metric>`: (leaderboard_partition; metric, username)."""
    meta = type(
        "Meta", (), {"index_name": f"gsi_leaderboard_{metric}", "projection": AllProjection()}
    )
    index_class = type(
        f"{metric.title()}LeaderboardIndex",
        (LeaderboardIndex,),
        {
            "__module__": __name__,
            "__doc__": f"Learners of one leaderboard partition by {metric}, ties by username.",
            "Meta": meta,
            metric: NumberAttribute(range_key=True),  # declared first: the first sort attribute
            "username": UnicodeAttribute(range_key=True),
        },
    )
    return index_class()


class ReminderIndex(GlobalIndex):
    """Users whose next reminder falls in one UTC hour, soonest first (sparse)."""

    class Meta:
        index_name = "gsi_user_stats_reminders"
        projection = AllProjection()

    next_reminder_bucket = UnicodeAttribute(hash_key=True)
    next_reminder_at = UTCDateTimeAttribute(range_key=True)


class StreakExpiryIndex(GlobalIndex):
    """Learners whose streak breaks on one UTC day, unless they study first (sparse)."""

    class Meta:
        index_name = "gsi_streak_expires_on"
        projection = AllProjection()

    streak_expires_on = UnicodeAttribute(hash_key=True)


def bad_username(username: str) -> bool:
    """Return whether a username breaks the username rule (reserved keys included)."""
    try:
        validate_username(username)
    except ValidationError:
        return True
    return False


def streak_expiry(last_active_day: str | None, streak: float | None) -> str | None:
    """Return the day a streak breaks if no session comes first: two days after the last."""
    if not last_active_day or not streak:
        return None
    return (date.fromisoformat(last_active_day) + timedelta(days=2)).isoformat()


class UserStats(DynamoModel):
    """A learner's running statistics and reminder schedule."""

    app_label = "stats"
    model_name = "userstats"
    verbose_name = "user stats"
    verbose_name_plural = "user stats"
    field_labels = {"xp": "XP"}

    class Meta(DynamoMeta):
        table_suffix = "user-stats"
        # Score changes reach the rank tiers through this stream (stats/boards/upkeep.py): in
        # AWS by this Lambda, which reads and moves the tier counts and checkpoints in jobs...
        stream_view_type = "NEW_AND_OLD_IMAGES"
        stream_handler = "stats.boards.lambda_function.handler"
        stream_handler_grants = {"jobs": ("BatchGetItem", "GetItem", "UpdateItem")}
        # ...and this one, once a minute, says when they hold every change (pages read it).
        stream_watcher = "stats.boards.lambda_function.watcher"
        stream_watcher_grants = {"jobs": ("BatchGetItem", "UpdateItem")}

    username = UnicodeAttribute(hash_key=True)
    # The learner's display name, copied from users (kept in sync when it changes) so a
    # leaderboard page is one Query per shard with no second read for names.
    name = UnicodeAttribute(null=True)
    xp = NumberAttribute(default=0)
    streak = NumberAttribute(default=0)
    efficiency = NumberAttribute(default=0)
    accuracy = NumberAttribute(default=0)
    leaderboard_partition = UnicodeAttribute(null=True)
    next_reminder_bucket = UnicodeAttribute(null=True)
    next_reminder_at = UTCDateTimeAttribute(null=True)
    last_reminded_at = UTCDateTimeAttribute(null=True)
    # Running totals behind the metrics (see stats/history/recording.py: the definitions).
    questions_answered = NumberAttribute(default=0)
    questions_correct = NumberAttribute(default=0)
    minutes_studied = NumberAttribute(default=0)
    sessions = NumberAttribute(default=0)
    last_active_day = UnicodeAttribute(null=True)  # YYYY-MM-DD, UTC
    # The day the streak breaks unless a session comes first (absent without a streak):
    # `expire_streaks` reads it through gsi_streak_expires_on, one day at a time.
    streak_expires_on = UnicodeAttribute(null=True)  # YYYY-MM-DD, UTC
    # Reminder delivery (see stats/reminders/sending.py): chosen hour, claim lease, retries.
    reminder_hour = NumberAttribute(null=True)  # 0-23, UTC
    reminder_claim = UnicodeAttribute(null=True)
    reminder_lease_until = UTCDateTimeAttribute(null=True)
    reminder_attempts = NumberAttribute(default=0)
    last_reminder_error = UnicodeAttribute(null=True)

    gsi_leaderboard_xp = leaderboard_index("xp")
    gsi_leaderboard_streak = leaderboard_index("streak")
    gsi_leaderboard_efficiency = leaderboard_index("efficiency")
    gsi_leaderboard_accuracy = leaderboard_index("accuracy")
    gsi_user_stats_reminders = ReminderIndex()
    gsi_streak_expires_on = StreakExpiryIndex()

    # History says a recorded session in a sentence (history_message), not as its stored map.
    history_message_fields = ("session",)

    @classmethod
    def history_message(cls, changes: dict[str, Any]) -> str | None:
        """Return a recorded session's History message, None for any other change."""
        if "session" not in changes:
            return None
        session = changes["session"][1]
        if not isinstance(session, dict):  # values forgotten or hidden from this reader
            return gettext("Recorded a session.")
        xp, minutes, questions, correct = (
            int(float(session.get(name) or 0)) for name in ("xp", "minutes", "questions", "correct")
        )
        return gettext("Recorded a session: %(xp)s, %(right)s, %(minutes)s") % {
            "xp": ngettext("%(count)s XP", "%(count)s XP", xp) % {"count": xp},
            "right": ngettext(
                "%(correct)s of %(count)s right", "%(correct)s of %(count)s right", questions
            )
            % {"correct": correct, "count": questions},
            "minutes": ngettext("%(count)s minute", "%(count)s minutes", minutes)
            % {"count": minutes},
        }

    @classmethod
    def leaderboard_index(cls, metric: str) -> LeaderboardIndex:
        """Return the index that ranks users by a metric."""
        if metric not in METRICS:
            raise ValueError(f"Unknown metric {metric!r}: choose one of {', '.join(METRICS)}.")
        return getattr(cls, f"gsi_leaderboard_{metric}")

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        # A username rule keeps reserved keys (`#...`) out of the table on every write path.
        if errors.require("username", self.username):
            errors.check("username", validate_username, self.username)
            if self.learner_error and "username" not in errors:
                errors.add("username", self.learner_error)
        for name in ("xp", "streak", "questions_answered", "questions_correct", "sessions"):
            if errors.require(name, getattr(self, name)):
                errors.check(name, whole_number(0), getattr(self, name))
        for name in ("efficiency", "accuracy"):
            if errors.require(name, getattr(self, name)):
                errors.check(name, number_between(0, 100), getattr(self, name))
        answered, correct = self.questions_answered, self.questions_correct
        if answered is not None and correct is not None and correct > answered:
            errors.add("questions_correct", "Cannot exceed the questions answered.")
        if self.minutes_studied is not None and self.minutes_studied < 0:
            errors.add("minutes_studied", "Must be 0 or more.")
        if not errors:  # the percentages are what the totals give, as sessions keep them
            accuracy, efficiency = self.derived_metrics()
            if self.accuracy != accuracy:
                errors.add(
                    "accuracy",
                    f"Must be {accuracy:g}, what {answered:g} answered and {correct:g} right give.",
                )
            if self.efficiency != efficiency:
                errors.add(
                    "efficiency",
                    f"Must be {efficiency:g}, what {correct:g} right in "
                    f"{self.minutes_studied:g} minutes give.",
                )
        if self.reminder_hour is not None:
            errors.check("reminder_hour", whole_number(0, 23), self.reminder_hour)
        return errors

    # The learner new stats are for, when the caller has it at hand (seed): saves a read.
    learner: User | None = None
    # Why clean() found no live learner for new stats; field_errors() reports it.
    learner_error: str | None = None

    def clean(self) -> None:
        """Keep the reminder's bucket and the streak's expiry in sync; new stats need a learner."""
        self.schedule_reminder(self.next_reminder_at)
        try:
            expires = streak_expiry(self.last_active_day, self.streak)
        except (TypeError, ValueError):
            raise ValidationError({"last_active_day": "Enter a date as YYYY-MM-DD."}) from None
        # An expiry already past goes under today, which every expire_streaks run reads:
        # a streak saved whole that its last active day no longer holds breaks within the hour.
        today = utcnow().date().isoformat()
        self.streak_expires_on = None if expires is None else max(expires, today)
        self.learner_error = None
        if self.version is not None or not self.username or bad_username(self.username):
            return  # existing stats were checked when made; a bad key has its own message
        learner = self.learner
        if learner is None or learner.username != self.username:
            learner = User.get_or_none(self.username, consistent_read=True)
        if learner is None:
            self.learner_error = "No learner has this username."
        elif learner.is_deleted:
            self.learner_error = "This learner is deleted: restore them before adding stats."
        else:
            self.name = learner.name

    def stamp(self) -> None:
        super().stamp()
        if self.version is None or self.leaderboard_partition is not None:
            # A learner taken off the board (soft-deleted) stays off when edited.
            self.leaderboard_partition = leaderboard_partition_for(self.username)

    def schedule_reminder(self, when: datetime | None) -> None:
        """Set the next reminder time and its hour bucket (None removes the reminder)."""
        self.next_reminder_at = when
        self.next_reminder_bucket = None if when is None else reminder_bucket(when)

    # --- writes by update expression -------------------------------------------------------
    # Every write below is one conditional UpdateItem (DynamoModel.apply) that bumps `version`,
    # so a stale admin edit made before it is refused rather than overwriting it.
    def derived_metrics(self) -> tuple[float, float]:
        """Return the accuracy and efficiency the stored totals call for."""
        return (
            accuracy_of(self.questions_answered or 0, self.questions_correct or 0),
            efficiency_of(self.questions_correct or 0, self.minutes_studied or 0),
        )

    # Attributes a recorded session sets: the running totals, the streak, the board's copies.
    SESSION_ATTRIBUTES = (
        "xp",
        "questions_answered",
        "questions_correct",
        "minutes_studied",
        "sessions",
        "accuracy",
        "efficiency",
        "streak",
        "last_active_day",
        "streak_expires_on",
        "leaderboard_partition",
        "name",
        "created_at",
        "updated_at",
    )

    @classmethod
    def after_session(
        cls,
        stored: UserStats | None,
        learner: User,
        *,
        xp: int,
        questions: int,
        correct: int,
        minutes: float,
        day: date,
        now: datetime,
        counts: bool = True,
    ) -> UserStats:
        """Return the stats as one more session leaves them (the stored item's version kept).

        The totals add up exactly (decimal, as DynamoDB's ADD); accuracy and efficiency follow
        the new totals; the streak: a session on or before the last active day leaves it, on
        the next day adds one, after a gap starts it at 1, and a back-dated day whose streak
        has broken since counts with none. A correction (`counts` False) moves the sums but
        is no session: the count and the streak stay. The caller writes it conditional on the
        version.
        """
        after = cls(learner.username) if stored is None else cls.from_raw_data(stored.serialize())
        after.xp = exact_sum([after.xp or 0, xp])
        after.questions_answered = exact_sum([after.questions_answered or 0, questions])
        after.questions_correct = exact_sum([after.questions_correct or 0, correct])
        after.minutes_studied = exact_sum([after.minutes_studied or 0, minutes])
        after.sessions = int(after.sessions or 0) + int(counts)
        after.accuracy, after.efficiency = after.derived_metrics()
        today, yesterday = day.isoformat(), (day - timedelta(days=1)).isoformat()
        expires = (day + timedelta(days=2)).isoformat()
        last = after.last_active_day
        if not counts or (last is not None and last >= today):
            pass  # a correction, the same day, or a late back-dated record: the streak stays
        elif expires <= now.date().isoformat():
            after.streak, after.last_active_day, after.streak_expires_on = 0, today, None
        else:
            after.streak = int(after.streak or 0) + 1 if last == yesterday else 1
            after.last_active_day, after.streak_expires_on = today, expires
        # A soft-deleted learner's board copy stays off; record_session refuses them anyway.
        after.leaderboard_partition = leaderboard_partition_for(learner.username)
        after.name = after.name or learner.name
        after.created_at = after.created_at or now
        after.updated_at = now
        return after

    def session_actions(self) -> list:
        """Return the update actions writing the attributes after_session() set."""
        cls = type(self)
        actions = []
        for name in self.SESSION_ATTRIBUTES:
            attribute, value = getattr(cls, name), getattr(self, name)
            actions.append(attribute.remove() if value is None else attribute.set(value))
        return actions

    def mend_totals(self, totals: Any) -> bool:
        """Rewrite the totals (and the metrics they give) if unchanged since read; False if not.

        `totals` is a `stats.history.models.Totals`, what the learner's history adds up to.
        """
        cls = type(self)
        mended = cls(
            self.username,
            questions_answered=totals.questions_answered,
            questions_correct=totals.questions_correct,
            minutes_studied=totals.minutes_studied,
        )
        accuracy, efficiency = mended.derived_metrics()
        actions = [
            cls.xp.set(totals.xp),
            cls.questions_answered.set(totals.questions_answered),
            cls.questions_correct.set(totals.questions_correct),
            cls.minutes_studied.set(totals.minutes_studied),
            cls.sessions.set(totals.sessions),
            cls.accuracy.set(accuracy),
            cls.efficiency.set(efficiency),
            cls.updated_at.set(utcnow()),
        ]
        return cls.apply(self.username, actions, cls.version == self.version) is not None

    @classmethod
    def name_copied_from(cls, learner: User, *, keep_stored: bool = False):
        """Return the update action copying the learner's name (the one place it is copied).

        `keep_stored` leaves a name already there: a session must not undo a rename that
        the `renamed` receiver wrote after the session read the learner.
        """
        if keep_stored:
            return cls.name.set(cls.name | learner.name)
        return cls.name.set(learner.name)

    @classmethod
    def copy_name(cls, learner: User) -> bool:
        """Rewrite the name the boards show; False while the learner has no stats.

        A copy nobody edits keeps `version`: a learner's page opened before the rename still
        saves the stats (its write reads them again, new name included).
        """
        actions = [cls.name_copied_from(learner)]
        condition = cls.username.exists()
        return cls.apply(learner.username, actions, condition, bump_version=False) is not None

    @classmethod
    def show_on_board(cls, username: str, *, visible: bool) -> bool:
        """Put a learner on the leaderboard indexes or take them off; return whether it changed."""
        if visible:
            actions = [cls.leaderboard_partition.set(leaderboard_partition_for(username))]
            condition = cls.username.exists() & cls.leaderboard_partition.does_not_exist()
        else:
            actions = [cls.leaderboard_partition.remove()]
            condition = cls.leaderboard_partition.exists()
        return cls.apply(username, actions, condition) is not None

    @classmethod
    def move_to_partition(cls, username: str, partition: str) -> bool:
        """Move a listed learner to another leaderboard shard; False if there or unlisted."""
        condition = cls.leaderboard_partition.exists() & (cls.leaderboard_partition != partition)
        return (
            cls.apply(username, [cls.leaderboard_partition.set(partition)], condition) is not None
        )

    def break_streak(self) -> bool:
        """Set the streak to 0 unless a session moved the last active day since it was read."""
        cls = type(self)
        done = cls.apply(
            self.username,
            [cls.streak.set(0), cls.streak_expires_on.remove()],
            (cls.last_active_day == self.last_active_day)
            & (cls.streak_expires_on == self.streak_expires_on),
        )
        return done is not None

    def give_streak_an_expiry(self, today: str) -> bool:
        """Index a streak stored before expiries existed; one no session day holds goes to 0."""
        cls = type(self)
        unchanged = cls.streak_expires_on.does_not_exist() & (cls.streak == self.streak)
        if self.last_active_day:
            unchanged &= cls.last_active_day == self.last_active_day
            expires = max(streak_expiry(self.last_active_day, self.streak), today)
            actions = [cls.streak_expires_on.set(expires)]
        else:
            unchanged &= cls.last_active_day.does_not_exist()
            actions = [cls.streak.set(0)]
        return cls.apply(self.username, actions, unchanged) is not None

    # --- reminder delivery (see stats/reminders/sending.py) ---------------------------------------
    def claim_reminder(self, token: str, now: datetime, lease: timedelta) -> UserStats | None:
        """Take the reminder for a run unless it moved on or a live lease holds it."""
        cls = type(self)
        return cls.apply(
            self.username,
            [cls.reminder_claim.set(token), cls.reminder_lease_until.set(now + lease)],
            (cls.next_reminder_at == self.next_reminder_at)
            & (cls.reminder_lease_until.does_not_exist() | (cls.reminder_lease_until < now)),
        )

    def settle_reminder(self, token: str, when: datetime | None, *also: Action) -> bool:
        """Set the next reminder to `when` (None: none) and clear the claim; False if lost."""
        cls = type(self)
        actions = [
            *cls.next_reminder_actions(when),
            *also,
            cls.reminder_claim.remove(),
            cls.reminder_lease_until.remove(),
        ]
        return cls.apply(self.username, actions, cls.reminder_claim == token) is not None

    @classmethod
    def next_reminder_actions(cls, when: datetime | None) -> list[Action]:
        """Return the actions setting the next reminder and its hour bucket (None removes it)."""
        if when is None:
            return [cls.next_reminder_at.remove(), cls.next_reminder_bucket.remove()]
        return [cls.next_reminder_at.set(when), cls.next_reminder_bucket.set(reminder_bucket(when))]

    def complete_reminder(self, token: str, now: datetime, upcoming: datetime) -> bool:
        """Record a sent reminder and schedule `upcoming`; False if the claim was lost."""
        cls = type(self)
        return self.settle_reminder(
            token,
            upcoming,
            cls.last_reminded_at.set(now),
            cls.reminder_attempts.set(0),
            cls.last_reminder_error.remove(),
        )

    def give_back_reminder(self, token: str, retry_at: datetime, attempts: int, error: str) -> bool:
        """Record a failed send and leave the reminder due at `retry_at`; False if unclaimed."""
        cls = type(self)
        return self.settle_reminder(
            token,
            retry_at,
            cls.reminder_attempts.set(attempts),
            cls.last_reminder_error.set(error[:500]),
        )

    def release_reminder(self, token: str, when: datetime) -> bool:
        """Put a claimed reminder off to `when` without sending it; False if unclaimed."""
        return self.settle_reminder(token, when)

    def drop_reminder(self, token: str) -> bool:
        """Remove the reminder of a learner who is gone or soft-deleted, keeping its hour."""
        cls = type(self)
        # The hour is kept so that resume_reminder() can schedule it again.
        keep_hour = cls.reminder_hour.set(cls.reminder_hour | self.next_reminder_at.hour)
        return self.settle_reminder(token, None, keep_hour)

    @classmethod
    def resume_reminder(cls, username: str, when: datetime) -> bool:
        """Schedule a reminder at `when` unless one is scheduled already."""
        stored = cls.apply(
            username,
            cls.next_reminder_actions(when),
            cls.username.exists() & cls.next_reminder_at.does_not_exist(),
        )
        return stored is not None
