"""Deleting a held catalog skill: refused with the holder count unless its removal is confirmed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from catalog.models import Skill
from dynamo.batch import batch_put
from tests.admin_fixtures import client_for, staff
from users.models import User, UserSkill

PYTHON_DELETE = "/admin/catalog/skill/python/delete/"


@pytest.fixture
def held(dynamo):
    """Python held by three learners, Go by one of them, COBOL by nobody."""
    skills = {
        s: Skill(s, name=n, category="Programming")
        for s, n in (("python", "Python"), ("go", "Go"), ("cobol", "COBOL"))
    }
    batch_put(Skill, skills.values())
    users = [User(u, name=u.title(), email=f"{u}@example.com") for u in ("amy", "ben", "cat")]
    batch_put(User, users)
    rows = [UserSkill.for_catalog(u, skills["python"], proficiency="Expert") for u in users]
    rows.append(UserSkill.for_catalog(users[0], skills["go"], proficiency="Beginner"))
    batch_put(UserSkill, rows)


@pytest.fixture
def remover(db):
    return client_for(
        staff("rita", "catalog.view_skill", "catalog.delete_skill", "users.delete_userskill")
    )


@pytest.fixture
def skill_only_deleter(db):
    return client_for(staff("sid", "catalog.view_skill", "catalog.delete_skill"))


def holders(skill_id: str) -> set[str]:
    return {h.username for h in UserSkill.gsi_skill_id.query(skill_id)}


def run_worker() -> str:
    out = StringIO()
    call_command("sync_user_skills", "--pending", stdout=out)
    return out.getvalue()


def test_the_confirmation_page_says_how_many_learners_hold_the_skill(held, remover):
    page = remover.get(PYTHON_DELETE).content.decode()

    assert "3 learners hold “Python”" in page
    assert 'name="remove_holders"' in page


def test_without_the_confirmation_a_held_skill_is_not_deleted(held, remover):
    response = remover.post(PYTHON_DELETE, {"version": "1"})

    assert response.status_code == 200
    assert "3 learners hold “Python”: confirm removing" in response.content.decode()
    assert Skill.get("python").pending is None
    assert holders("python") == {"amy", "ben", "cat"}


def test_without_the_user_skill_permission_a_held_skill_is_not_deleted(held, skill_only_deleter):
    page = skill_only_deleter.get(PYTHON_DELETE).content.decode()
    assert "may not delete user skills" in page

    response = skill_only_deleter.post(PYTHON_DELETE, {"version": "1", "remove_holders": "yes"})

    assert "your account may not delete user skills" in response.content.decode()
    assert Skill.get("python").pending is None
    assert holders("python") == {"amy", "ben", "cat"}


def test_a_confirmed_delete_returns_at_once_and_the_worker_removes_the_holders_then_it(
    held, remover
):
    response = remover.post(PYTHON_DELETE, {"version": "1", "remove_holders": "yes"}, follow=True)

    assert "its 3 holders&#x27; user skills are being removed" in response.content.decode()
    assert Skill.get("python").pending == "remove"
    with pytest.raises(ValidationError, match="being removed from the catalog"):
        UserSkill("amy", "python", proficiency="Expert").save()

    output = run_worker()

    assert "removed 1 deleted skills with 3 user-skills" in output
    assert Skill.get_or_none("python") is None
    assert holders("python") == set()
    assert holders("go") == {"amy"}
    assert list(UserSkill.search("Python")) == []


def test_a_removal_that_died_half_way_is_finished_by_the_next_run(held, remover):
    remover.post(PYTHON_DELETE, {"version": "1", "remove_holders": "yes"})
    UserSkill.get("amy", "python").delete()  # what the dead run got done

    assert "with 2 user-skills" in run_worker()
    assert Skill.get_or_none("python") is None and holders("python") == set()
    assert "removed 0 deleted skills" in run_worker()


def test_a_stale_confirmation_page_deletes_nothing(held, remover):
    skill = Skill.get("python")
    skill.description = "Edited meanwhile"
    skill.save()

    response = remover.post(PYTHON_DELETE, {"version": "1", "remove_holders": "yes"})

    assert "Someone else changed" in response.content.decode()
    assert Skill.get("python").pending is None


def test_a_skill_nobody_holds_is_deleted_at_once(held, remover):
    response = remover.post("/admin/catalog/skill/cobol/delete/", {"version": "1"})

    assert response.status_code == 302
    assert Skill.get_or_none("cobol") is None


def test_the_users_app_counts_a_skills_holders_on_its_index(held):
    assert UserSkill.holders_count("python") == (3, True)
    assert UserSkill.holders_count("cobol", within=1.0) == (0, True)


def delete_selected(client, *skill_ids: str):
    return client.post(
        "/admin/catalog/skill/",
        {
            "action": "delete_selected",
            "post": "yes",
            "_selected_action": list(skill_ids),
            "_selected_version": ["1"] * len(skill_ids),
        },
        follow=True,
    )


@pytest.mark.parametrize("who", ["root", "sid"])
def test_the_bulk_delete_action_shows_the_refusal_of_a_held_skill_and_deletes_the_rest(
    held, admin, skill_only_deleter, who
):
    client = client_for(admin) if who == "root" else skill_only_deleter

    response = delete_selected(client, "python", "cobol")

    # Root lacks the page's "also remove" confirmation; Sid lacks users.delete_userskill.
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert any(m.startswith("3 learners hold “Python”") for m in shown)
    assert Skill.get("python").pending is None
    assert holders("python") == {"amy", "ben", "cat"}
    assert Skill.get_or_none("cobol") is None
