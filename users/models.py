"""Learners and the skills each of them holds."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.hashers import check_password, make_password
from django.core.exceptions import ValidationError
from django.core.validators import EmailValidator, RegexValidator
from django.urls import reverse
from django.utils.translation import gettext
from pynamodb.attributes import NumberAttribute, UnicodeAttribute, UTCDateTimeAttribute
from pynamodb.constants import COUNT
from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from catalog.models import SKILL_ID_RE, Skill, validate_skill_id
from dynamo.batch import TRANSACTION_LIMIT, in_chunks
from dynamo.exceptions import ConflictError
from dynamo.indexes import AllProjection, GlobalIndex
from dynamo.models import DynamoMeta, DynamoModel, utcnow
from dynamo.parallel import DEFAULT_THREADS, run_parallel
from dynamo.validators import FieldErrors, length_between, one_of, whole_number
from dynamo.words import WordIndex

from .signals import deletion_changed, owned, renamed

USERNAME_RE = re.compile(r"[A-Za-z0-9_.-]{3,30}")
validate_username = RegexValidator(
    rf"\A{USERNAME_RE.pattern}\Z",
    "Use 3 to 30 letters, digits, '_', '-' or '.'.",
)
PROFICIENCIES = ("Beginner", "Intermediate", "Advanced", "Expert")
# The sortable value of each proficiency: gsi_skill_level orders holders by it, not by the word.
LEVELS = {proficiency: rank for rank, proficiency in enumerate(PROFICIENCIES, start=1)}
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
    # Beside Django's own "Users" (staff accounts): these are the learners, on every page.
    verbose_name = "learner"

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

    def derived_rows(self) -> tuple[list[DynamoModel], list[DynamoModel]]:
        """Keep the learner search current: the entries of new words, and of lost ones."""
        return LearnerWord.changes_for(self)

    def written(self, *, created: bool) -> None:
        """Let other apps follow soft deletes and renames."""
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

    def get_absolute_url(self) -> str:
        """Return the learner's public page (the admin's "View on site" links to it)."""
        return reverse("learner", args=[self.username])

    def soft_delete(self, when: datetime | None = None) -> None:
        """Mark the user deleted; the gardener purges it after the retention period."""
        self.deleted_at = when or utcnow()
        self.save()

    def restore(self) -> None:
        """Undo a soft delete."""
        self.deleted_at = None
        self.save()

    @classmethod
    def history_message(cls, changes: dict[str, list[Any]]) -> str | None:
        """Return a soft delete's or a restore's History message, None for any other change."""
        if set(changes) != {"deleted_at"}:
            return None
        old, new = changes["deleted_at"]
        if old is None and new is not None:
            return gettext("Soft-deleted: off the leaderboard and the talent search.")
        if old is not None and new is None:
            return gettext("Restored.")
        return None

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

    def claim_for_delete(self) -> None:
        """Mark the user as being purged, on the version read (StaleVersion if it moved).

        A session's transaction requires its learner not deleted, so from here on nothing is
        recorded for them; soft-deleted too, so the gardener finishes a delete that died.
        """
        if self.purge_started_at is not None:
            return  # claimed by a delete that did not finish: this one resumes it
        now = utcnow()
        actions = [User.purge_started_at.set(now)]
        leaving = self.deleted_at is None
        if leaving:
            actions.append(User.deleted_at.set(now))
        self.update(actions)
        if leaving:  # off the boards and the search now, as a soft delete: the ranks below move
            deletion_changed.send(sender=type(self), user=self)

    def owned_partitions(self) -> list:
        """Return what other apps keep under the username, gathered by the `owned` signal."""
        return [part for _, parts in owned.send(type(self), user=self) for part in parts]

    def purge_due(self, now: datetime, retention_days: int) -> bool:
        """Return whether a soft-deleted user has outlived the retention, or a purge began."""
        if self.purge_started_at is not None:
            return True  # a purge or a hard delete that died half-way: finish it now
        return self.is_deleted and self.deleted_at <= now - timedelta(days=retention_days)

    def skills(self, limit: int | None = None) -> list[UserSkill]:
        """Return the user's skills in the order they were added (one Query)."""
        return list(UserSkill.gsi_user_created_at.query(self.username, limit=limit))


