"""`POST /api/learners/{u}/sessions` with an Idempotency-Key, and `GET` of the history."""

from __future__ import annotations

import pytest

from stats.history.models import SessionKey, StudySession, Totals, history_of
from stats.models import UserStats
from tests import moto_atomic
from tests.admin_fixtures import staff
from tests.api_fixtures import problem_of, token_client
from tests.helpers import run_together

atomic_writes = moto_atomic.atomic_writes
SESSION = {"xp": 50, "questions": 10, "correct": 8, "minutes": 5}
URL = "/api/learners/bob/sessions"


def test_a_recorded_session_answers_201_with_the_session_its_totals_and_its_location(
    bob, api_client
):
    response = api_client.post(URL, {**SESSION, "skill_id": None})

    assert response.status_code == 201
    [stored] = history_of("bob")
    body = response.json()
    assert body["session_id"] == stored.session_id
    assert (body["xp"], body["questions"], body["correct"], body["minutes"]) == (50, 10, 8, 5)
    assert body["source"] == "api"
    assert body["stats"]["xp"] == 50 and body["stats"]["sessions"] == 1
    assert body["stats"]["version"] == UserStats.get("bob").version
    location = response["Location"]
    assert location.startswith("/api/learners/bob/sessions/")
    fetched = api_client.get(location)
    assert fetched.status_code == 200 and fetched.json()["session_id"] == stored.session_id
    assert api_client.get(f"{URL}/2020-01-01T00:00:00.000Z%23beef").status_code == 404


def test_the_same_key_again_records_nothing_and_answers_the_same(bob, api_client):
    first = api_client.post(URL, SESSION, **{"Idempotency-Key": "retry-me"})
    again = api_client.post(URL, SESSION, **{"Idempotency-Key": "retry-me"})

    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["ETag"] == first["ETag"]
    assert again["Location"] == first["Location"]
    assert first.json()["session_id"] == history_of("bob")[0].session_id
    assert again["Idempotent-Replayed"] == "true"
    assert len(history_of("bob")) == 1
    assert UserStats.get("bob").sessions == 1
    [named] = SessionKey.query("bob")
    assert named.session_id == history_of("bob")[0].session_id


def test_a_session_id_in_the_body_names_the_session_as_a_key_does(bob, api_client):
    first = api_client.post(URL, {**SESSION, "session_id": "phone-7f3a"})
    again = api_client.post(URL, {**SESSION, "session_id": "phone-7f3a"})
    other = api_client.post(URL, {**SESSION, "session_id": "phone-7f3b"})

    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert other.status_code == 201 and len(history_of("bob")) == 2
    changed = api_client.post(URL, {**SESSION, "xp": 1, "session_id": "phone-7f3a"})
    assert changed.status_code == 422 and UserStats.get("bob").xp == 100


def test_two_callers_sending_one_key_for_one_learner_each_record_their_own(bob, api_client):
    other = token_client(staff("olga", "stats.change_userstats", "stats.view_userstats"))

    mine = api_client.post(URL, SESSION, **{"Idempotency-Key": "shared"})
    theirs = other.post(URL, {**SESSION, "xp": 7}, **{"Idempotency-Key": "shared"})

    assert mine.status_code == theirs.status_code == 201
    assert "Idempotent-Replayed" not in theirs
    assert theirs.json()["xp"] == 7 and theirs.json()["session_id"] != mine.json()["session_id"]
    assert len(history_of("bob")) == 2 and UserStats.get("bob").xp == 57
    # Each caller's retry still answers its own first call.
    again = other.post(URL, {**SESSION, "xp": 7}, **{"Idempotency-Key": "shared"})
    assert again.json() == theirs.json() and again["Idempotent-Replayed"] == "true"
    assert len(list(SessionKey.query("bob"))) == 2


def test_another_key_records_another_session(bob, api_client):
    api_client.post(URL, SESSION, **{"Idempotency-Key": "one"})
    api_client.post(URL, SESSION, **{"Idempotency-Key": "two"})

    assert len(history_of("bob")) == 2 and UserStats.get("bob").xp == 100


def test_a_key_reused_with_another_body_is_a_422_that_changes_nothing(bob, api_client):
    api_client.post(URL, SESSION, **{"Idempotency-Key": "k1"})

    response = api_client.post(URL, {**SESSION, "xp": 99}, **{"Idempotency-Key": "k1"})

    assert response.status_code == 422
    assert "another session" in problem_of(response)["detail"]
    assert UserStats.get("bob").xp == 50 and len(history_of("bob")) == 1


def test_a_key_longer_than_255_characters_is_refused(bob, api_client):
    response = api_client.post(URL, SESSION, **{"Idempotency-Key": "x" * 256})

    assert response.status_code == 422
    assert UserStats.get_or_none("bob") is None


@pytest.mark.usefixtures("atomic_writes")
def test_the_same_post_from_20_threads_adds_one_session(bob, transactional_db, api_client):
    def post():
        return api_client.post(URL, SESSION, **{"Idempotency-Key": "twenty"})

    # One request first stamps the token's last use: 20 threads then only read the token
    # (SQLite's shared in-memory test database locks a table that threads write together).
    assert api_client.get(URL).status_code == 200
    responses = run_together(post, 20)

    assert {r.status_code for r in responses} == {201}
    assert len({r.content for r in responses}) == 1
    sessions = history_of("bob")
    assert len(sessions) == 1
    assert Totals.stored_in(UserStats.get("bob", consistent_read=True)) == Totals.of(sessions)


def test_the_history_lists_newest_first_with_a_cursor(bob, api_client):
    for xp in (1, 2, 3):
        api_client.post(URL, {**SESSION, "xp": xp})

    first = api_client.get(f"{URL}?limit=2")
    body = first.json()
    assert [s["xp"] for s in body["results"]] == [3, 2]
    assert body["next"] and 'rel="next"' in first["Link"]
    rest = api_client.get(f"{URL}?limit=2&cursor={body['next']}").json()
    assert [s["xp"] for s in rest["results"]] == [1] and rest["next"] is None
    assert set(body["results"][0]) == {
        "session_id",
        "started_at",
        "xp",
        "questions",
        "correct",
        "minutes",
        "skill_id",
        "source",
    }


def test_the_history_of_an_unknown_learner_is_a_404(dynamo, api_client):
    assert problem_of(api_client.get("/api/learners/nobody/sessions"))["status"] == 404


def test_a_bad_history_cursor_is_a_400(bob, api_client):
    assert api_client.get(f"{URL}?cursor=nonsense").status_code == 400


def test_sessions_in_the_history_are_the_stored_ones(bob, api_client):
    api_client.post(URL, {**SESSION, "xp": 7})

    [listed] = api_client.get(URL).json()["results"]
    [stored] = list(StudySession.query("bob"))
    assert listed["session_id"] == stored.session_id and listed["source"] == "api"
