"""Recording study sessions: running totals, derived percentages and the streak."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ValidationError

from dynamo.exceptions import StaleVersion
from stats.activity import accuracy_of, efficiency_of, record_session
from stats.forms import StudySessionForm
from stats.models import UserStats, leaderboard_partition_for
from tests import moto_atomic
from tests.helpers import run_together

atomic_writes = moto_atomic.atomic_writes  # moto applies each write atomically

MONDAY = datetime(2025, 6, 2, 9, 30, tzinfo=UTC)
TUESDAY = datetime(2025, 6, 3, 22, 0, tzinfo=UTC)
THURSDAY = datetime(2025, 6, 5, 7, 0, tzinfo=UTC)


def test_the_first_session_creates_the_stats_item(dynamo):
    stats = record_session("alice", xp=40, questions=10, correct=8, minutes=10, when=MONDAY)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.streak, stored.accuracy, stored.efficiency) == (40, 1, 80.0, 40.0)
    assert (stored.questions_answered, stored.questions_correct, stored.sessions) == (10, 8, 1)
    assert stored.last_active_day == "2025-06-02"
    assert stored.leaderboard_partition == leaderboard_partition_for("alice")
    assert stored.version == 1 and stored.created_at is not None
    assert stats.xp == 40 and stats.version == 1


def test_totals_add_up_and_percentages_follow_the_totals(dynamo):
    record_session("alice", xp=40, questions=10, correct=8, minutes=10, when=MONDAY)
    stats = record_session("alice", xp=10, questions=30, correct=9, minutes=5.5, when=MONDAY)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.questions_answered, stored.questions_correct) == (50, 40, 17)
    assert stored.minutes_studied == 15.5
    assert stored.accuracy == accuracy_of(40, 17) == 42.5
    assert stored.efficiency == efficiency_of(17, 15.5) == 54.8
    assert (stats.accuracy, stats.efficiency) == (42.5, 54.8)


@pytest.mark.parametrize(
    ("second", "streak"),
    [(MONDAY, 1), (TUESDAY, 2), (THURSDAY, 1)],
    ids=["same-day", "next-day", "after-a-gap"],
)
def test_the_streak_keeps_grows_or_restarts(dynamo, second, streak):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=MONDAY)
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=second)

    stored = UserStats.get("alice")
    assert stored.streak == streak
    assert stored.last_active_day == second.date().isoformat()


def test_a_back_dated_session_leaves_the_streak_and_last_day_alone(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=MONDAY)
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=TUESDAY)
    record_session("alice", xp=5, questions=1, correct=1, minutes=1, when=MONDAY)

    stored = UserStats.get("alice")
    assert (stored.streak, stored.last_active_day, stored.xp) == (2, "2025-06-03", 7)


@pytest.mark.usefixtures("atomic_writes")
def test_concurrent_sessions_lose_nothing(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=MONDAY)

    def work():
        for _ in range(5):
            record_session("alice", xp=3, questions=2, correct=1, minutes=1, when=TUESDAY)

    run_together(work, 4)

    stored = UserStats.get("alice")
    assert (stored.xp, stored.questions_answered, stored.questions_correct) == (61, 41, 21)
    assert (stored.sessions, stored.streak) == (21, 2)
    assert stored.version >= 21
    assert stored.accuracy == accuracy_of(41, 21)
    assert stored.efficiency == efficiency_of(21, 21)


def test_a_session_bumps_the_version_so_a_stale_edit_is_refused(dynamo):
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=MONDAY)
    edited = UserStats.get("alice")
    record_session("alice", xp=1, questions=1, correct=1, minutes=1, when=MONDAY)

    edited.xp = 1000
    with pytest.raises(StaleVersion):
        edited.save()
    assert UserStats.get("alice").xp == 2


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


def test_a_bad_username_is_refused(dynamo):
    with pytest.raises(ValidationError) as caught:
        record_session("a b", xp=1, questions=1, correct=1, minutes=1)

    assert "username" in caught.value.message_dict


def test_the_session_form_records_and_reports_field_errors(dynamo):
    form = StudySessionForm({"xp": 30, "questions": 4, "correct": 3, "minutes": 6})
    assert form.is_valid()
    form.save("alice")
    assert UserStats.get("alice").xp == 30

    bad = StudySessionForm({"xp": 30, "questions": 4, "correct": 5, "minutes": 0})
    assert not bad.is_valid()
    assert set(bad.errors) == {"correct", "minutes"}


def test_a_first_session_copies_the_learners_name_for_the_boards(dynamo):
    from users.models import User

    User("alice", name="Alice Liddell", email="alice@example.com").save()

    record_session("alice", xp=5, questions=2, correct=2, minutes=1, when=MONDAY)

    assert UserStats.get("alice").name == "Alice Liddell"
