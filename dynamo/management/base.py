"""A management command base that turns engine failures into one-line CommandErrors."""

from __future__ import annotations

import logging
from argparse import ArgumentParser

from botocore.exceptions import BotoCoreError, ClientError
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from pynamodb.exceptions import PynamoDBException

from .. import meter
from ..exceptions import ConflictError, EngineUnavailable, describe
from ..models import use_command_timeouts

command_logger = logging.getLogger("dynamo.command")


def _log_summary(command: BaseCommand, command_meter: meter.Meter) -> None:
    """Log one line for a finished command: its name and its DynamoDB calls and capacity."""
    name = type(command).__module__.rpartition(".")[2]
    command_logger.info(
        "%s: %s",
        name,
        command_meter.summary(),
        extra={
            "command": name,
            "dynamodb_calls": command_meter.count,
            "dynamodb_ms": round(command_meter.seconds * 1000, 1),
            "rcu": command_meter.read_units,
            "wcu": command_meter.write_units,
        },
    )


def describe_engine_error(exc: BaseException) -> str:
    """Return a one-line reason for a failed DynamoDB call."""
    return describe(exc)


def add_dry_run_argument(
    parser: ArgumentParser, help: str = "Change nothing; count what would change."
) -> None:
    """Give a command the --dry-run option: it reports what it would do and writes nothing."""
    parser.add_argument("--dry-run", action="store_true", help=help)


class DynamoCommand(BaseCommand):
    """A command whose DynamoDB calls are metered (-v 2 prints them) and whose failures exit 1."""

    def run_from_argv(self, argv):
        # From the shell there is no page waiting: wait longer and retry more than a request.
        use_command_timeouts()
        return super().run_from_argv(argv)

    def execute(self, *args, **options):
        with meter.metered() as command_meter:
            self.meter = command_meter
            try:
                output = super().execute(*args, **options)
                if options.get("verbosity", 1) >= 2:
                    self.stderr.write(f"DynamoDB: {command_meter.summary()}")
                _log_summary(self, command_meter)
                return output
            except (BotoCoreError, ClientError, PynamoDBException, EngineUnavailable) as exc:
                raise CommandError(describe_engine_error(exc)) from exc
            except ConflictError as exc:
                raise CommandError(str(exc)) from exc
            except ValidationError as exc:
                raise CommandError("; ".join(_validation_messages(exc))) from exc


def _validation_messages(exc: ValidationError) -> list[str]:
    if hasattr(exc, "error_dict"):
        return [f"{field}: {' '.join(m)}" for field, m in exc.message_dict.items()]
    return exc.messages
