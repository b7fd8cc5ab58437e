"""run_schedule: each periodic command on its interval; a missing or failing one never stops it."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from dynamo.models import utcnow
from project import schedule
from users.models import User
from workers.management.commands.run_schedule import Scheduler

# The schedule's intervals and failures: nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_schedule_names_every_periodic_command_with_its_interval():
    assert [
        ("sync_user_skills", ("--pending",), timedelta(minutes=1)),
        ("send_reminders", (), timedelta(hours=1)),
        ("expire_streaks", (), timedelta(hours=1)),
        ("rebuild_rank_tiers", (), timedelta(minutes=15)),
        ("purge_deleted", (), timedelta(days=1)),
    ] == schedule.SCHEDULE


def test_each_entry_runs_at_start_then_once_per_interval():
    clock = FakeClock()
    scheduler = Scheduler(
        [("check", (), timedelta(minutes=1)), ("diffsettings", ("--all",), timedelta(hours=1))],
        clock,
    )

    assert scheduler.run_due() == ["check", "diffsettings --all"]
    clock.now += 59
    assert scheduler.run_due() == []
    assert scheduler.seconds_to_next() == 1
    clock.now += 1
    assert scheduler.run_due() == ["check"]
    clock.now += 3600
    assert scheduler.run_due() == ["check", "diffsettings --all"]


def test_once_runs_the_schedule_past_a_missing_and_a_failing_command(dynamo, monkeypatch, caplog):
    monkeypatch.setattr(
        schedule,
        "SCHEDULE",
        [
            ("no_such_command", (), timedelta(minutes=1)),
            ("purge_deleted", ("--no-such-flag",), timedelta(minutes=1)),
            ("purge_deleted", (), timedelta(days=1)),
        ],
    )
    gone = User("gone.long", name="Gone", email="gone@example.com")
    gone.save()
    gone.soft_delete(when=utcnow() - timedelta(days=45))
    caplog.set_level(logging.INFO, logger="skillboard.schedule")

    call_command("run_schedule", "--once")

    assert User.get_or_none("gone.long") is None
    lines = [r.getMessage() for r in caplog.records if r.name == "skillboard.schedule"]
    assert len(lines) == 3
    assert lines[0].startswith("no_such_command failed: Unknown command")
    assert lines[1].startswith("purge_deleted --no-such-flag failed:")
    assert lines[2].startswith("purge_deleted: Purged 1 users")


def test_the_entries_come_from_the_schedule_setting_as_a_list_or_a_path(settings, caplog):
    settings.SCHEDULE = [("check", (), timedelta(minutes=1))]
    caplog.set_level(logging.INFO, logger="skillboard.schedule")

    call_command("run_schedule", "--once")

    lines = [r.getMessage() for r in caplog.records if r.name == "skillboard.schedule"]
    assert [line.split(":")[0] for line in lines] == ["check"]


@pytest.mark.parametrize(
    "value",
    [None, [], "project.schedule.NO_SUCH_LIST", [("purge_deleted --dry-run", timedelta(days=1))]],
)
def test_a_missing_or_unimportable_schedule_is_a_command_error(settings, value):
    settings.SCHEDULE = value

    with pytest.raises(CommandError, match="SCHEDULE"):
        call_command("run_schedule", "--once")
