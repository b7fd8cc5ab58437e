"""Skillboard's four aggregates as Django ORM models: the same attributes, keys and indexes.

Each DynamoDB table's key is the primary key or a unique constraint here, and each GSI an
index on the same attributes (sparse ones partial, on the rows that carry the attribute).
The derived attributes are kept as Skillboard's write paths keep them, each with the
queries a Django project would use, so a save here does the work a save there does.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone

PROFICIENCIES = ("Beginner", "Intermediate", "Advanced", "Expert")
LEVELS = {proficiency: rank for rank, proficiency in enumerate(PROFICIENCIES, start=1)}
CATEGORIES = (
    "Programming",
    "Cloud",
    "DevOps",
    "Database",
    "Frontend",
    "Backend",
    "Mobile",
    "Data",
    "Security",
    "Other",
)

validate_username = RegexValidator(
    r"\A[A-Za-z0-9_.-]{3,30}\Z", "Use 3 to 30 letters, digits, '_', '-' or '.'."
)
validate_skill_id = RegexValidator(
    r"\A[a-z0-9-]{1,50}\Z", "Use 1 to 50 lowercase letters, digits or dashes."
)
validate_proficiency = RegexValidator(
    rf"\A({'|'.join(PROFICIENCIES)})\Z", f"Choose one of {', '.join(PROFICIENCIES)}."
)
percentage = [MinValueValidator(0), MaxValueValidator(100)]


class Record(models.Model):
    """What every Skillboard item carries: when it was created and changed, and its version."""

    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    version = models.PositiveIntegerField(default=1, editable=False)

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        # Counted as Skillboard counts; not checked: Django's admin has no optimistic locking.
        if not self._state.adding:
            self.version += 1
        super().save(*args, **kwargs)


class Skill(Record):
    """A skill of the master catalog."""

    skill_id = models.CharField(primary_key=True, max_length=50, validators=[validate_skill_id])
    name = models.CharField(max_length=100)
    description = models.TextField(null=True, blank=True)
    category = models.CharField(max_length=20, choices=[(c, c) for c in CATEGORIES])
    tags = models.JSONField(null=True, blank=True)  # a DynamoDB string set
    pending = models.CharField(max_length=10, null=True, blank=True)
    pending_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["category", "name"], name="gsi_category"),
            models.Index(
                fields=["pending", "pending_since"],
                name="gsi_pending",
                condition=Q(pending__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.skill_id


class User(Record):
    """A learner's profile."""

    username = models.CharField(primary_key=True, max_length=30, validators=[validate_username])
    name = models.CharField(max_length=100)
    email = models.EmailField()
    password_hash = models.CharField(max_length=128, null=True, blank=True)
    created_month = models.CharField(max_length=7, editable=False)
    deleted_at = models.DateTimeField(null=True, blank=True)
    purge_started_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["created_month", "created_at"], name="gsi_created_month"),
            models.Index(
                fields=["deleted_at"], name="gsi_deleted_at", condition=Q(deleted_at__isnull=False)
            ),
            # The admin's ordering, -created_at, made total by Django with -username: no
            # DynamoDB counterpart (Skillboard's listing is an unordered Scan), but without it
            # the database would sort the whole table for every changelist page.
            models.Index(fields=["created_at", "username"], name="users_by_created_at"),
        ]

    def __str__(self) -> str:
        return self.username

    def save(self, *args, **kwargs):
        """Save, then let the learner's stats and skills follow a new name or a soft delete."""
        self.created_month = self.created_at.strftime("%Y-%m")
        stored = getattr(self, "_stored", None)
        super().save(*args, **kwargs)
        if stored is None:
            return
        if stored["name"] != self.name:  # the leaderboards show the stats' copy of the name
            UserStats.objects.filter(username=self).update(
                name=self.name, version=F("version") + 1, updated_at=timezone.now()
            )
        if (stored["deleted_at"] is None) != (self.deleted_at is None):
            listed = None if self.deleted_at else F("skill_name")
            self.skills.update(listed_skill_name=listed, updated_at=timezone.now())
            partition = None if self.deleted_at else "ALL"
            UserStats.objects.filter(username=self).update(leaderboard_partition=partition)
        self._stored = {"name": self.name, "deleted_at": self.deleted_at}

    @classmethod
    def from_db(cls, db, field_names, values):
        user = super().from_db(db, field_names, values)
        loaded = vars(user)
        user._stored = {"name": loaded.get("name"), "deleted_at": loaded.get("deleted_at")}
        return user


