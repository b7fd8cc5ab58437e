"""A study history recorded exactly once: each session with its day and the learner's totals."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from dynamo.exceptions import AlreadyExists
from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from stats.history.models import (
    SessionKey,
    StudyDay,
    StudySession,
    Totals,
    history_of,
    session_id_for,
)
from stats.history.recording import record_session
from stats.models import UserStats
from tests import moto_atomic
from tests.helpers import run_together
from users.models import User

atomic_writes = moto_atomic.atomic_writes
NOW = utcnow()
YESTERDAY = NOW - timedelta(days=1)


@pytest.fixture
def bob(bob, python) -> User:
    """Bob (tests.admin_fixtures), with Python in the catalog for his sessions."""
    return bob


def stored_totals(username: str) -> Totals:
    return Totals.stored_in(UserStats.get(username, consistent_read=True))


def test_a_session_is_stored_with_its_day_and_the_totals_it_moves(bob):
    record_session(
        "bob", xp=40, questions=10, correct=8, minutes=12.5, when=YESTERDAY, skill_id="python"
    )
    later = YESTERDAY + timedelta(seconds=1)
    record_session("bob", xp=10, questions=5, correct=5, minutes=0.1, when=later)

    sessions = history_of("bob")
    assert [(s.xp, s.skill_id, s.source) for s in sessions] == [
        (40, "python", "api"),
        (10, None, "api"),
    ]
    assert all(s.version == 1 and s.created_at is not None for s in sessions)
    day = StudyDay.get("bob", YESTERDAY.date().isoformat())
    assert (day.xp, day.sessions, day.minutes) == (50, 2, 12.6)
    assert stored_totals("bob") == Totals.of(sessions) == Totals(50, 15, 13, 12.6, 2)


def test_sessions_read_newest_first_by_when_they_started(bob):
    for days_ago in (3, 1, 2):
        record_session(
            "bob",
            xp=days_ago,
            questions=1,
            correct=1,
            minutes=1,
            when=NOW - timedelta(days=days_ago),
        )

    newest_first = list(StudySession.newest_first("bob", limit=10))

    assert [s.xp for s in newest_first] == [1, 2, 3]
    assert session_id_for(NOW) > newest_first[0].session_id


def test_a_session_for_an_unknown_skill_writes_nothing(bob):
    with pytest.raises(ValidationError) as caught:
        record_session("bob", xp=1, questions=1, correct=1, minutes=1, skill_id="cobol")

    assert list(caught.value.message_dict) == ["skill_id"]
    assert history_of("bob") == [] and UserStats.get_or_none("bob") is None
    assert list(StudyDay.query("bob")) == []


def test_a_taken_key_cancels_the_whole_transaction(bob):
    record_session("bob", xp=5, questions=1, correct=1, minutes=1)
    taken = SessionKey("bob", "k" * 64, fingerprint="f")
    taken.save()

    with pytest.raises(AlreadyExists):
        record_session(
            "bob",
            xp=100,
            questions=1,
            correct=1,
            minutes=1,
            also=lambda stats, session: [SessionKey("bob", "k" * 64, fingerprint="g")],
        )

    assert len(history_of("bob")) == 1 and stored_totals("bob").xp == 5
    assert StudyDay.get("bob", NOW.date().isoformat()).xp == 5


def test_an_actor_gets_a_history_entry_in_the_same_transaction(bob):
    record_session("bob", xp=7, questions=2, correct=1, minutes=3, actor="eve", source="admin")

    [entry] = AdminLog.history(UserStats.get("bob"))
    assert (entry.user, entry.action, entry.changes["xp"]) == ("eve", "add", [0, 7])
    assert entry.changes["session"][1]["source"] == "admin"


@pytest.mark.usefixtures("atomic_writes")
def test_concurrent_sessions_each_land_once_in_history_and_totals(bob):
    def work():
        for _ in range(3):
            record_session("bob", xp=2, questions=2, correct=1, minutes=1.1)

    run_together(work, 4)

    sessions = history_of("bob")
    assert len(sessions) == 12
    assert stored_totals("bob") == Totals.of(sessions) == Totals(24, 24, 12, 13.2, 12)
    assert StudyDay.get("bob", NOW.date().isoformat()).sessions == 12


def test_the_gardener_purges_the_learners_history(bob):
    record_session("bob", xp=5, questions=1, correct=1, minutes=1, when=YESTERDAY)
    SessionKey("bob", "a" * 64, fingerprint="f").save()
    bob.soft_delete(when=utcnow() - timedelta(days=40))

    out = StringIO()
    call_command("purge_deleted", stdout=out)

    assert "1 study sessions" in out.getvalue()
    assert list(StudySession.query("bob")) == []
    assert list(StudyDay.query("bob")) == []
    assert list(SessionKey.query("bob")) == []
