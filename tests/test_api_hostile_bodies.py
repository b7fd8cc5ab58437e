"""Bodies no client should send: lone surrogates are a 422 naming the field, 3 MB a 413."""

from __future__ import annotations

import json

import pytest

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from tests.api_fixtures import problem_of
from tests.helpers import snapshot
from users.models import User

# Bodies refused (422, 413) before anything reaches the engine: moto alone.
pytestmark = pytest.mark.engines("moto")

LONE = ["\ud800", "a\ud800b", "\udfff"]
THREE_MB = "x" * (3 * 1024 * 1024)


def fields_named(response) -> list[str]:
    return [error["field"] for error in problem_of(response)["errors"]]


GO = {"skill_id": "go", "name": "Go", "category": "Other"}
BOB = {"username": "bob", "name": "Bob", "email": "b@example.com"}
SESSION = {"xp": 1, "questions": 1, "correct": 1, "minutes": 1}


@pytest.mark.parametrize("text", LONE)
@pytest.mark.parametrize(
    ("method", "path", "body", "field"),
    [
        ("post", "/api/skills", {**GO, "name": "§"}, "name"),
        ("post", "/api/skills", {**GO, "category": "§"}, "category"),
        ("post", "/api/skills", {**GO, "tags": ["§"]}, "tags"),
        ("patch", "/api/skills/python", {"description": "§"}, "description"),
        ("post", "/api/learners", {**BOB, "password": "§"}, "password"),
        ("patch", "/api/learners/alice", {"email": "§"}, "email"),
        ("patch", "/api/learners/alice/skills/python", {"notes": "§"}, "notes"),
        ("post", "/api/learners/alice/sessions", {**SESSION, "when": "§"}, "when"),
    ],
)
def test_a_lone_surrogate_in_any_string_field_is_a_422_naming_it(
    api_client, alice, method, path, body, field, text
):
    payload = json.loads(json.dumps(body).replace("\\u00a7", json.dumps(text)[1:-1]))
    before = snapshot()

    response = getattr(api_client, method)(path, payload, **{"If-Match": "*"})

    assert response.status_code == 422, response.content
    assert fields_named(response) == [field]
    assert snapshot() == before


def test_a_model_refuses_a_lone_surrogate_on_every_write_path(dynamo):
    skill = Skill("go", name="Go\ud800", category="Other")
    with pytest.raises(Exception, match="lone surrogate"):
        skill.save()
    assert Skill.get_or_none("go") is None and AdminLog.history(skill) == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("post", "/api/skills"),
        ("put", "/api/skills/python"),
        ("patch", "/api/learners/alice"),
        ("post", "/api/learners/alice/sessions"),
    ],
)
def test_a_3_mb_body_on_a_write_is_a_413_problem(api_client, alice, method, path):
    before = snapshot()

    response = getattr(api_client, method)(path, {"name": THREE_MB}, **{"If-Match": "*"})

    assert response.status_code == 413
    assert "too large" in problem_of(response)["detail"]
    assert snapshot() == before


def test_a_3_mb_admin_form_is_a_styled_413_page(admin_client_, alice):
    before = snapshot()

    response = admin_client_.post("/admin/users/user/alice/change/", {"name": THREE_MB})

    page = response.content.decode()
    assert response.status_code == 413
    assert "<h1>Request too large</h1>" in page and "skillboard.css" in page
    assert snapshot() == before and User.get("alice").name == "Alice Liddell"


def test_an_admin_form_posting_a_surrogates_bytes_is_no_server_error(admin_client_, python):
    # A browser cannot encode "\ud800"; a hand-made client sends its (invalid) UTF-8 bytes.
    body = "name=Py%ED%A0%80thon&category=Programming&_version=1"

    response = admin_client_.post(
        "/admin/catalog/skill/python/change/", body, "application/x-www-form-urlencoded"
    )

    assert response.status_code in (200, 302)
    stored = Skill.get("python").name
    assert stored.encode("utf-8")  # whatever was kept is text, never a lone surrogate
