"""Reminder run cost on DynamoDB Local: read capacity against the number of due reminders.

Run: .venv/bin/python bench/reminders.py [--users 100000]
100,000 learners have a daily reminder spread evenly over one week of hour buckets; runs
that catch up 1, 4 and 24 hours show that the reads follow what is due, not the user count.
Prints a Markdown report (bench/results/reminders.md holds the last one).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime, timedelta

from common import engine, timed, write_learners

START = datetime(2025, 6, 2, 0, 0, tzinfo=UTC)
WEEK_MINUTES = 7 * 24 * 60


def spread(n: int, rng) -> datetime:
    return START + timedelta(minutes=rng.randrange(WEEK_MINUTES), seconds=rng.randrange(60))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    args = parser.parse_args()
    out = [f"# Reminder runs on DynamoDB Local, {args.users:,} learners\n"]
    with engine() as endpoint:
        from django.core import mail

        from stats.models import UserStats, reminder_bucket
        from stats.reminders import sending

        print(f"DynamoDB Local on {endpoint}; writing {args.users:,} learners", file=sys.stderr)
        seconds = write_learners(args.users, reminders=spread)
        out.append(
            f"Wrote {args.users:,} learners with a reminder each, spread evenly over the "
            f"{7 * 24} hour buckets of one week, in {seconds:.0f} s."
        )
        sending.store_watermark(None, reminder_bucket(START))
        out.append(
            "\n| run | buckets read | due | sent | DynamoDB calls | RCU | WCU | RCU per due | s |"
        )
        out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        now = START
        for label, hours in (
            ("catch up 1 hour", 1),
            ("catch up 4 hours", 4),
            ("catch up 24 hours", 24),
        ):
            now += timedelta(hours=hours)
            mail.outbox = []
            summary, meter, ms = timed(sending.send_due, now)
            assert summary.failed == 0 and summary.sent == len(mail.outbox)
            per_due = meter.read_units / summary.due if summary.due else 0
            out.append(
                f"| {label} (`--now {now:%Y-%m-%dT%H:%M}Z`) | {summary.buckets} | {summary.due:,} "
                f"| {summary.sent:,} | {meter.count:,} | {meter.read_units:g} | "
                f"{meter.write_units:g} | {per_due:.2f} | {ms / 1000:.1f} |"
            )
        summary, meter, ms = timed(sending.send_due, now + timedelta(minutes=1))
        out.append(
            f"| one minute later | {summary.buckets} | {summary.due} | "
            f"{summary.sent} | {meter.count} | {meter.read_units:g} | {meter.write_units:g} | - "
            f"| {ms / 1000:.1f} |"
        )
        summary, meter, ms = timed(sending.send_due, now + timedelta(hours=1), dry_run=True)
        out.append(
            f"| `--dry-run` an hour later | {summary.buckets} | {summary.due} | 0 | "
            f"{meter.count} | {meter.read_units:g} | {meter.write_units:g} | - | {ms / 1000:.1f} |"
        )
        _, meter, ms = timed(lambda: sum(1 for _ in UserStats.scan()))
        out.append(
            f"\nFor scale, one Scan of the user-stats table (the naive way to find due "
            f"reminders) costs {meter.read_units:g} RCU in {meter.count} calls "
            f"({ms / 1000:.1f} s), whatever is due."
        )
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
