"""Each learner's statistics: XP, streak, efficiency, accuracy and the next reminder."""

from __future__ import annotations

import zlib
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute

from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, client_for
from dynamo.validators import FieldErrors, number_between, whole_number
from users.models import User, validate_username

METRICS = ("xp", "streak", "efficiency", "accuracy")
BUCKET_FORMAT = "%Y-%m-%d-%H"


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


class UserStats(DynamoModel):
    """A learner's running statistics and reminder schedule."""

    app_label = "stats"
    model_name = "userstats"
    verbose_name = "user stats"
    verbose_name_plural = "user stats"

    class Meta(DynamoMeta):
        table_suffix = "user-stats"

    username = UnicodeAttribute(hash_key=True)
    # The learner's display name, copied from users (kept in step when it changes) so a
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
    # Running totals behind the metrics (see stats/activity.py for the definitions).
    questions_answered = NumberAttribute(default=0)
    questions_correct = NumberAttribute(default=0)
    minutes_studied = NumberAttribute(default=0)
    sessions = NumberAttribute(default=0)
    last_active_day = UnicodeAttribute(null=True)  # YYYY-MM-DD, UTC
    # Reminder delivery (see stats/reminders.py): chosen hour, claim lease, retries.
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
        if self.reminder_hour is not None:
            errors.check("reminder_hour", whole_number(0, 23), self.reminder_hour)
        return errors

    def clean(self) -> None:
        """Keep the reminder's bucket the hour of its time; copy the learner's name if missing."""
        self.schedule_reminder(self.next_reminder_at)
        if self.name is None and self.username:
            learner = User.get_or_none(self.username)
            self.name = learner.name if learner is not None else None

    def stamp(self) -> None:
        super().stamp()
        if self.version is None or self.leaderboard_partition is not None:
            # A learner taken off the board (soft-deleted) stays off when edited.
            self.leaderboard_partition = leaderboard_partition_for(self.username)

    def schedule_reminder(self, when: datetime | None) -> None:
        """Set the next reminder time and its hour bucket (None removes the reminder)."""
        self.next_reminder_at = when
        self.next_reminder_bucket = None if when is None else reminder_bucket(when)
