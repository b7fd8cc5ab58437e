"""Rebuild every board's score tiers from one pass over its index: the proof and repair of the
counts the user-stats stream keeps (see stats/boards/tiers.py and stats/boards/upkeep.py)."""

from __future__ import annotations

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand
from dynamo.models import utcnow
from stats.boards import tiers, upkeep
from stats.models import METRICS

PROGRESS_EVERY = 50_000  # learners read between progress lines


class Command(DynamoCommand):
    help = (
        "Rebuild the score tiers that ranks are read from: one pass over each board's index, "
        "a new generation of tiers with exact counts, then the board points at it, reporting "
        "how far the counts the stream kept were off. Safe to run on several hosts at once and "
        "after a kill: the build that started last wins, the rest is cleared."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "metrics",
            nargs="*",
            metavar="METRIC",
            help=f"boards to rebuild (default: all of {', '.join(METRICS)})",
        )
        parser.add_argument(
            "--tier-size", type=int, default=tiers.TIER_SIZE, help="learners per tier (10-1000)"
        )

    def handle(self, *args, **options):
        metrics = options["metrics"] or list(METRICS)
        unknown = sorted(set(metrics) - set(METRICS))
        if unknown:
            raise CommandError(
                f"Unknown metric {', '.join(unknown)}: choose from {', '.join(METRICS)}."
            )
        if not 10 <= options["tier_size"] <= 1000:
            raise CommandError("--tier-size must be between 10 and 1000.")
        for metric in metrics:
            self.handle_one(metric, options["tier_size"])
        cleared = tiers.clear_unused(utcnow())
        self.stdout.write(f"Cleared {cleared} tiers of unused generations. {self.meter.summary()}")

    def handle_one(self, metric: str, size: int) -> None:
        """Count one board's scores, store a generation of tiers and hand it over."""
        started = utcnow()
        generation = tiers.new_generation(started)
        before = len(self.meter.calls)
        # Opened before the pass: every change made during it is read back from the stream.
        try:
            window = upkeep.open_window()
        except upkeep.UpkeepError as exc:
            raise CommandError(str(exc)) from exc
        seen: dict = {}
        counts = tiers.score_counts(
            metric, progress=lambda read: self.progress(metric, read), seen=seen
        )
        read = counts.total()
        cut = tiers.cut_tiers(counts, size)
        written = tiers.write_tiers(metric, generation, cut)
        if utcnow() - started > tiers.STALE_AFTER:
            tiers.drop_generation(metric, generation)
            raise CommandError(
                f"{metric}: the build took longer than {tiers.STALE_AFTER}; it was dropped."
            )
        try:
            done = upkeep.hand_over(metric, generation, cut, counts, seen, window)
        except upkeep.UpkeepError as exc:
            tiers.drop_generation(metric, generation)
            raise CommandError(f"{metric}: {exc}") from exc
        if done.current:
            outcome = "now current"
            if done.difference:
                outcome += f"; corrected the kept counts, off by {done.difference:,} in all"
            elif done.difference == 0:
                outcome += "; the kept counts were exact"
            if done.moved:
                outcome += f"; {done.moved:,} learners moved during the pass"
        else:
            tiers.drop_generation(metric, generation)
            outcome = "dropped: a build that started later is current"
        calls = self.meter.calls[before:]
        self.stdout.write(
            f"{metric}: {read:,} learners in {written:,} tiers, generation {generation} "
            f"{outcome}: {len(calls)} DynamoDB calls, "
            f"{sum(c.read_units for c in calls):g} RCU, {sum(c.write_units for c in calls):g} WCU."
        )

    def progress(self, metric: str, read: int) -> None:
        if read and read % PROGRESS_EVERY < tiers.PAGE_SIZE:
            self.stdout.write(f"{metric}: read {read:,} learners...")
