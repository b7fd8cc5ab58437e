"""Learners and the skills each of them holds."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.hashers import check_password, make_password
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, RegexValidator
from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute

from catalog.models import SKILL_ID_RE, Skill, validate_skill_id
from dynamo.exceptions import ConflictError
from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, utcnow
from dynamo.validators import FieldErrors, length_between, one_of, whole_number

from .signals import deletion_changed, renamed

USERNAME_RE = re.compile(r"[A-Za-z0-9_.-]{3,30}")
validate_username = RegexValidator(
    rf"\A{USERNAME_RE.pattern}\Z",
    "Use 3 to 30 letters, digits, '_', '-' or '.'.",
)
PROFICIENCIES = ("Beginner", "Intermediate", "Advanced", "Expert")
validate_proficiency = one_of(PROFICIENCIES)
validate_years = whole_number(0, 60)


class CreatedMonthIndex(GlobalIndex):
    """Sign-ups of one month, oldest first."""

    class Meta:
        index_name = "gsi_created_month"
        projection = AllProjection()

    created_month = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class DeletedAtIndex(GlobalIndex):
    """Sparse: only soft-deleted users carry `deleted_at`."""

    class Meta:
        index_name = "gsi_deleted_at"
        projection = AllProjection()

    deleted_at = UTCDateTimeAttribute(hash_key=True)


class User(DynamoModel):
    """A learner's profile."""

    app_label = "users"
    verbose_name = "user"

    class Meta(DynamoMeta):
        table_suffix = "users"

    # Never shown in full nor written to the admin's history.
    secret_fields = ("password_hash",)

    username = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    email = UnicodeAttribute()
    password_hash = UnicodeAttribute(null=True)
    created_month = UnicodeAttribute(null=True)
    deleted_at = UTCDateTimeAttribute(null=True)
    # Set when the gardener claims a soft-deleted user: from then on it cannot be restored.
    purge_started_at = UTCDateTimeAttribute(null=True)

    gsi_created_month = CreatedMonthIndex()
    gsi_deleted_at = DeletedAtIndex()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("username", self.username):
            errors.check("username", validate_username, self.username)
        if errors.require("name", self.name):
            errors.check("name", length_between(1, 100), self.name)
        if errors.require("email", self.email):
            errors.check("email", EmailValidator("Enter a valid email address."), self.email)
        if self.purge_started_at is not None and self.deleted_at is None:
            errors.add("deleted_at", "This user is being purged and can no longer be restored.")
        return errors

    def stamp(self) -> None:
        super().stamp()
        self.created_month = self.created_at.strftime("%Y-%m")

    def written(self, *, created: bool) -> None:
        """Let other apps follow a soft delete, a restore or a new name."""
        if self.was_stored_with("deleted_at") != self.is_deleted:
            deletion_changed.send(sender=type(self), user=self)
        if not created and self.stored_value("name") != self.name:
            renamed.send(sender=type(self), user=self)

    def set_password(self, raw_password: str | None) -> None:
        """Store a Django hash of the password (None makes it unusable)."""
        self.password_hash = make_password(raw_password)

    def check_password(self, raw_password: str) -> bool:
        """Return whether the password matches the stored hash."""
        return bool(self.password_hash) and check_password(raw_password, self.password_hash)

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    def soft_delete(self, when: datetime | None = None) -> None:
        """Mark the user deleted; the gardener purges it after the retention period."""
        self.deleted_at = when or utcnow()
        self.save()

    def restore(self) -> None:
        """Undo a soft delete."""
        self.deleted_at = None
        self.save()

    def claim_for_purge(self, cutoff: datetime) -> bool:
        """Mark a user deleted before `cutoff` as being purged, if unchanged since it was read.

        A restore based on an earlier read then fails on its version, and one based on a later
        read is refused by the rules, so the gardener never purges a user someone brought back.
        """
        try:
            self.update(
                actions=[User.purge_started_at.set(utcnow())], condition=User.deleted_at <= cutoff
            )
        except ConflictError:
            return False
        return True

    def purge_due(self, now: datetime, retention_days: int) -> bool:
        """Return whether a soft-deleted user has outlived the retention period."""
        return self.is_deleted and self.deleted_at <= now - timedelta(days=retention_days)

    def skills(self, limit: int | None = None) -> list[UserSkill]:
        """Return the user's skills in the order they were added (one Query)."""
        return list(UserSkill.gsi_user_created_at.query(self.username, limit=limit))


class SkillHoldersIndex(GlobalIndex):
    """Every holder of one catalog skill."""

    class Meta:
        index_name = "gsi_skill_id"
        projection = AllProjection()

    skill_id = UnicodeAttribute(hash_key=True)
    username = UnicodeAttribute(range_key=True)


