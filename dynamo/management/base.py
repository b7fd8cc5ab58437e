"""A management command base that turns engine failures into one-line CommandErrors."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from pynamodb.exceptions import PynamoDBException

from .. import meter
from ..exceptions import ConflictError, EngineUnavailable


def describe_engine_error(exc: BaseException) -> str:
    """Return a one-line reason for a failed DynamoDB call."""
    cause = exc
    while isinstance(cause, PynamoDBException) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ClientError):
        error = cause.response.get("Error", {})
        return f"DynamoDB refused the request: {error.get('Code')}: {error.get('Message')}"
    if isinstance(cause, BotoCoreError):
        return f"DynamoDB is unreachable: {cause}"
    return str(cause) or type(cause).__name__


class DynamoCommand(BaseCommand):
    """A command whose DynamoDB calls are metered (-v 2 prints them) and whose failures exit 1."""

    def execute(self, *args, **options):
        with meter.metered() as command_meter:
            self.meter = command_meter
            try:
                output = super().execute(*args, **options)
                if options.get("verbosity", 1) >= 2:
                    self.stderr.write(f"DynamoDB: {command_meter.summary()}")
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
