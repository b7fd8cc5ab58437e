"""Send every due study reminder once, catching up missed hours, and schedule the next."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.models import utcnow
from stats.reminders import sending


def parse_now(value: str) -> datetime:
    """Parse an ISO-8601 moment; a value without an offset is taken as UTC."""
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise CommandError(f"--now {value!r} is not an ISO-8601 date and time.") from exc
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class Command(DynamoCommand):
    help = (
        "Send every reminder due at or before now, once, reading each hour bucket from the "
        "stored watermark; schedule each learner's next daily reminder."
    )

    def add_arguments(self, parser):
        parser.add_argument("--now", help="the moment to run at (ISO-8601, default: the clock)")
        add_dry_run_argument(
            parser, "list who is due, at which hour and by which channel; send and change nothing"
        )
        parser.add_argument(
            "--lease-minutes",
            type=float,
            default=sending.LEASE.total_seconds() / 60,
            help="how long a claim holds a reminder before another run may take it",
        )

    def handle(self, *args, **options):
        now = parse_now(options["now"]) if options["now"] else utcnow()
        if options["lease_minutes"] <= 0:
            raise CommandError("--lease-minutes must be more than 0.")
        summary = sending.send_due(
            now,
            dry_run=options["dry_run"],
            lease=timedelta(minutes=options["lease_minutes"]),
        )
        for planned in summary.planned:
            self.stdout.write(str(planned))
        for error in summary.errors:
            self.stdout.write(f"failed: {error}")
        prefix = "Dry run, nothing sent or changed: " if options["dry_run"] else ""
        self.stdout.write(f"{prefix}{summary}")
        if summary.watermark_to:
            self.stdout.write(f"watermark: {summary.watermark_from} -> {summary.watermark_to}")
        self.stdout.write(self.meter.summary())
        if summary.failed:
            raise CommandError(
                f"{summary.failed} reminder{'s' if summary.failed != 1 else ''} failed to send; "
                "the next run retries them."
            )
