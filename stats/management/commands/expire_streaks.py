"""Break the streaks of learners who missed a day, catching up every day since the last run."""

from __future__ import annotations

from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.models import utcnow
from stats.history import streaks
from stats.management.commands.send_reminders import parse_now


class Command(DynamoCommand):
    help = (
        "Set to 0 the streak of every learner whose last session was two days ago or more, "
        "reading gsi_streak_expires_on one day at a time from the stored watermark up to "
        "today. Safe to run twice or on several hosts at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("--now", help="the moment to run at (ISO-8601, default: the clock)")
        add_dry_run_argument(parser, "count what is due; change nothing")
        parser.add_argument(
            "--backfill",
            action="store_true",
            help="first, once, for tables made before streak expiries: Scan user-stats and "
            "index every streak that has no expiry yet",
        )

    def handle(self, *args, **options):
        now = parse_now(options["now"]) if options["now"] else utcnow()
        if options["backfill"] and not options["dry_run"]:
            self.stdout.write(f"Backfilled {streaks.backfill(now)} streaks without an expiry.")
        summary = streaks.expire_due(now, dry_run=options["dry_run"])
        prefix = "Dry run, nothing changed: " if options["dry_run"] else ""
        self.stdout.write(f"{prefix}{summary}")
        if summary.watermark_to:
            self.stdout.write(f"watermark: {summary.watermark_from} -> {summary.watermark_to}")
        self.stdout.write(self.meter.summary())
