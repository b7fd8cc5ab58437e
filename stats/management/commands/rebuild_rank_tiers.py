"""Rebuild every board's score tiers from one pass over its index (see stats/boards/tiers.py)."""

from __future__ import annotations

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand
from dynamo.models import utcnow
from stats.boards import tiers
from stats.models import METRICS, leaderboard_partitions

PROGRESS_EVERY = 50_000  # learners read between progress lines


class Command(DynamoCommand):
    help = (
        "Rebuild the score tiers that ranks are read from: one pass over each board's index, "
        "a new generation of tiers, then the board points at it. Safe to run on several hosts "
        "at once and after a kill: the build that started last wins, the rest is cleared."
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
        """Count one board's scores, store a generation of tiers and make it current."""
        started = utcnow()
        generation = tiers.new_generation(started)
        before = len(self.meter.calls)
        # Read before the pass: a move after this read moves a counter past what is kept.
        moves = tiers.read_moves(leaderboard_partitions())
        counts = tiers.score_counts(metric, progress=lambda read: self.progress(metric, read))
        read = counts.total()
        cut = tiers.cut_tiers(counts, size)
        written = tiers.write_tiers(metric, generation, cut)
        if utcnow() - started > tiers.STALE_AFTER:
            tiers.drop_generation(metric, generation)
            raise CommandError(
                f"{metric}: the build took longer than {tiers.STALE_AFTER}; it was dropped."
            )
        top_above = tiers.live_above(cut)
        if tiers.make_current(metric, generation, read, written, top_above=top_above, moves=moves):
            outcome = "now current"
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