class UserSkill(Record):
    """One skill a learner holds, with the catalog's name and category copied in."""

    # DynamoDB's key (username, skill_id) is the unique constraint below; its index also
    # serves the foreign key, so the foreign key gets none of its own.
    username = models.ForeignKey(
        User, models.CASCADE, db_column="username", db_index=False, related_name="skills"
    )
    skill_id = models.CharField(max_length=50, validators=[validate_skill_id])
    skill_name = models.CharField(max_length=100, blank=True)
    category = models.CharField(max_length=20, blank=True)
    proficiency = models.CharField(max_length=12, validators=[validate_proficiency])
    years = models.PositiveSmallIntegerField(default=0, validators=[MaxValueValidator(60)])
    notes = models.TextField(null=True, blank=True, max_length=2000)
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    listed_skill_name = models.CharField(max_length=100, null=True, blank=True)

    class Meta:
        ordering = ["skill_id"]  # as a Query of the user's partition returns them
        constraints = [
            models.UniqueConstraint(fields=["username", "skill_id"], name="user_skills_key")
        ]
        indexes = [
            models.Index(fields=["skill_id", "username"], name="gsi_skill_id"),
            models.Index(fields=["username", "created_at"], name="gsi_user_created_at"),
            models.Index(
                fields=["listed_skill_name", "level", "years"],
                name="gsi_skill_level",
                condition=Q(listed_skill_name__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.username_id}/{self.skill_id}"

    def save(self, *args, **kwargs):
        self.level = LEVELS.get(self.proficiency)
        listed = self.username.deleted_at is None
        self.listed_skill_name = self.skill_name if listed else None
        super().save(*args, **kwargs)

    def clean(self):
        """Copy a new holding's name and category from the catalog (renames sync them later)."""
        if self._state.adding and self.skill_id:
            skill = Skill.objects.filter(pk=self.skill_id).first()
            if skill is None:
                raise ValidationError({"skill_id": f"No catalog skill {self.skill_id!r}."})
            self.skill_name, self.category = skill.name, skill.category


class UserStats(Record):
    """A learner's running statistics and reminder schedule."""

    username = models.OneToOneField(
        User, models.CASCADE, primary_key=True, db_column="username", related_name="stats"
    )
    name = models.CharField(max_length=100, null=True, blank=True)
    xp = models.PositiveIntegerField(default=0)
    streak = models.PositiveIntegerField(default=0)
    efficiency = models.FloatField(default=0, validators=percentage)
    accuracy = models.FloatField(default=0, validators=percentage)
    leaderboard_partition = models.CharField(max_length=20, null=True, blank=True)
    next_reminder_bucket = models.CharField(max_length=13, null=True, blank=True)
    next_reminder_at = models.DateTimeField(null=True, blank=True)
    last_reminded_at = models.DateTimeField(null=True, blank=True)
    questions_answered = models.PositiveIntegerField(default=0)
    questions_correct = models.PositiveIntegerField(default=0)
    minutes_studied = models.PositiveIntegerField(default=0)
    sessions = models.PositiveIntegerField(default=0)
    last_active_day = models.CharField(max_length=10, null=True, blank=True)
    streak_expires_on = models.CharField(max_length=10, null=True, blank=True)
    reminder_hour = models.PositiveSmallIntegerField(null=True, blank=True)
    reminder_claim = models.CharField(max_length=100, null=True, blank=True)
    reminder_lease_until = models.DateTimeField(null=True, blank=True)
    reminder_attempts = models.PositiveIntegerField(default=0)
    last_reminder_error = models.TextField(null=True, blank=True)

    class Meta:
        verbose_name = verbose_name_plural = "user stats"
        indexes = [
            *(
                models.Index(
                    fields=["leaderboard_partition", metric, "username"],
                    name=f"gsi_leaderboard_{metric}",
                    condition=Q(leaderboard_partition__isnull=False),
                )
                for metric in ("xp", "streak", "efficiency", "accuracy")
            ),
            models.Index(
                fields=["next_reminder_bucket", "next_reminder_at"],
                name="gsi_user_stats_reminders",
            ),
            models.Index(
                fields=["streak_expires_on"],
                name="gsi_streak_expires_on",
                condition=Q(streak_expires_on__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return self.username_id
