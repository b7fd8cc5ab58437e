"""Each related model's own permissions, as Django's admin checks them: cascades and inlines."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from stats.models import UserStats
from tests.admin_fixtures import alice_change_post, client_for, staff
from users.models import User, UserSkill

# Permissions are checked before any write; the cascades they allow are tested on both engines
# in test_admin_delete: moto alone here.
pytestmark = pytest.mark.engines("moto")

ALICE_CHANGE = "/admin/users/user/alice/change/"
ALICE_DELETE = "/admin/users/user/alice/delete/"


def test_deleting_a_learner_names_the_related_types_the_user_may_not_delete(db, alice):
    client = client_for(staff("dora", "users.view_user", "users.delete_user"))

    page = client.get(ALICE_DELETE).content.decode()

    assert "doesn't have permission to delete the following types of objects" in page
    assert "<li>user skill</li>" in page and "<li>user stats</li>" in page
    assert 'name="version"' not in page  # no confirmation form to submit


def test_a_delete_cascading_into_models_the_user_may_not_delete_is_refused(db, alice):
    client = client_for(staff("dora", "users.view_user", "users.delete_user"))

    response = client.post(ALICE_DELETE, {"version": "1"})

    assert response.status_code == 403
    assert User.get_or_none("alice") is not None
    assert UserSkill.get_or_none("alice", "python") is not None
    assert UserStats.get_or_none("alice") is not None


def test_the_bulk_delete_of_learners_is_refused_without_delete_on_their_skills(db, alice):
    client = client_for(staff("dora", "users.view_user", "users.delete_user"))
    selected = {"action": "delete_selected", "_selected_action": ["alice"]}

    confirm = client.post("/admin/users/user/", selected)
    done = client.post("/admin/users/user/", {**selected, "_selected_version": "1", "post": "yes"})

    assert "<li>user skill</li>" in confirm.content.decode()
    assert done.status_code == 403
    assert User.get_or_none("alice") is not None
    assert UserStats.get_or_none("alice") is not None


def test_a_user_holding_every_delete_permission_deletes_the_learner_and_all_it_holds(db, alice):
    client = client_for(
        staff("dora", "users.delete_user", "users.delete_userskill", "stats.delete_userstats")
    )

    response = client.post(ALICE_DELETE, {"version": "1"})

    assert response.status_code == 302
    assert User.get_or_none("alice") is None
    assert UserSkill.get_or_none("alice", "python") is None
    assert UserStats.get_or_none("alice") is None


def test_raising_total_forms_adds_nothing_without_the_inline_models_add_permission(db, alice):
    UserStats.get("alice").delete()
    Skill("go", name="Go", category="Programming").save()
    client = client_for(
        staff("carl", "users.change_user", "users.change_userskill", "stats.change_userstats")
    )
    post = alice_change_post(
        **{
            "userstats-TOTAL_FORMS": "1",
            "userstats-INITIAL_FORMS": "0",
            "userstats-0-_key": "",
            "userstats-0-_version": "",
            "userstats-0-xp": "999999",
            "userstats-0-streak": "1",
            "userstats-0-efficiency": "1",
            "userstats-0-accuracy": "1",
            "userskill-TOTAL_FORMS": "2",
            "userskill-1-skill_id": "go",
            "userskill-1-proficiency": "Expert",
            "userskill-1-years": "9",
        }
    )

    response = client.post(ALICE_CHANGE, post)

    assert response.status_code == 302, response.content.decode()
    assert UserStats.get_or_none("alice") is None
    assert [s.skill_id for s in UserSkill.query("alice")] == ["python"]


def test_an_inline_the_user_may_not_see_writes_nothing(db, alice):
    client = client_for(staff("carl", "users.change_user"))

    page = client.get(ALICE_CHANGE).content.decode()
    client.post(ALICE_CHANGE, alice_change_post(**{"userstats-0-xp": "999999", "name": "Alice L."}))

    assert "userstats-0-xp" not in page
    assert UserStats.get("alice").xp == 120
    assert User.get("alice").name == "Alice L."


def test_posting_delete_without_the_inline_models_delete_permission_deletes_nothing(db, alice):
    client = client_for(staff("carl", "users.change_user", "users.change_userskill"))

    client.post(ALICE_CHANGE, alice_change_post(**{"userskill-0-DELETE": "on"}))

    assert UserSkill.get_or_none("alice", "python") is not None


def test_a_view_only_inline_renders_read_only_and_ignores_posted_values(db, alice):
    client = client_for(staff("vera", "users.change_user", "users.view_userskill"))

    page = client.get(ALICE_CHANGE).content.decode()
    client.post(ALICE_CHANGE, alice_change_post(**{"userskill-0-proficiency": "Beginner"}))

    assert 'name="userskill-0-proficiency"' not in page
    assert "Expert" in page
    assert UserSkill.get("alice", "python").proficiency == "Expert"


def test_a_stored_row_without_change_permission_keeps_its_values(db, alice):
    client = client_for(staff("ada2", "users.change_user", "users.add_userskill"))

    client.post(ALICE_CHANGE, alice_change_post(**{"userskill-0-years": "40"}))

    assert UserSkill.get("alice", "python").years == 6


def test_a_user_with_the_inline_permissions_still_edits_the_rows(db, alice):
    client = client_for(
        staff("carl", "users.change_user", "users.change_userskill", "stats.change_userstats")
    )

    response = client.post(
        ALICE_CHANGE,
        alice_change_post(
            **{
                "userskill-0-years": "7",
                "userstats-0-next_reminder_at_0": "2030-01-02",
                "userstats-0-next_reminder_at_1": "03:04:05",
            }
        ),
    )

    assert response.status_code == 302, response.content.decode()
    assert UserSkill.get("alice", "python").years == 7
    assert UserStats.get("alice").next_reminder_bucket == "2030-01-02-03"
