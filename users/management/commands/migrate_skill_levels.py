"""Give every user-skill its sortable level and search listing, then rebuild gsi_skill_level."""

from __future__ import annotations

from dynamo import tables
from dynamo.exceptions import ConflictError
from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.management.progress import Progress
from dynamo.parallel import add_threads_argument, run_parallel
from users.models import LEVELS, User, UserSkill

INDEX = "gsi_skill_level"
ATTEMPTS = 5


class Command(DynamoCommand):
    help = (
        "Migrate user-skills written before levels were sortable: set `level` (Beginner 1 … "
        "Expert 4) and `listed_skill_name` (absent for soft-deleted learners) on every item "
        "lacking them, each a conditional UpdateItem on the version read, then replace "
        f"{INDEX} (delete the index with the old keys, wait, create the new one, wait until "
        "ACTIVE). Items already migrated are not written again, so a re-run finishes an "
        "interrupted migration and a second run changes nothing."
    )

    def add_arguments(self, parser):
        add_dry_run_argument(parser)
        add_threads_argument(parser)

    def handle(self, *args, dry_run: bool = False, threads: int = 4, **options):
        # The sparse index holds only soft-deleted learners: a small read, not a users Scan.
        deleted = {user.username for user in User.gsi_deleted_at.scan()}
        stale = [h for h in UserSkill.iter_all() if self.target(h, deleted) != self.current(h)]
        if dry_run:
            index_drift = [p for p in tables.drift(UserSkill) if INDEX in p]
            self.stdout.write(
                f"Dry run: {len(stale)} user-skills to migrate; "
                f"{'; '.join(index_drift) or f'{INDEX} is up to date'}. Nothing was changed."
            )
            return
        with Progress(self.stdout, len(stale), "Migrating", unit="user-skills") as progress:
            migrated = run_parallel(
                lambda holding: self.handle_one(holding, deleted),
                stale,
                threads=threads,
                on_done=lambda _: progress.update(1),
            )
        replaced = tables.replace_index(UserSkill, INDEX, report=self.stdout.write)
        self.stdout.write(
            self.style.SUCCESS(
                f"Migrated {migrated} user-skills; "
                f"{'rebuilt' if replaced else 'kept'} {INDEX}: {self.meter.summary()}."
            )
        )

    @staticmethod
    def target(holding: UserSkill, deleted: set[str]) -> tuple[int | None, str | None]:
        listed = holding.username not in deleted
        return LEVELS.get(holding.proficiency), holding.skill_name if listed else None

    @staticmethod
    def current(holding: UserSkill) -> tuple[int | None, str | None]:
        return holding.level, holding.listed_skill_name

    def handle_one(self, holding: UserSkill | None, deleted: set[str]) -> bool:
        """Write one item's level and listing, re-reading it if it changed meanwhile."""
        key = holding.pk
        for _ in range(ATTEMPTS):
            if holding is None or self.target(holding, deleted) == self.current(holding):
                return False  # deleted, or written by the new code meanwhile
            level, listed = self.target(holding, deleted)
            u = UserSkill
            actions = [u.level.set(level) if level is not None else u.level.remove()]
            actions.append(
                u.listed_skill_name.set(listed) if listed else u.listed_skill_name.remove()
            )
            try:
                holding.update(actions=actions)  # conditional on the version read
            except ConflictError:
                # Changed meanwhile, perhaps by a soft delete or restore: read both again.
                holding = UserSkill.get_or_none(*key, consistent_read=True)
                learner = User.get_or_none(key[0], consistent_read=True)
                if learner is None or learner.is_deleted:
                    deleted.add(key[0])
                else:
                    deleted.discard(key[0])
                continue
            return True
        raise ConflictError(f"User-skill {key} kept changing; run the migration again.")