class UserSkillsByDateIndex(GlobalIndex):
    """A user's skills in the order they were added."""

    class Meta:
        index_name = "gsi_user_created_at"
        projection = AllProjection()

    username = UnicodeAttribute(hash_key=True)
    created_at = UTCDateTimeAttribute(range_key=True)


class SkillLevelIndex(GlobalIndex):
    """Talent search: holders of a skill by proficiency, then years (multi-attribute key)."""

    class Meta:
        index_name = "gsi_skill_level"
        projection = AllProjection()

    skill_name = UnicodeAttribute(hash_key=True)
    proficiency = UnicodeAttribute(range_key=True)
    years = NumberAttribute(range_key=True)


class UserSkill(DynamoModel):
    """One skill a user holds, with the catalog's name and category copied in."""

    app_label = "users"
    model_name = "userskill"
    verbose_name = "user skill"

    class Meta(DynamoMeta):
        table_suffix = "user-skills"

    username = UnicodeAttribute(hash_key=True)
    skill_id = UnicodeAttribute(range_key=True)
    skill_name = UnicodeAttribute()
    category = UnicodeAttribute()
    proficiency = UnicodeAttribute()
    years = NumberAttribute(default=0)
    notes = UnicodeAttribute(null=True)

    gsi_skill_id = SkillHoldersIndex()
    gsi_user_created_at = UserSkillsByDateIndex()
    gsi_skill_level = SkillLevelIndex()

    @classmethod
    def for_catalog(cls, username: str, skill: Skill, **attributes: Any) -> UserSkill:
        """Return a new user-skill that copies the catalog skill's name and category."""
        return cls(
            username,
            skill.skill_id,
            skill_name=skill.name,
            category=skill.category,
            **attributes,
        )

    def copy_from_catalog(self, skill: Skill) -> None:
        """Refresh the denormalized name and category from the catalog skill."""
        self.skill_name = skill.name
        self.category = skill.category

    def is_in_sync_with(self, skill: Skill) -> bool:
        return self.skill_name == skill.name and self.category == skill.category

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("username", self.username):
            errors.check("username", validate_username, self.username)
        if errors.require("skill_id", self.skill_id):
            errors.check("skill_id", validate_skill_id, self.skill_id)
        errors.require("skill_name", self.skill_name)
        errors.require("category", self.category)
        if errors.require("proficiency", self.proficiency):
            errors.check("proficiency", validate_proficiency, self.proficiency)
        if errors.require("years", self.years):
            errors.check("years", validate_years, self.years)
        if self.notes is not None and len(self.notes) > 2000:
            errors.add("notes", "Must be at most 2000 characters long.")
        return errors

    def clean(self) -> None:
        """A new user-skill must reference a catalog skill: copy its name and category."""
        if self.version is not None or self.skill_name is not None:
            return  # stored, or made by for_catalog() with the copies already in
        if self.skill_id and SKILL_ID_RE.fullmatch(self.skill_id):
            skill = Skill.get_or_none(self.skill_id)
            if skill is None:
                raise ValidationError({"skill_id": [f"No catalog skill {self.skill_id!r}."]})
            self.copy_from_catalog(skill)

    @classmethod
    def sync_with_catalog(cls, skill: Skill) -> int:
        """Rewrite every stale copy of a catalog skill's name and category; return how many."""
        rewritten = 0
        for holding in cls.gsi_skill_id.query(skill.skill_id):
            if holding.is_in_sync_with(skill):
                continue
            try:
                holding.update(
                    actions=[
                        cls.skill_name.set(skill.name),
                        cls.category.set(skill.category),
                        cls.updated_at.set(utcnow()),
                    ],
                    condition=cls.username.exists(),
                    add_version_condition=False,
                )
            except ConflictError:
                continue  # removed meanwhile: nothing left to sync
            rewritten += 1
        return rewritten

    @classmethod
    def search(
        cls,
        skill_name: str,
        proficiency: str | None = None,
        min_years: int | None = None,
        *,
        limit: int | None = None,
        last_evaluated_key: dict[str, Any] | None = None,
    ):
        """Find holders of a skill at a level with at least `min_years` years, in one Query."""
        condition = None
        if proficiency is not None:
            condition = cls.proficiency == proficiency
            if min_years is not None:
                condition &= cls.years >= min_years
        return cls.gsi_skill_level.query(
            skill_name,
            range_key_condition=condition,
            scan_index_forward=False,
            limit=limit,
            last_evaluated_key=last_evaluated_key,
        )
