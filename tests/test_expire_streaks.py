"""expire_streaks: a day without a session breaks the stored streak, from an index, once."""

from __future__ import annotations

from datetime import datetime, timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command

from dynamo.models import utcnow
from stats.history.models import StudySession, session_id_for
from stats.history.recording import record_session, write_session
from stats.models import UserStats
from tests import moto_atomic
from tests.helpers import learners_for, run_together
from users.models import User
from workers import jobs

atomic_writes = moto_atomic.atomic_writes  # moto applies each write atomically

NOW = utcnow()
TODAY = NOW.date()


def at(days: int, hour: int = 0, minute: int = 30) -> datetime:
    """Return a moment `days` after today's midnight (UTC)."""
    midnight = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
    return midnight + timedelta(days=days, hours=hour, minutes=minute)


def study(username: str, when: datetime) -> None:
    record_session(username, xp=10, questions=2, correct=2, minutes=1, when=when)


def expire(now: datetime) -> str:
    out = StringIO()
    call_command("expire_streaks", now=now.isoformat(), stdout=out)
    return out.getvalue()


def streaks() -> dict[str, int]:
    return {s.username: int(s.streak) for s in UserStats.scan()}


def board() -> list[tuple[str, int]]:
    rows = UserStats.gsi_leaderboard_streak.query("ALL", scan_index_forward=False)
    return [(s.username, int(s.streak)) for s in rows]


@pytest.fixture
def learners(dynamo):
    """Alice studied yesterday and today (streak 2); Bob yesterday only (streak 1)."""
    learners_for(["alice", "bob"])
    study("alice", NOW - timedelta(days=1))
    study("alice", NOW)
    study("bob", NOW - timedelta(days=1))
    expire(NOW)  # the first run: nothing is due yet


def test_a_streak_lives_through_the_day_after_the_last_session(learners):
    output = expire(at(0, 23, 59))

    assert streaks() == {"alice": 2, "bob": 1}
    assert "due: 0, broken: 0" in output


def test_a_streak_breaks_when_a_whole_day_passes_without_a_session(learners):
    output = expire(at(1, 0, 30))  # bob's last session was the day before yesterday

    assert streaks() == {"alice": 2, "bob": 0}
    assert board() == [("alice", 2), ("bob", 0)]
    bob = UserStats.get("bob")
    assert (
        bob.streak_expires_on is None
        and bob.last_active_day == (TODAY - timedelta(days=1)).isoformat()
    )
    assert "days read: 2, due: 1, broken: 1" in output


def test_missed_days_are_caught_up_from_the_watermark(learners):
    output = expire(at(5))

    assert streaks() == {"alice": 0, "bob": 0}
    assert f"watermark: {TODAY.isoformat()} -> {at(5).date().isoformat()}" in output
    assert jobs.read_watermark("expire_streaks") == at(5).date().isoformat()


def test_a_second_run_finds_nothing_more_to_break(learners):
    expire(at(5))

    output = expire(at(5, 0, 45))

    assert "due: 0, broken: 0" in output
    assert streaks() == {"alice": 0, "bob": 0}


@pytest.mark.usefixtures("atomic_writes")
def test_runs_at_the_same_time_break_each_streak_once(learners):
    outputs = run_together(lambda: expire(at(5)), 3)

    broken = sum(int(o.split("broken: ")[1].split(",")[0]) for o in outputs)
    assert broken == 2
    assert streaks() == {"alice": 0, "bob": 0}


def test_a_session_recorded_after_the_index_was_read_keeps_the_streak(learners):
    (read,) = UserStats.gsi_streak_expires_on.query((TODAY + timedelta(days=1)).isoformat())
    study("bob", NOW)  # bob studies again before the run gets to him

    assert read.break_streak() is False
    assert UserStats.get("bob").streak == 2


def test_a_broken_streak_starts_again_at_one(learners):
    expire(at(5))

    # Five days on, as record_session would compute and write it then.
    after = UserStats.after_session(
        UserStats.get("bob", consistent_read=True),
        User.get("bob"),
        xp=1,
        questions=1,
        correct=1,
        minutes=1,
        day=at(5).date(),
        now=at(5, 9),
    )
    session = StudySession(
        "bob", session_id_for(at(5, 9)), started_at=at(5, 9), minutes=1, source="api"
    )
    assert write_session([session], after)

    stored = UserStats.get("bob")
    assert (stored.streak, stored.streak_expires_on) == (1, (at(7).date()).isoformat())


def test_stats_saved_with_a_streak_their_last_session_no_longer_holds_break_at_the_next_run(
    dynamo,
):
    learners_for(["carol"])
    expire(NOW - timedelta(hours=1))
    UserStats("carol", streak=4, last_active_day=(TODAY - timedelta(days=3)).isoformat()).save()

    expire(NOW)

    assert UserStats.get("carol").streak == 0


def test_a_last_active_day_that_is_no_date_is_a_field_error(dynamo):
    learners_for(["carol"])

    with pytest.raises(ValidationError) as refused:
        UserStats("carol", streak=1, last_active_day="yesterday").save()

    assert list(refused.value.message_dict) == ["last_active_day"]


def test_a_bad_now_is_a_command_error(dynamo):
    with pytest.raises(CommandError, match="not an ISO-8601"):
        call_command("expire_streaks", now="tomorrow", stdout=StringIO())


def test_a_first_run_reads_the_last_days_only(dynamo):
    output = expire(NOW)

    assert "days read: 3, due: 0" in output
    assert jobs.read_watermark("expire_streaks") == TODAY.isoformat()


def test_a_backfill_indexes_streaks_stored_before_expiries_existed(dynamo):
    learners_for(["dana", "eve", "finn"])
    for username, streak, last_day in (
        ("dana", 3, (TODAY - timedelta(days=1)).isoformat()),  # still current
        ("eve", 5, (TODAY - timedelta(days=9)).isoformat()),  # broken since
        ("finn", 7, None),  # no session day recorded
    ):
        UserStats(username, streak=streak, last_active_day=last_day).save()
    # As an earlier release stored them: no expiry.
    for stats in UserStats.scan():
        stats.update([UserStats.streak_expires_on.remove()])

    output = StringIO()
    call_command("expire_streaks", now=NOW.isoformat(), backfill=True, stdout=output)

    assert "Backfilled 3 streaks" in output.getvalue()
    assert streaks() == {"dana": 3, "eve": 0, "finn": 0}
    assert UserStats.get("dana").streak_expires_on == (TODAY + timedelta(days=1)).isoformat()
