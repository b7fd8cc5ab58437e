"""`/api/learners/{username}/stats` and `/sessions`: statistics and recording study sessions."""

from __future__ import annotations

from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.api_fixtures import problem_of
from users.models import User

SESSION = {"xp": 50, "questions": 10, "correct": 8, "minutes": 5}


def test_it_returns_a_learners_stats_with_an_etag(dynamo, alice, api_client):
    response = api_client.get("/api/learners/alice/stats")
    assert response.status_code == 200
    body = response.json()
    assert (body["xp"], body["streak"], body["accuracy"]) == (120, 3, 75.5)
    assert body["on_leaderboard"] is True
    assert response["ETag"] == f'"{UserStats.get("alice").version}"'


def test_a_learner_without_stats_is_a_404(dynamo, api_client):
    User("bob", name="Bob", email="bob@example.com").save()
    assert problem_of(api_client.get("/api/learners/bob/stats"))["status"] == 404


def test_recording_a_session_moves_the_stats_as_record_session_does(dynamo, api_client):
    User("bob", name="Bob", email="bob@example.com").save()
    first = api_client.post("/api/learners/bob/sessions", SESSION)
    assert first.status_code == 201
    assert first.json()["stats"]["xp"] == 50 and first.json()["stats"]["accuracy"] == 80.0
    second = api_client.post("/api/learners/bob/sessions", {**SESSION, "correct": 10})
    stored = UserStats.get("bob")
    assert (stored.xp, stored.sessions, stored.questions_correct) == (100, 2, 18)
    assert second.json()["stats"]["accuracy"] == 90.0 and stored.accuracy == 90.0
    assert stored.name == "Bob"
    entries = AdminLog.history(stored)
    assert [(e.action, e.user, e.changes["xp"]) for e in entries] == [
        ("change", "eve", [50, 100]),
        ("add", "eve", [0, 50]),
    ]


def test_a_bad_session_names_every_bad_field_and_records_nothing(dynamo, alice, api_client):
    response = api_client.post(
        "/api/learners/alice/sessions", {"xp": -1, "questions": 3, "correct": 5, "minutes": 0}
    )
    assert response.status_code == 422
    fields = {e["field"] for e in problem_of(response)["errors"]}
    assert fields == {"xp", "correct", "minutes"}
    assert UserStats.get("alice").xp == 120


def test_a_session_time_needs_a_timezone(dynamo, alice, api_client):
    response = api_client.post(
        "/api/learners/alice/sessions", {**SESSION, "when": "2026-01-02T10:00:00"}
    )
    assert response.status_code == 422
    assert problem_of(response)["errors"][0]["field"] == "when"


def test_a_session_for_an_unknown_or_deleted_learner_is_refused(dynamo, alice, api_client):
    assert api_client.post("/api/learners/nobody/sessions", SESSION).status_code == 404
    User.get("alice").soft_delete()
    assert api_client.post("/api/learners/alice/sessions", SESSION).status_code == 409
    assert UserStats.get("alice").xp == 120


def test_recording_a_session_needs_the_change_permission(dynamo, alice, reader_client):
    assert reader_client.post("/api/learners/alice/sessions", SESSION).status_code == 403
    assert UserStats.get("alice").xp == 120
