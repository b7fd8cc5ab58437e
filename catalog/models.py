"""The master skills catalog."""

from __future__ import annotations

import re

from django.core.validators import RegexValidator
from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute, UTCDateTimeAttribute
from pynamodb.exceptions import UpdateError

from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import CONDITION_FAILED, DynamoMeta, DynamoModel, utcnow
from dynamo.validators import FieldErrors, length_between, one_of

from .signals import count_holders, skill_saved

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
SKILL_ID_RE = re.compile(r"[a-z0-9-]{1,50}")
validate_skill_id = RegexValidator(
    rf"\A{SKILL_ID_RE.pattern}\Z",
    "Use 1 to 50 lowercase letters, digits and dashes (like 'aws-lambda').",
)
validate_skill_name = length_between(2, 100)
validate_category = one_of(CATEGORIES)

# What a skill's `pending` marker asks of `sync_user_skills --pending`.
SYNC = "sync"  # rewrite the holders' copies of the name and category
REMOVE = "remove"  # delete the holders' user-skills, then the skill


class CategoryIndex(GlobalIndex):
    """Skills of one category, alphabetically."""

    class Meta:
        index_name = "gsi_category"
        projection = AllProjection()

    category = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute(range_key=True)


class PendingIndex(GlobalIndex):
    """Sparse: only skills with work left for `sync_user_skills --pending`, by kind of work."""

    class Meta:
        index_name = "gsi_pending"
        projection = AllProjection()

    pending = UnicodeAttribute(hash_key=True)
    pending_since = UTCDateTimeAttribute(range_key=True)


class Skill(DynamoModel):
    """A skill of the master catalog."""

    app_label = "catalog"
    verbose_name = "skill"

    class Meta(DynamoMeta):
        table_suffix = "skills"

    skill_id = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    category = UnicodeAttribute()
    tags = UnicodeSetAttribute(null=True)
    # Set by a rename or recategorisation (SYNC): the holders' copies are rewritten outside
    # the request by `sync_user_skills --pending`, which removes the marker when done. Set to
    # REMOVE by a confirmed delete of a held skill: the worker deletes the user-skills, then it.
    pending = UnicodeAttribute(null=True)
    pending_since = UTCDateTimeAttribute(null=True)

    gsi_category = CategoryIndex()
    gsi_pending = PendingIndex()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("skill_id", self.skill_id):
            errors.check("skill_id", validate_skill_id, self.skill_id)
        if errors.require("name", self.name):
            errors.check("name", validate_skill_name, self.name)
        if errors.require("category", self.category):
            errors.check("category", validate_category, self.category)
        if self.description is not None and len(self.description) > 2000:
            errors.add("description", "Must be at most 2000 characters long.")
        for tag in self.tags or ():
            if not 1 <= len(tag) <= 50:
                errors.add("tags", f"Tag {tag!r} must be 1 to 50 characters long.")
        return errors

    def clean(self) -> None:
        """Mark a stored skill whose name or category changes: its holders' copies are stale."""
        renamed = self.stored_value("name") != self.name
        recategorised = self.stored_value("category") != self.category
        if (
            self.was_stored_with("name")
            and (renamed or recategorised)
            and self.pending in (None, SYNC)
        ):
            # A new time even when already pending: a run still rewriting the older name must
            # not remove the marker of this newer one.
            self.pending, self.pending_since = SYNC, utcnow()

    def mark_done(self, pending_since) -> bool:
        """Remove the pending marker if no newer change set it again; return whether it did.

        No version bump: an admin page opened before the copies were rewritten still saves.
        """
        s = type(self)
        try:
            s._get_connection().update_item(
                self.skill_id,
                actions=[s.pending.remove(), s.pending_since.remove()],
                condition=s.pending_since == pending_since,
            )
        except UpdateError as exc:
            if getattr(exc, "cause_response_code", None) == CONDITION_FAILED:
                return False
            raise
        self.pending = self.pending_since = None
        return True

    @property
    def is_being_removed(self) -> bool:
        return self.pending == REMOVE

    def request_removal(self) -> None:
        """Mark the skill for removal with its holders' user-skills, if unchanged since read.

        The worker (`sync_user_skills --pending`) deletes the user-skills, then the skill; from
        now on no new user-skill may reference it.
        """
        s = type(self)
        self.update(actions=[s.pending.set(REMOVE), s.pending_since.set(utcnow())])

    def holder_count(self, within: float | None = None) -> tuple[int, bool]:
        """Return how many learners hold this skill and whether that is all of them.

        The users app counts, on its index; `within` seconds bounds the time spent counting.
        """
        answers = [a for _, a in count_holders.send(sender=type(self), skill=self, within=within)]
        return sum(count for count, _ in answers), all(complete for _, complete in answers)

    @classmethod
    def pending_work(cls, kind: str) -> list[Skill]:
        """Return the skills marked with this kind of pending work, oldest first (one Query)."""
        return list(cls.gsi_pending.query(kind))

    def written(self, *, created: bool) -> None:
        """Let holders' copies follow the skill's name and category, and forms the names."""
        from .choices import forget_skill_names  # choices reads this module's Skill

        forget_skill_names()
        skill_saved.send(sender=type(self), skill=self, created=created)
