"""Give study sessions recorded before gsi_started_month their month, so the index lists them."""

from __future__ import annotations

from dynamo.management.base import DynamoCommand, add_dry_run_argument
from stats.history.models import StudySession, month_of


class Command(DynamoCommand):
    help = (
        "Backfill `started_month` (YYYY-MM, UTC) on every study session lacking it, one "
        "conditional UpdateItem each (only where it is still absent, without moving the "
        "version), so the admin lists every learner's sessions newest first through "
        "gsi_started_month. Sessions recorded since the index existed carry it already; a "
        "second run writes nothing."
    )

    def add_arguments(self, parser):
        add_dry_run_argument(parser)

    def handle(self, *args, dry_run: bool = False, **options):
        lacking = [s for s in StudySession.iter_all() if s.started_month is None]
        if dry_run:
            self.stdout.write(f"Dry run: {len(lacking)} sessions to backfill. Nothing was changed.")
            return
        written = sum(self.handle_one(session) for session in lacking)
        self.stdout.write(
            self.style.SUCCESS(f"Backfilled {written} sessions: {self.meter.summary()}.")
        )

    @staticmethod
    def handle_one(session: StudySession) -> bool:
        """Set one session's month unless it is gone or has one; return whether it was written."""
        s = StudySession
        stored = s.apply(
            session.username,
            [s.started_month.set(month_of(session.started_at))],
            condition=s.username.exists() & s.started_month.does_not_exist(),
            range_key=session.session_id,
            bump_version=False,
        )
        return stored is not None
