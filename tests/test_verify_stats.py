"""verify_stats: totals recomputed from the history; drift printed, and mended with --fix."""

from __future__ import annotations

from io import StringIO

import pytest
from botocore.exceptions import EndpointConnectionError
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo_admin.models import AdminLog
from stats.history.models import DayTotals, StudyDay, Totals, history_of
from stats.history.recording import record_correction, record_session
from stats.models import UserStats
from tests.admin_fixtures import record_session_action
from users.models import User
from workers import jobs


def verify(*args: str) -> str:
    out = StringIO()
    call_command("verify_stats", *args, stdout=out)
    return out.getvalue()


@pytest.fixture
def learners(dynamo) -> None:
    for username in ("ann", "ben", "cat"):
        User(username, name=username.title(), email=f"{username}@example.com").save()
        record_session(username, xp=30, questions=10, correct=7, minutes=20)
        record_session(username, xp=12, questions=4, correct=4, minutes=2.5)


def drift(username: str) -> None:
    """Move a learner's totals behind the history's back (a bug, a hand edit)."""
    stats = UserStats.get(username)
    UserStats.apply(username, [UserStats.xp.set(999), UserStats.sessions.set(5)])
    assert UserStats.get(username).version == stats.version + 1


def test_it_finds_nothing_when_the_totals_are_the_sums_of_the_history(learners):
    assert "Every learner's totals and study days match their history." in verify()


def test_it_prints_the_drift_and_exits_non_zero_without_fix(learners):
    drift("ben")

    with pytest.raises(CommandError, match="1 learners' totals differ"):
        verify()

    assert UserStats.get("ben").xp == 999


def test_the_drift_line_names_the_totals_that_differ(learners):
    drift("ben")
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("verify_stats", stdout=out)
    assert "ben: xp 999 (history 42), sessions 5 (history 2)" in out.getvalue()


def test_fix_rewrites_the_totals_from_the_history(learners):
    drift("ben")

    output = verify("--fix", "--threads", "2")

    assert "ben: xp 999 (history 42), sessions 5 (history 2): fixed" in output
    stored = UserStats.get("ben")
    assert Totals.stored_in(stored) == Totals.of(history_of("ben"))
    assert (stored.accuracy, stored.efficiency) == stored.derived_metrics()
    assert "match their history" in verify()


def test_fix_is_conditional_on_the_version_it_read(learners):
    drift("ben")
    read = UserStats.get("ben")
    record_session("ben", xp=1, questions=1, correct=1, minutes=1)  # lands after the read

    assert read.mend_totals(Totals.of(history_of("ben"))) is False
    assert UserStats.get("ben").xp == 1000


def test_one_learner_can_be_checked_alone(learners):
    drift("ben")

    assert "match their history" in verify("--username", "ann")
    with pytest.raises(CommandError, match="No learner 'zed' has stats"):
        verify("--username", "zed")


def test_a_run_that_dies_is_finished_by_the_next_from_where_it_stopped(learners, monkeypatch):
    from stats.management.commands import verify_stats

    monkeypatch.setattr(verify_stats, "PAGE_SIZE", 1)
    read = []

    def dies_on_the_second_learner(username):
        read.append(username)
        if len(read) == 2:
            raise EndpointConnectionError(endpoint_url="http://127.0.0.1:1")
        return history_of(username)

    monkeypatch.setattr(verify_stats, "history_of", dies_on_the_second_learner)
    with pytest.raises(CommandError, match=r"Could not connect|127\.0\.0\.1"):
        verify("--threads", "1")
    assert jobs.read_state("verify_stats")["checked"] == 1

    output = verify("--threads", "1")

    assert "Resuming after 1 learners checked earlier." in output
    assert len(read) == 4  # the first learner is not read again
    assert jobs.read_state("verify_stats") is None


def test_after_seed_api_and_admin_writes_the_totals_are_the_sums(dynamo, api_client, admin_client):
    call_command("seed", "--users", "6", stdout=StringIO())
    usernames = sorted(stats.username for stats in UserStats.scan())
    for username in usernames[:3]:
        session = {"xp": 9, "questions": 3, "correct": 2, "minutes": 1.5}
        assert api_client.post(f"/api/learners/{username}/sessions", session).status_code == 201
    record_session_action(admin_client, usernames[2:], xp=4, questions=1, correct=1, minutes=2)

    assert "Every learner's totals and study days match their history." in verify()
    for username in usernames:
        assert Totals.stored_in(UserStats.get(username)) == Totals.of(history_of(username))
    assert {s.source for u in usernames for s in history_of(u)} == {"seed", "api", "admin"}


def test_a_drifted_study_day_is_named_by_learner_day_field_stored_and_expected(learners):
    [day] = StudyDay.query("cat")
    StudyDay.apply("cat", [StudyDay.xp.set(500)], range_key=day.day)

    with pytest.raises(CommandError, match="1 learners' totals differ"):
        call_command("verify_stats", stdout=(out := StringIO()))

    assert f"cat {day.day}: xp 500 (history 42)" in out.getvalue()
    assert "cat:" not in out.getvalue()  # the totals themselves are right


def test_fix_mends_the_day_and_the_totals_and_logs_one_entry_by_the_command(learners):
    [day] = StudyDay.query("cat")
    StudyDay.apply("cat", [StudyDay.xp.set(500), StudyDay.sessions.set(9)], range_key=day.day)
    drift("cat")

    output = verify("--fix")

    assert f"cat {day.day}: xp 500 (history 42), sessions 9 (history 2): fixed" in output
    mended = StudyDay.get("cat", day.day)
    assert (mended.xp, mended.sessions, mended.minutes) == (42, 2, 22.5)
    [entry] = [e for e in AdminLog.history(UserStats("cat")) if e.user == "verify_stats"]
    assert entry.changes == {
        "xp": [999, 42],
        "sessions": [5, 2],
        f"{day.day} xp": [500, 42],
        f"{day.day} sessions": [9, 2],
    }
    assert "match their history" in verify()


def test_a_day_with_no_session_is_removed_and_a_missing_day_is_written(learners):
    [day] = StudyDay.query("ann")
    day.delete()
    StudyDay("ann", "2020-01-01", xp=5, sessions=1, minutes=3).save()

    output = verify("--fix")

    assert (
        f"ann {day.day}: xp 0 (history 42), sessions 0 (history 2), minutes 0 (history 22.5)"
        in (output)
    )
    assert [d.day for d in StudyDay.query("ann")] == [day.day]
    assert "match their history" in verify()


def test_a_day_fix_is_conditional_on_the_version_it_read(learners):
    [day] = StudyDay.query("ben")
    read = StudyDay.get("ben", day.day)
    record_session("ben", xp=1, questions=1, correct=1, minutes=1)  # moves the day after the read

    assert StudyDay.mend("ben", day.day, read, DayTotals(xp=42, sessions=2, minutes=22.5)) is False
    assert StudyDay.get("ben", day.day).xp == 43


def test_a_correction_is_summed_by_verify_stats_and_counts_as_no_session(learners):
    record_correction("ann", xp=-40, reason="Duplicate import of two sessions", actor="ada")

    stats = UserStats.get("ann")
    assert (stats.xp, stats.sessions) == (2, 2)
    assert "match their history" in verify()
