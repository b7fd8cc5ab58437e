"""`/api/learners`: create, read, update, soft delete and restore, with locking and history."""

from __future__ import annotations

import json
import re

import pytest

from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.api_fixtures import problem_of
from users.models import User

# Requests refused before the engine is asked (fields, If-Match, permissions) and the format of
# times are checked on moto alone (ON_MOTO); writes, conflicts and the board run on both engines.
ON_MOTO = pytest.mark.engines("moto")

ADA = {"username": "ada", "name": "Ada Lovelace", "email": "ada@example.com"}
SESSION = {"xp": 5, "questions": 1, "correct": 1, "minutes": 1}
# ISO 8601 to the second with the UTC offset, as the learner page's JSON writes a time too.
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00")


def test_it_creates_a_learner_with_a_hashed_password_and_logs_it(dynamo, api_client):
    response = api_client.post("/api/learners", {**ADA, "password": "analytical-engine"})
    assert response.status_code == 201
    assert response["ETag"] == '"1"'
    assert "password" not in response.json() and "password_hash" not in response.json()
    stored = User.get("ada")
    assert stored.check_password("analytical-engine")
    assert stored.created_month == stored.created_at.strftime("%Y-%m")
    [entry] = AdminLog.history(stored)
    assert (entry.action, entry.user) == ("add", "eve")
    assert stored.password_hash not in json.dumps(entry.changes)  # secrets are masked


def test_creating_a_taken_username_is_a_conflict(dynamo, alice, api_client):
    response = api_client.post("/api/learners", {**ADA, "username": "alice"})
    assert response.status_code == 409
    assert User.get("alice").name == "Alice Liddell"


@ON_MOTO
def test_it_names_every_bad_field_of_a_learner(dynamo, api_client):
    response = api_client.post(
        "/api/learners", {"username": "a b", "name": "", "email": "not-an-email"}
    )
    assert response.status_code == 422
    assert {e["field"] for e in problem_of(response)["errors"]} == {"username", "name", "email"}
    assert list(User.scan()) == []


def test_it_returns_a_learner_with_an_etag(dynamo, alice, api_client):
    response = api_client.get("/api/learners/alice")
    assert response.status_code == 200
    assert response["ETag"] == f'"{User.get("alice").version}"'
    assert response.json()["email"] == "alice@example.com"
    assert response.json()["deleted_at"] is None
    assert problem_of(api_client.get("/api/learners/nobody"))["status"] == 404


def test_a_rename_reaches_the_leaderboard_copy_and_is_logged(dynamo, alice, api_client):
    etag = api_client.get("/api/learners/alice")["ETag"]
    response = api_client.patch("/api/learners/alice", {"name": "Alice L."}, **{"If-Match": etag})
    assert response.status_code == 200
    assert User.get("alice").name == "Alice L."
    assert UserStats.get("alice").name == "Alice L."
    [entry] = AdminLog.history(alice)
    assert entry.changes == {"name": ["Alice Liddell", "Alice L."]}


@ON_MOTO
def test_put_needs_every_field_and_if_match(dynamo, alice, api_client):
    missing = api_client.put("/api/learners/alice", {"name": "Alice"}, **{"If-Match": "*"})
    assert missing.status_code == 422
    assert [e["field"] for e in problem_of(missing)["errors"]] == ["email"]
    no_precondition = api_client.put("/api/learners/alice", {"name": "A", "email": "a@b.co"})
    assert no_precondition.status_code == 428
    assert User.get("alice").name == "Alice Liddell"


def test_a_stale_learner_edit_is_refused(dynamo, alice, api_client):
    response = api_client.patch("/api/learners/alice", {"name": "X"}, **{"If-Match": '"99"'})
    assert response.status_code == 412
    assert User.get("alice").name == "Alice Liddell"
    assert AdminLog.history(alice) == []


@ON_MOTO
def test_the_username_cannot_be_changed(dynamo, alice, api_client):
    response = api_client.patch("/api/learners/alice", {"username": "bob"}, **{"If-Match": "*"})
    assert response.status_code == 422
    assert User.get_or_none("bob") is None


def test_a_soft_delete_takes_the_learner_off_the_board_and_a_restore_brings_them_back(
    dynamo, alice, api_client
):
    etag = api_client.get("/api/learners/alice")["ETag"]
    deleted = api_client.delete("/api/learners/alice", **{"If-Match": etag})
    assert deleted.status_code == 200
    assert deleted.json()["deleted_at"] is not None
    assert User.get("alice").is_deleted
    assert UserStats.get("alice").leaderboard_partition is None

    again = api_client.delete("/api/learners/alice", **{"If-Match": deleted["ETag"]})
    assert again.status_code == 409

    stale = api_client.post("/api/learners/alice/restore", **{"If-Match": etag})
    assert stale.status_code == 412
    restored = api_client.post("/api/learners/alice/restore", **{"If-Match": deleted["ETag"]})
    assert restored.status_code == 200
    assert not User.get("alice").is_deleted
    assert UserStats.get("alice").leaderboard_partition == "ALL"
    actions = [
        e.changes.get("deleted_at", [None, None])[1] is None for e in AdminLog.history(alice)
    ]
    assert actions == [True, False]  # newest first: the restore, then the delete


def test_restoring_a_learner_who_is_not_deleted_is_a_conflict(dynamo, alice, api_client):
    response = api_client.post("/api/learners/alice/restore", **{"If-Match": "*"})
    assert response.status_code == 409


@ON_MOTO
def test_a_reader_may_view_but_not_delete_a_learner(dynamo, alice, reader_client):
    assert reader_client.get("/api/learners/alice").status_code == 200
    response = reader_client.delete("/api/learners/alice", **{"If-Match": "*"})
    assert response.status_code == 403
    assert not User.get("alice").is_deleted


def test_an_api_rename_moves_the_learners_search_words(dynamo, alice, api_client):
    from users.models import LearnerWord

    etag = api_client.get("/api/learners/alice")["ETag"]
    api_client.patch("/api/learners/alice", {"name": "Alice Pleasance"}, **{"If-Match": etag})

    words = {e.entry.split("#")[0] for e in LearnerWord.scan() if e.owner == "alice"}
    assert "pleasance" in words and "liddell" not in words
    assert [u.username for u in LearnerWord.find("pleas")] == ["alice"]


@ON_MOTO
def test_its_times_are_iso_8601_with_the_offset(dynamo, api_client):
    created = api_client.post("/api/learners", ADA).json()
    learner = api_client.get("/api/learners/ada").json()
    listed = api_client.get("/api/learners").json()["results"][0]
    session = api_client.post("/api/learners/ada/sessions", SESSION).json()

    times = [created["created_at"], learner["updated_at"], listed["created_at"]]
    times += [session["started_at"], session["stats"]["updated_at"]]
    assert all(TIMESTAMP.fullmatch(t) for t in times), times
    assert learner["created_at"] == User.get("ada").created_at.isoformat(timespec="seconds")