class LearnerWord(WordIndex):
    """The learner search: one entry per word of a learner's name, email and username.

    Staff search them all. The words of the name and the username have public entries too,
    the only ones the board's search reads: an email is never found, nor guessed, by anyone
    else. A soft-deleted learner keeps their entries (staff find them to restore them); the
    board's search drops them after reading. A hard delete and a purge delete them.
    """

    app_label = "users"
    verbose_name = "learner search word"

    class Meta(DynamoMeta):
        table_suffix = "learner-words"

    indexed = User
    fields = ("name", "email", "username")
    public_fields = ("name", "username")


# The admin's search of `name` and `email` reads this index (dynamo_admin.sources.WordSearch).
User.word_index = LearnerWord


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
    """Talent search: listed holders of a skill by level, then years (multi-attribute key).

    Sparse: a soft-deleted learner's user-skills carry no `listed_skill_name`, so no search
    finds them.
    """

    class Meta:
        index_name = "gsi_skill_level"
        projection = AllProjection()

    listed_skill_name = UnicodeAttribute(hash_key=True)
    level = NumberAttribute(range_key=True)
    years = NumberAttribute(range_key=True)


class UserSkill(DynamoModel):
    """One skill a user holds, with the catalog's name and category copied in."""

    app_label = "users"
    model_name = "userskill"
    verbose_name = "user skill"

    class Meta(DynamoMeta):
        table_suffix = "user-skills"

    field_choices = {"proficiency": PROFICIENCIES}
    references = {"skill_id": Skill}

    username = UnicodeAttribute(hash_key=True)
    skill_id = UnicodeAttribute(range_key=True)
    skill_name = UnicodeAttribute()
    category = UnicodeAttribute()
    proficiency = UnicodeAttribute()
    years = NumberAttribute(default=0)
    notes = UnicodeAttribute(null=True)
    # Derived in clean(): the proficiency as a number (Beginner 1 … Expert 4) for the index.
    level = NumberAttribute(null=True)
    # Derived: skill_name while the learner is not soft-deleted, absent while they are.
    listed_skill_name = UnicodeAttribute(null=True)

    gsi_skill_id = SkillHoldersIndex()
    gsi_user_created_at = UserSkillsByDateIndex()
    gsi_skill_level = SkillLevelIndex()

    # The catalog skill and learner a batch path already holds (see for_catalog()).
    _given_skill: Skill | None = None
    _given_learner: User | None = None

    @classmethod
    def for_catalog(cls, learner: User | str, skill: Skill, **attributes: Any) -> UserSkill:
        """Return a new user-skill of a learner for a catalog skill the caller already holds.

        clean() checks the given objects instead of reading them again: the skill must have
        been read, written or prepared for writing (it carries a version) and be valid; a
        username given as a string is looked up. An object that fails is read from its table.
        """
        username = learner if isinstance(learner, str) else learner.username
        holding = cls(username, skill.skill_id, **attributes)
        holding._given_skill = skill
        if not isinstance(learner, str):
            holding._given_learner = learner
        holding.copy_from_catalog(skill)
        return holding

    def held_by(self, learner: User) -> UserSkill:
        """Use this learner object (stored, or written in the same transaction) in clean()."""
        self._given_learner = learner
        return self

    def copy_from_catalog(self, skill: Skill) -> None:
        """Refresh the denormalized name and category from the catalog skill."""
        self.skill_name = skill.name
        self.category = skill.category

    def is_in_sync_with(self, skill: Skill) -> bool:
        return self.skill_name == skill.name and self.category == skill.category

    def unique_error_message(self, model_class, unique_check) -> ValidationError:
        """Say that the learner holds this skill already, by their name and the skill's."""
        learner = self.learner()
        # The name as stored: a page renaming the learner in the same save saved nothing.
        name = learner and (learner.stored_value("name") or learner.name)
        return ValidationError(
            gettext("%(learner)s already has the skill %(skill)s."),
            code="unique_together",
            params={"learner": name or self.username, "skill": self.skill_name or self.skill_id},
        )

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
        """Copy name and category from the catalog, derive the level and the search listing.

        Every write looks the catalog skill and the learner up (or checks the objects a batch
        path gave), so neither an invented skill name nor a missing learner gets stored.
        """
        errors: dict[str, list[str]] = {}
        skill = self.catalog_skill()
        if skill is None and self.skill_id and SKILL_ID_RE.fullmatch(self.skill_id):
            errors["skill_id"] = [f"No catalog skill {self.skill_id!r}."]
        elif skill is not None and skill.is_being_removed:
            errors["skill_id"] = [f"“{skill.name}” is being removed from the catalog."]
        elif skill is not None:
            self.copy_from_catalog(skill)
        learner = self.learner()
        if learner is None and self.username and USERNAME_RE.fullmatch(self.username):
            errors["username"] = [f"No learner {self.username!r}."]
        self.level = LEVELS.get(self.proficiency)
        listed = learner is not None and not learner.is_deleted
        self.listed_skill_name = self.skill_name if listed else None
        if errors:
            raise ValidationError(errors)

    def catalog_skill(self) -> Skill | None:
        """Return the catalog skill this user-skill references (None if there is none)."""
        given = self._given_skill
        if (
            given is not None
            and given.skill_id == self.skill_id
            and given.version is not None
            and not given.field_errors()
        ):
            return given
        if not self.skill_id or not SKILL_ID_RE.fullmatch(self.skill_id):
            return None
        return Skill.get_or_none(self.skill_id)

    def learner(self) -> User | None:
        """Return the learner holding this skill (None if there is none)."""
        given = self._given_learner
        if given is not None and given.username == self.username:
            return given
        if not self.username or not USERNAME_RE.fullmatch(self.username):
            return None
        return User.get_or_none(self.username)

    @classmethod
    def show_in_search(cls, username: str, *, visible: bool) -> int:
        """List a learner's user-skills in gsi_skill_level or take them out; return how many."""
        changed = 0
        for holding in cls.query(username, consistent_read=True):
            for _ in range(3):  # a concurrent rename may move skill_name between read and write
                if holding.set_listed(visible):
                    changed += 1
                    break
                holding = cls.get_or_none(username, holding.skill_id, consistent_read=True)
                if holding is None or (holding.listed_skill_name is not None) == visible:
                    break
        return changed

    def set_listed(self, visible: bool) -> bool:
        """Set or remove the sparse search key if still needed; return whether it was written."""
        cls = type(self)
        if visible:
            actions = [cls.listed_skill_name.set(self.skill_name)]
            condition = cls.listed_skill_name.does_not_exist() & (cls.skill_name == self.skill_name)
        else:
            actions = [cls.listed_skill_name.remove()]
            condition = cls.listed_skill_name.exists()
        if (self.listed_skill_name is not None) == visible:
            return True  # already as wanted
        try:
            self.update(actions=actions, condition=condition, add_version_condition=False)
        except ConflictError:
            return False
        return True

    @classmethod
    def sync_with_catalog(
        cls,
        skill: Skill,
        *,
        threads: int = DEFAULT_THREADS,
        on_done: Callable[[int], None] | None = None,
    ) -> int:
        """Rewrite every stale copy of a catalog skill's name and category; return how many.

        Reads the holders page by page from gsi_skill_id (their items are projected, so the
        stale ones are known without another read) and rewrites them 100 to a transaction,
        each update conditional on the version read, from `threads` threads. Copies already
        right are not written, so a run that died half-way is finished by the next and a
        second run writes nothing. `on_done` gets each chunk's count of rewritten copies.
        """
        rewritten = 0

        def count(done: int) -> None:
            nonlocal rewritten
            rewritten += done
            if on_done:
                on_done(done)

        stale = (h for h in cls.gsi_skill_id.query(skill.skill_id) if not h.is_in_sync_with(skill))
        chunks = in_chunks(stale, TRANSACTION_LIMIT)
        run_parallel(
            lambda chunk: cls.rewrite_copies(chunk, skill), chunks, threads=threads, on_done=count
        )
        return rewritten

    @classmethod
    def rewrite_copies(cls, holdings: list[UserSkill], skill: Skill) -> int:
        """Rewrite up to 100 copies in one transaction, each on the version read; return how many.

        One call instead of a hundred; a holding changed since it was read cancels the
        transaction, and the chunk is then rewritten one conditional UpdateItem at a time.
        Every update is conditional on the stored copy still being stale, so a copy another
        run rewrote meanwhile is not written (nor its version bumped) again.
        """
        try:
            with TransactWrite(connection=cls._get_connection().connection) as transaction:
                for holding in holdings:
                    transaction.update(
                        holding,
                        actions=holding.copy_actions(skill),
                        condition=cls.stale_copy(skill),
                    )
        except TransactWriteError:
            return sum(holding.rewrite_copy(skill) for holding in holdings)
        return len(holdings)

    @classmethod
    def stale_copy(cls, skill: Skill):
        """Return the condition that a stored copy of the skill's name or category is stale."""
        return (cls.skill_name != skill.name) | (cls.category != skill.category)

    def copy_actions(self, skill: Skill) -> list:
        """Return the update actions that copy the skill's name and category into this item."""
        cls = type(self)
        actions = [
            cls.skill_name.set(skill.name),
            cls.category.set(skill.category),
            cls.updated_at.set(utcnow()),
        ]
        if self.listed_skill_name is not None:
            actions.append(cls.listed_skill_name.set(skill.name))
        return actions

    @classmethod
    def holders_count(cls, skill_id: str, *, within: float | None = None) -> tuple[int, bool]:
        """Count a skill's holders with COUNT Queries on gsi_skill_id; return (count, complete).

        A COUNT still reads every holder's index item (about 12 pages of 1 MB for 34,540
        holders), so a request that must stay fast gives `within` seconds and gets a lower
        bound when time runs out.
        """
        connection = cls._get_connection()
        deadline = None if within is None else time.monotonic() + within
        count, start = 0, None
        while True:
            page = connection.query(
                skill_id, index_name="gsi_skill_id", select=COUNT, exclusive_start_key=start
            )
            count += page["Count"]
            start = page.get("LastEvaluatedKey")
            if not start:
                return count, True
            if deadline is not None and time.monotonic() >= deadline:
                return count, False

    def rewrite_copy(self, skill: Skill) -> bool:
        """Rewrite this holding's copies of the skill; return False if gone or right meanwhile."""
        cls = type(self)
        holding: UserSkill | None = self
        for _ in range(3):  # a soft delete or restore may flip the listing between attempts
            actions = holding.copy_actions(skill)
            if holding.listed_skill_name is not None:
                condition = cls.listed_skill_name.exists()
            else:
                condition = cls.username.exists() & cls.listed_skill_name.does_not_exist()
            try:
                holding.update(
                    actions=actions,
                    condition=condition & cls.stale_copy(skill),
                    add_version_condition=False,
                )
            except ConflictError:
                holding = cls.get_or_none(self.username, self.skill_id, consistent_read=True)
                if holding is None or holding.is_in_sync_with(skill):
                    return False  # removed, or rewritten by another run: nothing left to sync
                continue
            return True
        return False

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
        """Query listed holders of a skill at one level (or any), best first, in one Query.

        `users.search.search` pages through "at least a level" and "any level with N+ years".
        """
        condition = None
        if proficiency is not None:
            condition = cls.level == LEVELS[proficiency]
            if min_years is not None:
                condition &= cls.years >= min_years
        return cls.gsi_skill_level.query(
            skill_name,
            range_key_condition=condition,
            scan_index_forward=False,
            limit=limit,
            last_evaluated_key=last_evaluated_key,
        )
