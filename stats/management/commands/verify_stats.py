"""verify_stats: recompute each learner's totals from their study history; mend drift with --fix."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.management.base import CommandError

from dynamo import jobs, tables
from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo.parallel import add_threads_argument, run_parallel
from stats.history import Totals, history_of
from stats.models import UserStats

JOB = "verify_stats"
PAGE_SIZE = 200
COMPARED = ("xp", "questions_answered", "questions_correct", "minutes_studied", "sessions")


@dataclass
class Check:
    """One learner's outcome: `drift` names what differs; `fixed` None when not asked to."""

    username: str
    drift: dict[str, tuple[Any, Any]]
    fixed: bool | None = None


def drift_of(stats: UserStats, totals: Totals) -> dict[str, tuple[Any, Any]]:
    """Return {total: (stored, from history)} for every total, or metric, that differs."""
    stored = Totals.stored_in(stats)
    drift = {
        name: (getattr(stored, name), getattr(totals, name))
        for name in COMPARED
        if getattr(stored, name) != getattr(totals, name)
    }
    wanted = UserStats(
        stats.username,
        questions_answered=totals.questions_answered,
        questions_correct=totals.questions_correct,
        minutes_studied=totals.minutes_studied,
    ).derived_metrics()
    for name, value in zip(("accuracy", "efficiency"), wanted, strict=True):
        if getattr(stats, name) != value:
            drift[name] = (getattr(stats, name), value)
    return drift


class Command(DynamoCommand):
    help = (
        "Recompute every learner's totals (XP, questions, right answers, minutes, sessions, and "
        "the accuracy and efficiency they give) from their study history and print the "
        "learners whose stored totals differ; --fix rewrites them, each conditional on the "
        "version read. Resumable: a run that stops is continued by the next (its position is "
        "kept in the jobs table) unless --restart. Exits 1 while drift is left unfixed."
    )

    def add_arguments(self, parser):
        parser.add_argument("--fix", action="store_true", help="Rewrite the totals that differ.")
        parser.add_argument("--username", help="Check one learner only.")
        parser.add_argument(
            "--restart", action="store_true", help="Start from the first learner again."
        )
        add_threads_argument(parser)

    def handle(self, *args, fix: bool = False, username: str | None = None, **options):
        self.fix = fix
        if username:
            stats = UserStats.get_or_none(username, consistent_read=True)
            if stats is None:
                raise CommandError(f"No learner {username!r} has stats.")
            checks = [self.handle_one(stats)]
        else:
            checks = self.check_everyone(options["threads"], restart=options["restart"])
        self.report(checks)

    def check_everyone(self, threads: int, *, restart: bool) -> list[Check]:
        """Check every learner page by page, keeping the position after each page."""
        state = None if restart else jobs.read_state(JOB)
        start = state["after"] if state else None
        if start:
            self.stdout.write(f"Resuming after {state['checked']:,} learners checked earlier.")
        checked = state["checked"] if state else 0
        found: list[Check] = []
        approximate = (tables.describe(UserStats) or {}).get("ItemCount", 0)
        with Progress(self.stdout, max(approximate, checked), "Verifying", "learners") as progress:
            progress.update(checked)
            while True:
                page = UserStats.scan(
                    limit=PAGE_SIZE, page_size=PAGE_SIZE, last_evaluated_key=start
                )
                items = list(page)
                run_parallel(self.handle_one, items, threads=threads, on_done=found.append)
                checked += len(items)
                progress.update(len(items))
                start = page.last_evaluated_key
                if not start:
                    break
                jobs.store_state(JOB, {"after": start, "checked": checked})
        jobs.forget(JOB)
        return [check for check in found if check.drift]

    def handle_one(self, stats: UserStats) -> Check:
        """Compare one learner's stored totals with their history; mend them with --fix."""
        # A session landing after `stats` was read bumps its version: the fix is then refused.
        totals = Totals.of(history_of(stats.username))
        check = Check(stats.username, drift_of(stats, totals))
        if check.drift and self.fix:
            check.fixed = stats.mend_totals(totals)
        return check

    def report(self, checks: list[Check]) -> None:
        drifted = [check for check in checks if check.drift]
        for check in sorted(drifted, key=lambda c: c.username):
            differences = ", ".join(
                f"{name} {stored:g} (history {wanted:g})"
                for name, (stored, wanted) in check.drift.items()
            )
            outcome = {True: ": fixed", False: ": changed meanwhile, not fixed", None: ""}
            self.stdout.write(f"{check.username}: {differences}{outcome[check.fixed]}")
        unfixed = [check for check in drifted if not check.fixed]
        if not drifted:
            self.stdout.write(self.style.SUCCESS("Every learner's totals match their history."))
        elif not unfixed:
            self.stdout.write(self.style.SUCCESS(f"Fixed the totals of {len(drifted)} learners."))
        else:
            hint = "run it again" if self.fix else "run with --fix to mend them"
            raise CommandError(
                f"{len(unfixed)} learners' totals differ from their history: {hint}."
            )
