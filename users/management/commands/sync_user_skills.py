"""Rewrite user-skills' copies of catalog names and categories from the catalog."""

from __future__ import annotations

import time

from django.core.management.base import CommandError

from catalog.models import SYNC, Skill
from dynamo.management.base import DynamoCommand
from dynamo.parallel import add_threads_argument
from users.models import UserSkill

REPORT_EVERY = 5000  # copies between two progress lines


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
            help="Finish the pending catalog changes: rewrite the copies of renamed skills.",
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
        rewritten = sum(self.handle_one(skill) for skill in skills)
        self.stdout.write(
            self.style.SUCCESS(
                f"Rewrote {rewritten} stale copies of {len(skills)} catalog skills in "
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
