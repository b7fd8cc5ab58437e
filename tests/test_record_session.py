"""Recording study sessions: running totals, derived percentages and the streak."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError

from dynamo.exceptions import StaleVersion
from dynamo.models import utcnow
from stats.forms import StudySessionForm
from stats.history.recording import accuracy_of, efficiency_of, record_session
from stats.models import UserStats, leaderboard_partition_for
from tests import moto_atomic
from tests.helpers import joined_long_ago, run_together
from users.models import User

# Input refused before anything is written is checked on moto alone (ON_MOTO); totals, streaks,
# versions and the indexes a session moves run on both engines.
ON_MOTO = pytest.mark.engines("moto")

atomic_writes = moto_atomic.atomic_writes  # moto applies each write atomically

# Streaks are current: a session dated two days back or more no longer holds one, so the
# streak cases are dated yesterday and today.
NOW = utcnow()
MIDNIGHT = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
YESTERDAY = NOW - timedelta(days=1)
THREE_DAYS_AGO = NOW - timedelta(days=3)


@pytest.fixture(autouse=True)
def alice(request):
    """The learner the sessions are for (tests that need no engine get none)."""
    if "dynamo" in request.fixturenames:
        request.getfixturevalue("dynamo")
        User(
            "alice", name="Alice Liddell", email="alice@example.com", created_at=joined_long_ago()
        ).save()


def test_the_first_session_creates_the_stats_item(dynamo):
    stats = record_session("alice", xp=40, questions=10, correct=8, minutes=10, when=YESTERDAY)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.streak, stored.accuracy, stored.efficiency) == (40, 1, 80.0, 40.0)
    assert (stored.questions_answered, stored.questions_correct, stored.sessions) == (10, 8, 1)
    assert stored.last_active_day == YESTERDAY.date().isoformat()
    assert stored.leaderboard_partition == leaderboard_partition_for("alice")
    assert stored.version == 1 and stored.created_at is not None
    assert stats.xp == 40 and stats.version == 1


def test_totals_add_up_and_percentages_follow_the_totals(dynamo):
    record_session("alice", xp=40, questions=10, correct=8, minutes=10, when=YESTERDAY)
    stats = record_session("alice", xp=10, questions=30, correct=9, minutes=5.5, when=YESTERDAY)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.questions_answered, stored.questions_correct) == (50, 40, 17)
    assert stored.minutes_studied == 15.5
    assert stored.accuracy == accuracy_of(40, 17) == 42.5
    assert stored.efficiency == efficiency_of(17, 15.5) == 54.8
    assert (stats.accuracy, stats.efficiency) == (42.5, 54.8)


@pytest.mark.parametrize(
    ("first", "second", "streak"),
    [(YESTERDAY, YESTERDAY, 1), (YESTERDAY, NOW, 2), (THREE_DAYS_AGO, NOW, 1)],
    ids=["same-day", "next-day", "after-a-gap"],
)
def test_the_streak_keeps_grows_or_restarts(dynamo, first, second, streak):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=first)
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=second)

    stored = UserStats.get("alice")
    assert stored.streak == streak
    assert stored.last_active_day == second.date().isoformat()


def test_a_back_dated_session_leaves_the_streak_and_last_day_alone(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=YESTERDAY)
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=NOW)
    record_session("alice", xp=5, questions=1, correct=1, minutes=1, when=YESTERDAY)

    stored = UserStats.get("alice")
    assert (stored.streak, stored.last_active_day, stored.xp) == (
        2,
        NOW.date().isoformat(),
        7,
    )


@pytest.mark.usefixtures("atomic_writes")
def test_concurrent_sessions_lose_nothing(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=YESTERDAY)

    def work():
        for _ in range(5):
            record_session("alice", xp=3, questions=2, correct=1, minutes=1, when=NOW)

    run_together(work, 4)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.questions_answered, stored.questions_correct) == (61, 41, 21)
    assert (stored.sessions, stored.streak) == (21, 2)
    assert stored.version >= 21
    assert stored.accuracy == accuracy_of(41, 21)
    assert stored.efficiency == efficiency_of(21, 21)


def test_a_session_bumps_the_version_so_a_stale_edit_is_refused(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=YESTERDAY)
    edited = UserStats.get("alice")
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=YESTERDAY)

    edited.xp = 1000
    with pytest.raises(StaleVersion):
        edited.save()
    assert UserStats.get("alice").xp == 2


@ON_MOTO
@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"xp": -1}, "xp"),
        ({"xp": 1.5}, "xp"),
        ({"questions": 3, "correct": 4}, "correct"),
        ({"minutes": 0}, "minutes"),
        ({"minutes": "ten"}, "minutes"),
        ({"when": datetime(2025, 6, 2, 9, 30)}, "when"),
    ],
)
def test_bad_input_is_refused_with_a_message_for_the_field(dynamo, kwargs, field):
    session = {"xp": 10, "questions": 5, "correct": 4, "minutes": 3} | kwargs

    with pytest.raises(ValidationError) as caught:
        record_session("alice", **session)

    assert list(caught.value.message_dict) == [field]
    assert UserStats.get_or_none("alice") is None


@ON_MOTO
def test_a_bad_username_is_refused(dynamo):
    with pytest.raises(ValidationError) as caught:
        record_session("a b", xp=1, questions=1, correct=1, minutes=1)

    assert "username" in caught.value.message_dict


@ON_MOTO
def test_the_session_form_records_and_reports_field_errors(dynamo):
    form = StudySessionForm({"xp": 30, "questions": 4, "correct": 3, "minutes": 6})
    assert form.is_valid()
    form.save("alice")
    assert UserStats.get("alice").xp == 30

    bad = StudySessionForm({"xp": 30, "questions": 4, "correct": 5, "minutes": 0})
    assert not bad.is_valid()
    assert set(bad.errors) == {"correct", "minutes"}


def test_a_first_session_copies_the_learners_name_for_the_boards(dynamo):
    record_session("alice", xp=5, questions=2, correct=2, minutes=1, when=YESTERDAY)

    assert UserStats.get("alice").name == "Alice Liddell"


@ON_MOTO
@pytest.mark.parametrize(
    "when",
    [
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, tzinfo=UTC),
        MIDNIGHT - timedelta(days=366),
        utcnow() + timedelta(hours=1),
    ],
    ids=["year-1", "year-9999", "over-a-year-ago", "in-an-hour"],
)
def test_a_session_dated_in_the_future_or_over_a_year_back_is_refused(dynamo, when):
    with pytest.raises(ValidationError) as caught:
        record_session("alice", xp=10, questions=5, correct=4, minutes=3, when=when)

    assert list(caught.value.message_dict) == ["when"]
    assert UserStats.get_or_none("alice") is None


def test_a_session_eleven_months_back_is_recorded(dynamo):
    when = MIDNIGHT - timedelta(days=335)

    record_session("alice", xp=10, questions=5, correct=4, minutes=3, when=when)

    assert UserStats.get("alice").last_active_day == when.date().isoformat()


def test_a_session_for_no_learner_is_refused_and_stores_nothing(dynamo):
    with pytest.raises(ValidationError) as caught:
        record_session("nobody", xp=10, questions=5, correct=4, minutes=3)

    assert caught.value.message_dict == {"username": ["No learner has this username."]}
    assert UserStats.get_or_none("nobody") is None


def test_a_session_for_a_soft_deleted_learner_is_refused_and_keeps_them_off_the_board(dynamo):
    record_session("alice", xp=10, questions=5, correct=4, minutes=3)
    User.get("alice").soft_delete()

    with pytest.raises(ValidationError) as caught:
        record_session("alice", xp=50, questions=5, correct=4, minutes=3)

    assert "restore them" in caught.value.message_dict["username"][0]
    stored = UserStats.get("alice")
    assert (stored.xp, stored.sessions, stored.leaderboard_partition) == (10, 1, None)
    assert list(UserStats.gsi_leaderboard_xp.query("ALL")) == []


def test_a_rename_after_the_first_session_is_what_the_boards_show(dynamo):
    record_session("alice", xp=10, questions=5, correct=4, minutes=3)
    learner = User.get("alice")
    learner.name = "Alice Pleasance"
    learner.save()

    record_session("alice", xp=10, questions=5, correct=4, minutes=3)

    assert UserStats.get("alice").name == "Alice Pleasance"


@ON_MOTO
@pytest.mark.parametrize(
    ("when", "message"),
    [
        ("0001-01-01", "Cannot be more than a year ago."),
        ("9999-12-31", "Cannot be in the future."),
    ],
)
def test_the_session_form_refuses_a_date_out_of_range_as_a_field_error(dynamo, when, message):
    form = StudySessionForm({"xp": 30, "questions": 4, "correct": 3, "minutes": 6, "when": when})

    assert not form.is_valid()
    assert form.errors == {"when": [message]}
    assert UserStats.get_or_none("alice") is None


def test_the_session_form_records_a_dated_session(dynamo):
    when = (MIDNIGHT - timedelta(days=3)).strftime("%Y-%m-%d 08:15")
    form = StudySessionForm({"xp": 30, "questions": 4, "correct": 3, "minutes": 6, "when": when})

    assert form.is_valid(), form.errors
    form.save("alice")

    assert UserStats.get("alice").last_active_day == when[:10]


def test_a_session_sets_the_day_its_streak_breaks(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=YESTERDAY)

    stored = UserStats.get("alice")
    assert stored.streak_expires_on == (YESTERDAY.date() + timedelta(days=2)).isoformat()
    assert [
        s.username for s in UserStats.gsi_streak_expires_on.query(stored.streak_expires_on)
    ] == ["alice"]


def test_a_back_dated_first_session_whose_streak_has_broken_since_holds_no_streak(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=THREE_DAYS_AGO)

    stored = UserStats.get("alice")
    assert (stored.streak, stored.streak_expires_on) == (0, None)
    assert stored.last_active_day == THREE_DAYS_AGO.date().isoformat()
