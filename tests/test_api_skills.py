"""`/api/skills`: the catalog through the API, with the admin's rules, locking and history."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from catalog.models import CATEGORIES, Skill
from dynamo_admin.models import AdminLog
from tests.admin_fixtures import calls
from tests.api_fixtures import problem_of
from users.models import UserSkill

# Requests refused before the engine is asked (fields, If-Match, permissions, cursor signatures)
# are checked on moto alone (ON_MOTO); listings, conflicts and stale edits run on both engines.
ON_MOTO = pytest.mark.engines("moto")


def add_skill(skill_id: str, name: str, category: str = "Programming") -> Skill:
    skill = Skill(skill_id, name=name, category=category)
    skill.save()
    return skill


def test_it_lists_one_category_by_name_through_its_index(dynamo, api_client):
    for skill_id, name in [("rust", "Rust"), ("go", "Go"), ("c", "C++")]:
        add_skill(skill_id, name)
    add_skill("aws", "AWS", "Cloud")
    response = api_client.get("/api/skills?category=Programming")
    assert response.status_code == 200
    assert [s["skill_id"] for s in response.json()["results"]] == ["c", "go", "rust"]
    assert response.json()["next"] is None and "Link" not in response
    assert calls(response) == 1


def test_it_lists_the_whole_catalog_by_name_page_by_page_without_a_scan(dynamo, api_client):
    names = ["Zig", "AWS", "Kafka", "React", "Go", "Docker", "Postgres", "Elm"]
    for index, name in enumerate(names):
        add_skill(name.lower(), name, CATEGORIES[index % 4])
    seen, url, pages = [], "/api/skills?limit=3", 0
    while url:
        response = api_client.get(url)
        assert response.status_code == 200
        assert calls(response) <= len(CATEGORIES)
        body = response.json()
        seen += [s["name"] for s in body["results"]]
        pages += 1
        if body["next"]:
            link = response["Link"]
            assert link.endswith('>; rel="next"') and body["next"] in link.replace("%3A", ":")
            url = link[1 : link.index(">")]
        else:
            url = None
    assert seen == sorted(names)
    assert pages == 3


@ON_MOTO
def test_it_refuses_an_unknown_category_or_a_tampered_cursor(dynamo, api_client):
    assert problem_of(api_client.get("/api/skills?category=Cooking"))["status"] == 400
    response = api_client.get("/api/skills?cursor=made-up")
    assert response.status_code == 400 and "invalid" in problem_of(response)["detail"]


def test_it_returns_a_skill_with_its_version_as_etag(dynamo, python, api_client):
    response = api_client.get("/api/skills/python")
    assert response.status_code == 200
    assert response["ETag"] == '"1"'
    assert response.json() | {"created_at": None, "updated_at": None} == {
        "skill_id": "python",
        "name": "Python",
        "category": "Programming",
        "description": None,
        "tags": ["language"],
        "created_at": None,
        "updated_at": None,
        "version": 1,
    }


@ON_MOTO
def test_an_unknown_or_impossible_skill_id_is_a_404(dynamo, api_client):
    assert problem_of(api_client.get("/api/skills/cobol"))["status"] == 404
    impossible = api_client.get("/api/skills/" + "Ä" * 3000)
    assert impossible.status_code == 404 and calls(impossible) == 0


def test_it_creates_a_skill_and_logs_it_with_the_token_owner(dynamo, api_client):
    response = api_client.post(
        "/api/skills",
        {"skill_id": "go", "name": "Go", "category": "Programming", "tags": ["fast", "typed"]},
    )
    assert response.status_code == 201
    assert response["ETag"] == '"1"'
    stored = Skill.get("go")
    assert (stored.name, stored.tags) == ("Go", {"fast", "typed"})
    [entry] = AdminLog.history(stored)
    assert (entry.action, entry.user) == ("add", "eve")
    assert entry.changes["name"] == [None, "Go"]


def test_creating_an_existing_skill_is_a_conflict_that_overwrites_nothing(
    dynamo, python, api_client
):
    response = api_client.post(
        "/api/skills", {"skill_id": "python", "name": "Snake", "category": "Other"}
    )
    assert response.status_code == 409
    assert "already exists" in problem_of(response)["detail"]
    assert Skill.get("python").name == "Python"
    assert AdminLog.history(python) == []


@ON_MOTO
def test_it_reports_every_bad_field_with_the_models_own_messages(dynamo, api_client):
    response = api_client.post(
        "/api/skills", {"skill_id": "Not Valid", "name": "G", "category": "Cooking"}
    )
    assert response.status_code == 422
    body = problem_of(response)
    assert {e["field"] for e in body["errors"]} == {"skill_id", "name", "category"}
    assert "Must be 2 to 100 characters long." in [e["message"] for e in body["errors"]]
    assert list(Skill.scan()) == []


@ON_MOTO
def test_it_refuses_unknown_fields_and_wrong_types(dynamo, api_client):
    response = api_client.post(
        "/api/skills", {"skill_id": "go", "name": ["Go"], "category": "Data", "colour": "x"}
    )
    assert response.status_code == 422
    assert {e["field"] for e in problem_of(response)["errors"]} == {"name", "colour"}
    assert Skill.get_or_none("go") is None


@ON_MOTO
def test_an_edit_needs_if_match(dynamo, python, api_client):
    response = api_client.patch("/api/skills/python", {"name": "Python 3"})
    assert response.status_code == 428
    assert problem_of(response)["title"] == "Precondition Required"
    assert Skill.get("python").name == "Python"


def test_a_stale_edit_is_refused_and_changes_nothing(dynamo, python, api_client):
    python.description = "changed by someone else"
    python.save()
    response = api_client.put(
        "/api/skills/python",
        {"name": "Python 3", "category": "Programming"},
        **{"If-Match": '"1"'},
    )
    assert response.status_code == 412
    assert Skill.get("python").name == "Python"


def test_an_edit_renames_every_holders_copy_and_is_logged(dynamo, alice, api_client):
    response = api_client.patch(
        "/api/skills/python", {"name": "Python 3", "category": "Data"}, **{"If-Match": '"1"'}
    )
    assert response.status_code == 200
    assert response["ETag"] == '"2"' and response.json()["name"] == "Python 3"
    assert Skill.get("python").pending == "sync"  # the copies follow outside the request
    call_command("sync_user_skills", "--pending", stdout=StringIO())
    held = UserSkill.get("alice", "python")
    assert (held.skill_name, held.category) == ("Python 3", "Data")
    [entry] = AdminLog.history(Skill.get("python"))
    assert (entry.action, entry.user) == ("change", "eve")
    assert entry.changes == {"name": ["Python", "Python 3"], "category": ["Programming", "Data"]}


def test_put_replaces_every_editable_field(dynamo, python, api_client):
    response = api_client.put(
        "/api/skills/python", {"name": "Python", "category": "Programming"}, **{"If-Match": "*"}
    )
    assert response.status_code == 200
    assert Skill.get("python").tags is None


@ON_MOTO
def test_a_bad_edit_names_the_fields_and_changes_nothing(dynamo, python, api_client):
    response = api_client.patch("/api/skills/python", {"name": ""}, **{"If-Match": '"1"'})
    assert response.status_code == 422
    assert problem_of(response)["errors"] == [
        {"field": "name", "message": "This field is required."}
    ]
    assert Skill.get("python").version == 1


def test_deleting_a_skill_learners_hold_is_a_conflict(dynamo, alice, api_client):
    response = api_client.delete("/api/skills/python", **{"If-Match": '"1"'})
    assert response.status_code == 409
    assert "alice" in problem_of(response)["detail"]
    assert Skill.get_or_none("python") is not None


def test_it_deletes_a_skill_nobody_holds_and_logs_it(dynamo, python, api_client):
    stale = api_client.delete("/api/skills/python", **{"If-Match": '"7"'})
    assert stale.status_code == 412
    response = api_client.delete("/api/skills/python", **{"If-Match": '"1"'})
    assert response.status_code == 204
    assert Skill.get_or_none("python") is None
    [entry] = AdminLog.history(python)
    assert (entry.action, entry.user) == ("delete", "eve")  # a deleted item's values are forgotten


@ON_MOTO
def test_a_reader_may_not_change_the_catalog(dynamo, python, reader_client):
    response = reader_client.delete("/api/skills/python", **{"If-Match": '"1"'})
    assert response.status_code == 403
    assert Skill.get_or_none("python") is not None
