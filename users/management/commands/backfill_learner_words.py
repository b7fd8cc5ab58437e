"""Fill the learner search's word index from the users table, and drop entries nobody owns."""

from __future__ import annotations

from dynamo.batch import write_rows
from dynamo.management.base import DynamoCommand, add_dry_run_argument
from users.models import LearnerWord, User


class Command(DynamoCommand):
    help = (
        "Backfill learner-words, the index of the admin's and the board's learner search: put "
        "every learner's words (their name's, their email's and their username's, and the "
        "public entries of their name's and username's), then delete "
        "the entries no learner's current words hold (left by a race or by a learner removed "
        "before the index existed). A Scan of both tables, for a deployment that predates the "
        "index or after a restore from an old backup; a second run writes nothing."
    )

    def add_arguments(self, parser):
        add_dry_run_argument(parser)

    def handle(self, *args, dry_run: bool = False, **options):
        wanted = {
            (entry.head, entry.entry): entry
            for user in User.iter_all()
            for entry in LearnerWord.owned_entries(user)
        }
        stored = {(entry.head, entry.entry): entry for entry in LearnerWord.iter_all()}
        missing = [entry for key, entry in wanted.items() if key not in stored]
        stale = [entry for key, entry in stored.items() if key not in wanted]
        if dry_run:
            self.stdout.write(
                f"Dry run: {len(missing)} search words to add, {len(stale)} to delete. "
                "Nothing was changed."
            )
            return
        write_rows(missing, stale)
        self.stdout.write(
            self.style.SUCCESS(
                f"Added {len(missing)} search words and deleted {len(stale)} stale ones "
                f"({len(wanted)} in all): {self.meter.summary()}."
            )
        )
