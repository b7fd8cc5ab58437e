"""verify_stats: recompute each learner's totals from their study history; mend drift with --fix."""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError

from dynamo import tables
from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo.parallel import add_threads_argument, run_parallel
from dynamo_admin.models import CHANGE, AdminLog
from stats.history.models import DayTotals, StudyDay, Totals, history_of
from stats.history.verify import Check, day_drift, drift_of
from stats.models import UserStats
from workers import jobs

JOB = "verify_stats"
ACTOR = "verify_stats"  # the History entries' author: the command, not a staff member
PAGE_SIZE = 200


class Command(DynamoCommand):
    help = (
        "Recompute every learner's totals (XP, questions, right answers, minutes, sessions, and "
        "the accuracy and efficiency they give) and each study day (XP, sessions, minutes) from "
        "their study sessions and print what differs (learner, day, field, stored, expected); "
        "--fix rewrites it, each conditional on the version read, with one History entry per "
        "learner mended. Resumable: a run that stops is continued by the next (its position is "
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
        return [check for check in found if check.drifted]

    def handle_one(self, stats: UserStats) -> Check:
        """Compare one learner's totals and days with their sessions; mend them with --fix."""
        # Read before the sessions: a session landing after them bumps the version of the
        # stats and of its day, so a fix based on this read is then refused, not wrong.
        days = {day.day: day for day in StudyDay.query(stats.username, consistent_read=True)}
        sessions = history_of(stats.username)
        totals, wanted = Totals.of(sessions), DayTotals.by_day(sessions)
        check = Check(stats.username, drift_of(stats, totals), day_drift(days, wanted))
        if check.drifted and self.fix:
            self.mend(check, stats, totals, days, wanted)
        return check

    def mend(
        self,
        check: Check,
        stats: UserStats,
        totals: Totals,
        days: dict[str, StudyDay],
        wanted: dict[str, DayTotals],
    ) -> None:
        """Rewrite what drifted, each conditionally; log what was mended in one entry."""
        mended: dict[str, list[Any]] = {}
        fixed = True
        if check.drift:
            if stats.mend_totals(totals):
                mended.update({name: list(values) for name, values in check.drift.items()})
            else:
                fixed = False
        for day, fields in check.days.items():
            if StudyDay.mend(stats.username, day, days.get(day), wanted.get(day)):
                mended.update({f"{day} {name}": list(v) for name, v in fields.items()})
            else:
                fixed = False
        check.fixed = fixed
        if mended:
            # On the stats' History, beside the sessions: who mended what, from what to what.
            AdminLog.record(UserStats(stats.username), CHANGE, ACTOR, mended)

    def report(self, checks: list[Check]) -> None:
        drifted = [check for check in checks if check.drifted]
        outcome = {True: ": fixed", False: ": changed meanwhile, not fixed", None: ""}
        for check in sorted(drifted, key=lambda c: c.username):
            lines = []
            if check.drift:
                lines.append((check.username, check.drift))
            lines += [(f"{check.username} {day}", fields) for day, fields in check.days.items()]
            for where, fields in lines:
                differences = ", ".join(
                    f"{name} {stored:g} (history {wanted:g})"
                    for name, (stored, wanted) in fields.items()
                )
                self.stdout.write(f"{where}: {differences}{outcome[check.fixed]}")
        unfixed = [check for check in drifted if not check.fixed]
        if not drifted:
            self.stdout.write(
                self.style.SUCCESS("Every learner's totals and study days match their history.")
            )
        elif not unfixed:
            self.stdout.write(self.style.SUCCESS(f"Fixed the totals of {len(drifted)} learners."))
        else:
            hint = "run it again" if self.fix else "run with --fix to mend them"
            raise CommandError(
                f"{len(unfixed)} learners' totals differ from their history: {hint}."
            )
