"""Periodic work: each entry is a management command, its arguments and how often it runs.

`make run` runs them with `manage.py run_schedule` (call_command(command, *args)); production
runs the same commands from cron or EventBridge on as many hosts as you like (each command
takes a lease or is idempotent).
"""

from datetime import timedelta

SCHEDULE: list[tuple[str, tuple[str, ...], timedelta]] = [
    ("sync_user_skills", ("--pending",), timedelta(minutes=1)),
    ("send_reminders", (), timedelta(hours=1)),
    ("expire_streaks", (), timedelta(hours=1)),
    ("rebuild_rank_tiers", (), timedelta(minutes=15)),
    ("purge_deleted", (), timedelta(days=1)),
]
