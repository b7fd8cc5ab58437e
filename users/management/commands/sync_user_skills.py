"""Rewrite user-skills' copies of catalog names and categories from the catalog."""

from __future__ import annotations

import time
from contextlib import suppress

from django.core.management.base import CommandError

from catalog.models import REMOVE, SYNC, Skill
from dynamo.batch import BATCH_SIZE, delete_request, in_chunks
from dynamo.exceptions import ConflictError
from dynamo.management.base import DynamoCommand
from dynamo.parallel import add_threads_argument, write_batches
from users.models import UserSkill
from workers import jobs

REPORT_EVERY = 5000  # copies between two progress lines
# A skill's lease: far longer than a rewrite takes (bench/RESULTS.md, "Renaming a skill"); a
# killed run's lease runs out after it, and its copies' conditions keep a run that starts then
# from writing what another already wrote.
LEASE_SECONDS = 600


class Command(DynamoCommand):
    help = (
        "Rewrite the skill name and category copied into every user-skill from the catalog "
        "(through gsi_skill_id, 100 conditional updates to a transaction, several at once), "
        "for the given catalog "
        "skills, for those a rename marked pending (--pending, which the scheduler runs every "
        "minute), or else for all of them. Only stale copies are written, so running it again "
        "finishes an interrupted run."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "skill_ids", nargs="*", metavar="SKILL_ID", help="Catalog skills to sync (all)."
        )
        parser.add_argument(
            "--pending",
            action="store_true",
            help="Finish the pending catalog changes: rewrite the copies of renamed skills, "
            "remove deleted skills with their user-skills.",
        )
        add_threads_argument(parser)

    def handle(self, *args, skill_ids: list[str], pending: bool = False, **options):
        if pending and skill_ids:
            raise CommandError("Give skill ids or --pending, not both.")
        self.threads = options["threads"]
        self.verbose = options["verbosity"] >= 2
        started = time.perf_counter()
        if pending:
            skills = Skill.pending_work(SYNC)
        elif skill_ids:
            skills = self.catalog_skills(skill_ids)
        else:
            skills = list(Skill.iter_all())
        rewritten = sum(self.leased(skill, self.handle_one) for skill in skills)
        removals = Skill.pending_work(REMOVE) if pending else []
        removed = sum(self.leased(skill, self.remove_one) for skill in removals)
        gone = (
            f"; removed {len(removals)} deleted skills with {removed} user-skills"
            if pending
            else ""
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"Rewrote {rewritten} stale copies of {len(skills)} catalog skills{gone} in "
                f"{time.perf_counter() - started:.1f} s: {self.meter.summary()}."
            )
        )

    def catalog_skills(self, skill_ids: list[str]) -> list[Skill]:
        """Return the named catalog skills; an unknown id stops the command before any write."""
        unique = list(dict.fromkeys(skill_ids))
        found = {skill_id: Skill.get_or_none(skill_id) for skill_id in unique}
        unknown = [skill_id for skill_id, skill in found.items() if skill is None]
        if unknown:
            raise CommandError(f"No catalog skill {', '.join(map(repr, unknown))}.")
        return [found[skill_id] for skill_id in unique]

    def leased(self, skill: Skill, work) -> int:
        """Run `work(skill)` under the skill's lease; skip a skill another run is working on."""
        with jobs.lease(f"sync_user_skills:{skill.skill_id}", seconds=LEASE_SECONDS) as held:
            if held:
                return work(skill)
        self.stdout.write(f"{skill.skill_id}: another run is on it; left to that run")
        return 0

    def handle_one(self, skill: Skill) -> int:
        """Rewrite the stale copies of one skill, then clear its marker; return how many."""
        # The index may lag the table: copy what the catalog holds now.
        current = Skill.get_or_none(skill.skill_id, consistent_read=True)
        if current is None:
            return 0
        done = 0

        def progress(rewritten: int) -> None:
            nonlocal done
            reported = done // REPORT_EVERY
            done += rewritten
            if done // REPORT_EVERY > reported:
                self.stdout.write(f"{current.skill_id}: {done:,} copies rewritten so far")

        count = UserSkill.sync_with_catalog(current, threads=self.threads, on_done=progress)
        if current.pending == SYNC:
            current.mark_done(current.pending_since)
        if self.verbose or count:
            self.stdout.write(f"{current.skill_id}: rewrote {count} copies")
        return count

    def remove_one(self, skill: Skill) -> int:
        """Delete a skill marked for removal: its user-skills first, then it; return how many.

        A run that dies half-way leaves the marker, so the next run deletes what is left.
        """
        current = Skill.get_or_none(skill.skill_id, consistent_read=True)
        if current is None or not current.is_being_removed:
            return 0
        holdings = UserSkill.gsi_skill_id.query(current.skill_id)
        batches = (
            (UserSkill, [delete_request(h) for h in chunk])
            for chunk in in_chunks(holdings, BATCH_SIZE)
        )
        removed = write_batches(batches, threads=self.threads)
        with suppress(ConflictError):  # gone already: another worker finished it
            current.delete(condition=Skill.pending == REMOVE, add_version_condition=False)
        self.stdout.write(f"{current.skill_id}: removed with {removed} user-skills")
        return removed
