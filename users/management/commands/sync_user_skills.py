"""Rewrite user-skills' copies of catalog names and categories from the catalog."""

from __future__ import annotations

from django.core.management.base import CommandError

from catalog.models import Skill
from dynamo.management.base import DynamoCommand
from users.models import UserSkill


class Command(DynamoCommand):
    help = (
        "Rewrite the skill name and category copied into every user-skill from the catalog "
        "(through gsi_skill_id), for the given catalog skills or, without any, for all of "
        "them. Only stale copies are written, so running it again finishes an interrupted run."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "skill_ids", nargs="*", metavar="SKILL_ID", help="Catalog skills to sync (all)."
        )

    def handle(self, *args, skill_ids: list[str], **options):
        skills = self.catalog_skills(skill_ids) if skill_ids else list(Skill.iter_all())
        rewritten = 0
        for skill in skills:
            count = self.handle_one(skill)
            if options["verbosity"] >= 2:
                self.stdout.write(f"{skill.skill_id}: rewrote {count} copies")
            rewritten += count
        self.stdout.write(
            self.style.SUCCESS(f"Rewrote {rewritten} stale copies of {len(skills)} catalog skills.")
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
        """Rewrite the stale copies of one skill; return how many."""
        return UserSkill.sync_with_catalog(skill)
