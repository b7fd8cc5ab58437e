"""Print the CloudFormation template of this prefix's tables and their IAM policy."""

from __future__ import annotations

import json

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from dynamo import cloudformation


class Command(BaseCommand):
    help = (
        "Print a CloudFormation template (JSON) of this prefix's DynamoDB tables, generated "
        "from the models, with a least-privilege IAM managed policy for the application (and "
        "the admin's Tables pages on the further tables DYNAMO_ADMIN_TABLES allows)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--prefix",
            default=None,
            help="Table name prefix (DYNAMODB_TABLE_PREFIX by default).",
        )

    def handle(self, *args, prefix: str | None = None, **options):
        prefix = settings.DYNAMODB_TABLE_PREFIX if prefix is None else prefix
        if not prefix:
            raise CommandError("Give a table prefix: an empty one would claim every table.")
        try:
            template = cloudformation.template(prefix)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(template, indent=2))
