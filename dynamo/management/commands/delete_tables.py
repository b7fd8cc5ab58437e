"""Drop this prefix's tables."""

from __future__ import annotations

from django.conf import settings
from django.core.management.base import CommandError

from dynamo import tables
from dynamo.management.base import DynamoCommand


class Command(DynamoCommand):
    help = "Delete every DynamoDB table under the configured prefix (asks for --yes)."

    def add_arguments(self, parser):
        parser.add_argument("--yes", action="store_true", help="Confirm the deletion.")

    def handle(self, *args, yes: bool = False, **options):
        if not yes:
            raise CommandError(
                f"This deletes every table under the prefix {settings.DYNAMODB_TABLE_PREFIX!r} "
                "and all their data; run again with --yes to confirm."
            )
        for model in tables.all_models():
            if tables.delete(model):
                self.stdout.write(f"Deleted {model.Meta.table_name}")
            else:
                self.stdout.write(f"{model.Meta.table_name} did not exist")
