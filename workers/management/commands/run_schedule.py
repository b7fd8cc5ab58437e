"""Run the periodic commands of the SCHEDULE setting, each on its interval, until stopped."""

from __future__ import annotations

import logging
import shlex
import signal
import time
from collections.abc import Callable
from datetime import timedelta
from io import StringIO

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.utils.module_loading import import_string

logger = logging.getLogger("skillboard.schedule")


Entry = tuple[str, tuple[str, ...], timedelta]  # (command, its arguments, interval)


class Scheduler:
    """Runs each (command, arguments, interval) entry when due; a failure never stops the rest."""

    def __init__(self, entries: list[Entry], clock: Callable[[], float]):
        self.entries = entries
        self.clock = clock
        # Everything is due at start: each command catches up what it missed while stopped.
        self.next_run = {(name, tuple(args)): clock() for name, args, _ in entries}

    def run_due(self) -> list[str]:
        """Run every entry whose time has come; return the command lines that ran."""
        ran = []
        for name, args, interval in self.entries:
            key = (name, tuple(args))
            if self.clock() < self.next_run[key]:
                continue
            self.run_one(name, *args)
            self.next_run[key] = self.clock() + interval.total_seconds()
            ran.append(shlex.join(key[:1] + key[1]))
        return ran

    def seconds_to_next(self) -> float:
        """Return how long until the next entry is due."""
        return max(0.0, min(self.next_run.values()) - self.clock())

    def run_one(self, name: str, *args: str) -> bool:
        """Run one command in this process; log one line saying how it went."""
        line = shlex.join([name, *args])
        out = StringIO()
        started = time.perf_counter()
        try:
            call_command(name, *args, stdout=out, stderr=out)
        except Exception as exc:  # any failure is one log line; the next entry still runs
            reason = " ".join(str(exc).split()) or type(exc).__name__
            logger.error("%s failed: %s", line, reason, extra={"command": line, "ok": False})
            return False
        summary = (out.getvalue().strip().splitlines() or ["done"])[-1]
        logger.info(
            "%s: %s (%.1f s)",
            line,
            summary,
            time.perf_counter() - started,
            extra={"command": line, "ok": True},
        )
        return True


class Command(BaseCommand):
    help = (
        "Run the periodic commands of the SCHEDULE setting, each on its interval, "
        "until stopped (SIGTERM or Ctrl-C); --once runs each of them once and exits."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="Run every entry once, then exit.")

    def handle(self, *args, once: bool = False, **options):
        scheduler = Scheduler(scheduled_entries(), time.monotonic)
        if once:
            scheduler.run_due()
            return
        signal.signal(signal.SIGTERM, _leave)
        try:
            while True:
                scheduler.run_due()
                time.sleep(max(1.0, scheduler.seconds_to_next()))
        except (KeyboardInterrupt, SystemExit):
            self.stdout.write("Scheduler stopped.")


def scheduled_entries() -> list[Entry]:
    """Return the SCHEDULE setting's entries: a list, or the dotted path of one."""
    entries = getattr(settings, "SCHEDULE", None)
    if isinstance(entries, str):
        try:
            entries = import_string(entries)
        except ImportError as exc:
            raise CommandError(f"SCHEDULE names {entries!r}, which cannot be imported.") from exc
    if not entries:
        raise CommandError("Set SCHEDULE to the (command, arguments, interval) entries to run.")
    for entry in entries:
        if not (len(entry) == 3 and isinstance(entry[0], str) and isinstance(entry[2], timedelta)):
            raise CommandError(
                f"SCHEDULE entry {entry!r} is not (command, arguments, interval), "
                'e.g. ("sync_user_skills", ("--pending",), timedelta(minutes=1)).'
            )
    return list(entries)


def _leave(signum, _frame):
    raise SystemExit(0)
