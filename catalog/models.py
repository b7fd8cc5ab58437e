"""The master skills catalog."""

from __future__ import annotations

import re
import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from pynamodb.attributes import UnicodeAttribute, UnicodeSetAttribute, UTCDateTimeAttribute

from dynamo import limits
from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, utcnow
from dynamo.validators import FieldErrors, length_between, one_of, validate_visible

from .signals import skill_saved

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


def name_key(name: str) -> str:
    """Return the form two names share when they are the same name: NFC, case folded."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


# What a skill's `pending` marker asks of the worker that keeps the holders' copies.
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
    """Sparse: only skills with work left for the holders' worker, by kind of work."""

    class Meta:
        index_name = "gsi_pending"
        projection = AllProjection()

    pending = UnicodeAttribute(hash_key=True)
    pending_since = UTCDateTimeAttribute(range_key=True)


class NameKeyIndex(GlobalIndex):
    """One name's skills (at most one): keeps names unique without a Scan."""

    class Meta:
        index_name = "gsi_name_key"
        projection = AllProjection()

    name_key = UnicodeAttribute(hash_key=True)


class Skill(DynamoModel):
    """A skill of the master catalog."""

    app_label = "catalog"
    verbose_name = "skill"

    class Meta(DynamoMeta):
        table_suffix = "skills"

    field_choices = {"category": CATEGORIES}

    skill_id = UnicodeAttribute(hash_key=True)
    name = UnicodeAttribute()
    description = UnicodeAttribute(null=True)
    category = UnicodeAttribute()
    tags = UnicodeSetAttribute(null=True)
    # Set by a rename or recategorisation (SYNC): the holders' copies are rewritten outside
    # the request by the app that keeps them, which removes the marker when done. Set to
    # REMOVE by a confirmed delete of a held skill: the worker deletes the user-skills, then it.
    pending = UnicodeAttribute(null=True)
    pending_since = UTCDateTimeAttribute(null=True)
    # The name as uniqueness compares it (name_key()), derived in clean() on every write.
    name_key = UnicodeAttribute(null=True)
    # Names the skill had before a rename: the talent search still finds it by them.
    former_names = UnicodeSetAttribute(null=True)

    gsi_category = CategoryIndex()
    gsi_pending = PendingIndex()
    gsi_name_key = NameKeyIndex()

    def field_errors(self) -> dict[str, list[str]]:
        errors = FieldErrors()
        if errors.require("skill_id", self.skill_id):
            errors.check("skill_id", validate_skill_id, self.skill_id)
        if errors.require("name", self.name):
            errors.check("name", validate_skill_name, self.name)
            errors.check("name", validate_visible, self.name)
        if errors.require("category", self.category):
            errors.check("category", validate_category, self.category)
        if self.description is not None and len(self.description) > 2000:
            errors.add("description", "Must be at most 2000 characters long.")
        for tag in self.tags or ():
            if not 1 <= len(tag) <= 50:
                errors.add("tags", f"Tag {tag!r} must be 1 to 50 characters long.")
        return errors

    def clean(self) -> None:
        """Normalise the name and refuse one another skill has; mark a renamed skill pending.

        A changed name or category makes the holders' copies stale.
        """
        if isinstance(self.name, str):
            self.name = unicodedata.normalize("NFC", self.name).strip()
            self.name_key = name_key(self.name)
            taken_by = self.name_taken_by()
            if taken_by is not None:
                raise ValidationError(
                    {"name": [f"The skill {taken_by!r} is named “{self.name}” already."]}
                )
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
        if self.was_stored_with("name") and renamed and isinstance(self.name, str):
            former = set(self.former_names or ()) | {self.stored_value("name")}
            self.former_names = {n for n in former if name_key(n) != self.name_key} or None

    def name_taken_by(self) -> str | None:
        """Return the id of another skill with this skill's name, or None (one Query).

        Not read while the name is unchanged or breaks its own rules. Two skills given one
        name at the same instant can both pass: the index is read, then the skill written.
        """
        unchanged = self.was_stored_with("name") and self.stored_value("name_key") == self.name_key
        if unchanged or self.field_errors().get("name"):
            return None
        others = type(self).gsi_name_key.query(self.name_key, limit=2)
        return next((s.skill_id for s in others if s.skill_id != self.skill_id), None)

    def mark_done(self, pending_since) -> bool:
        """Remove the pending marker if no newer change set it again; return whether it did.

        No version bump: an admin page opened before the copies were rewritten still saves.
        """
        s = type(self)
        actions = [s.pending.remove(), s.pending_since.remove()]
        condition = s.pending_since == pending_since
        if s.apply(self.skill_id, actions, condition, bump_version=False) is None:
            return False
        self.pending = self.pending_since = None
        return True

    @property
    def is_being_removed(self) -> bool:
        return self.pending == REMOVE

    def request_removal(self) -> None:
        """Mark the skill for removal with its holders' user-skills, if unchanged since read.

        The holders' worker deletes their copies, then the skill; from now on no new copy may
        reference it.
        """
        s = type(self)
        self.update(actions=[s.pending.set(REMOVE), s.pending_since.set(utcnow())])

    @classmethod
    def named_starting(cls, prefix: str, limit: int = 20) -> list[Skill]:
        """Return up to `limit` skills whose name starts with the prefix, by name.

        One Query per category on gsi_category (name is its sort key): a
        10,000-skill catalog answers a keystroke with ten small reads, never a Scan.
        """
        if not prefix or not limits.keys_fit((prefix,)):
            return []

        def read(category: str) -> list[Skill]:
            condition = cls.name.startswith(prefix)
            return list(cls.gsi_category.query(category, condition, limit=limit))

        found = [read(category) for category in CATEGORIES]
        return sorted((s for skills in found for s in skills), key=lambda s: s.name)[:limit]

    @classmethod
    def pending_work(cls, kind: str) -> list[Skill]:
        """Return the skills marked with this kind of pending work, oldest first (one Query)."""
        return list(cls.gsi_pending.query(kind))

    def written(self, *, created: bool) -> None:
        """Announce the save (skill_saved) and forget the cached skill names the forms offer.

        A rename's copies are rewritten from the marker clean() set, outside the request, by
        the app that holds them; the signal is for any app that wants to follow saves.
        """
        from .choices import forget_skill_names  # choices reads this module's Skill

        forget_skill_names()
        skill_saved.send(sender=type(self), skill=self, created=created)
