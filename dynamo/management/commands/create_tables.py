"""Create missing tables and indexes, or report drift with --check."""

from __future__ import annotations

from django.core.management.base import CommandError

from dynamo import tables
from dynamo.management.base import DynamoCommand


class Command(DynamoCommand):
    help = "Create missing DynamoDB tables and indexes and wait until ACTIVE (idempotent)."

    def add_arguments(self, parser):
        parser.add_argument(
            "--check",
            action="store_true",
            help="Change nothing; print how the stored tables differ and exit 1 if they do.",
        )

    def handle(self, *args, check: bool = False, **options):
        if check:
            return self.handle_check()
        done = []
        for model in tables.all_models():
            done += tables.create_missing(model, report=lambda line: self.stdout.write(line))
        if done:
            self.stdout.write(self.style.SUCCESS(f"Done: {'; '.join(done)}."))
        else:
            self.stdout.write("All tables and indexes exist; nothing to do.")
        return None

    def handle_check(self) -> None:
        problems = [line for model in tables.all_models() for line in tables.drift(model)]
        for line in problems:
            self.stdout.write(line)
        if problems:
            raise CommandError(f"{len(problems)} difference(s) between the models and the tables.")
        self.stdout.write(self.style.SUCCESS("Tables match the models."))
