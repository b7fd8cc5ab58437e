"""A hard delete takes the learner's study history: sessions, days and Idempotency-Keys."""

from __future__ import annotations

import threading
from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from dynamo.batch import batch_put
from dynamo.exceptions import ConflictError
from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from stats.boards import tiers
from stats.history.models import SessionKey, StudyDay, StudySession, session_id_for
from stats.history.recording import record_session
from stats.models import UserStats
from tests import moto_atomic
from tests.helpers import joined_long_ago
from users.models import User

atomic_writes = moto_atomic.atomic_writes
ALICE_DELETE = "/admin/users/user/alice/delete/"


def history_rows(username: str) -> tuple[int, int, int]:
    """Return how many sessions, days and keys are stored under a username."""
    return tuple(
        len(list(model.query(username, consistent_read=True)))
        for model in (StudySession, StudyDay, SessionKey)
    )


@pytest.fixture
def studied(alice, api_client) -> User:
    """Alice with three sessions on three days, one of them named by an Idempotency-Key."""
    for days_ago in (2, 1):
        when = utcnow() - timedelta(days=days_ago)
        record_session("alice", xp=40, questions=10, correct=8, minutes=10, when=when)
    answer = api_client.post(
        "/api/learners/alice/sessions",
        {"xp": 110, "questions": 5, "correct": 5, "minutes": 3},
        **{"Idempotency-Key": "phone-1"},
    )
    assert answer.status_code == 201
    assert history_rows("alice") == (3, 3, 1)
    return User.get("alice")


def test_the_confirmation_lists_the_study_history_with_counts(admin_client_, studied):
    page = admin_client_.get(ALICE_DELETE).content.decode()

    assert page.count("Study session: alice / ") == 3
    assert page.count("Study day: alice / ") == 3
    assert "Session key: alice / " in page
    # Django's Summary: one line per kind of row, with its count.
    assert "<li>Study sessions: 3</li>" in page
    assert "<li>Study days: 3</li>" in page
    assert "<li>Session keys: 1</li>" in page


def test_a_delete_from_the_admin_leaves_no_row_of_the_history(admin_client_, studied):
    response = admin_client_.post(ALICE_DELETE, {"version": str(studied.version)})

    assert response.status_code == 302
    assert User.get_or_none("alice") is None
    assert history_rows("alice") == (0, 0, 0)
    assert UserStats.get_or_none("alice") is None
    [entry] = AdminLog.history(User("alice"))
    assert (entry.action, entry.user) == ("delete", "ada")


def test_a_delete_of_a_learner_on_the_boards_takes_them_out_of_the_rank_counts(
    admin_client_, studied
):
    call_command("rebuild_rank_tiers", "xp", stdout=StringIO())
    before = sum(tiers.pointers(["xp"])["xp"].counts)

    response = admin_client_.post(ALICE_DELETE, {"version": str(studied.version)})
    call_command("consume_streams", once=True, stdout=StringIO())

    assert response.status_code == 302
    # The stream carried the delete of alice's stats: the ranks below hers moved up.
    assert sum(tiers.pointers(["xp"])["xp"].counts) == before - 1


def test_the_bulk_delete_action_takes_the_history_too(admin_client_, studied):
    done = admin_client_.post(
        "/admin/users/user/",
        {
            "action": "delete_selected",
            "_selected_action": ["alice"],
            "_selected_version": [str(studied.version)],
            "post": "yes",
        },
    )

    assert done.status_code == 302
    assert User.get_or_none("alice") is None
    assert history_rows("alice") == (0, 0, 0)


def test_a_long_history_is_counted_in_full_and_listed_in_part(admin_client_, alice):
    start = utcnow() - timedelta(days=300)
    batch_put(
        StudySession,
        [
            StudySession(
                "alice",
                session_id_for(start + timedelta(minutes=n)),
                started_at=start + timedelta(minutes=n),
                xp=1,
                minutes=1,
                source="seed",
            )
            for n in range(130)
        ],
    )

    page = admin_client_.get(ALICE_DELETE).content.decode()

    assert "<li>Study sessions: 130</li>" in page
    assert page.count("Study session: alice / ") == 20
    assert "and 110 more study sessions" in page


def test_the_same_username_made_again_starts_with_no_history(admin_client_, client, studied):
    admin_client_.post(ALICE_DELETE, {"version": str(studied.version)})
    User("alice", name="Another Alice", email="alice2@example.com").save()

    json = client.get("/learners/alice/?format=json").json()
    page = client.get("/learners/alice/").content.decode()

    assert (json["sessions"], json["calendar"]["days"]) == ([], [])
    assert (json["sessions_recorded"], json["metrics"]["xp"]["value"]) == (0, 0)
    assert "Another Alice" in page and "alice2" not in page
    assert " 0 XP</title>" in page and "190 XP" not in page and "40 XP</title>" not in page
    assert history_rows("alice") == (0, 0, 0)


def test_a_delete_that_died_after_the_claim_is_finished_by_the_gardener(studied):
    studied.claim_for_delete()  # the delete stopped here: claimed, nothing deleted yet

    with pytest.raises(ValidationError):
        record_session("alice", xp=5, questions=1, correct=1, minutes=1)
    call_command("purge_deleted")

    assert User.get_or_none("alice") is None
    assert history_rows("alice") == (0, 0, 0)


def test_a_delete_racing_a_session_leaves_no_orphan(admin_client_, studied, atomic_writes):
    # The session lands before the claim (and is deleted with the rest) or is refused.
    outcomes: list[str] = []

    def post_sessions():
        for _ in range(6):
            try:
                record_session("alice", xp=5, questions=1, correct=1, minutes=1)
            except (ValidationError, ConflictError):
                outcomes.append("refused")
            else:
                outcomes.append("recorded")

    poster = threading.Thread(target=post_sessions)
    poster.start()
    response = admin_client_.post(ALICE_DELETE, {"version": str(studied.version)})
    poster.join()
    if response.status_code != 302:  # a session moved the stats first: delete again
        fresh = User.get("alice")
        admin_client_.post(ALICE_DELETE, {"version": str(fresh.version)})
    post_sessions()  # after the delete: every one refused

    assert User.get_or_none("alice") is None
    assert history_rows("alice") == (0, 0, 0)
    assert UserStats.get_or_none("alice") is None
    assert outcomes[-6:] == ["refused"] * 6


def test_the_stats_app_hands_a_hard_delete_the_sessions_days_and_keys(dynamo):
    User("late", name="Late", email="late@example.com", created_at=joined_long_ago()).save()

    assert [p.model for p in User.get("late").owned_partitions()] == [
        StudySession,
        StudyDay,
        SessionKey,
    ]


def test_a_session_that_read_the_learner_before_the_claim_is_refused(studied, monkeypatch):
    read_before = User.get("alice")
    studied.claim_for_delete()
    # The session's own read of the learner came before the claim: only its condition is left.
    monkeypatch.setattr("stats.history.recording.learner_for_session", lambda username: read_before)

    with pytest.raises(ConflictError):
        record_session("alice", xp=5, questions=1, correct=1, minutes=1)

    assert history_rows("alice") == (3, 3, 1)
    assert UserStats.get("alice").sessions == 3
