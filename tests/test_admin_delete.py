"""Deleting: a confirmation page listing what goes too, then one conditional transaction."""

from __future__ import annotations

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.admin_fixtures import calls
from users.models import User, UserSkill

ALICE_DELETE = "/admin/users/user/alice/delete/"


def test_the_confirmation_lists_the_learners_skills_and_stats(admin_client_, alice):
    response = admin_client_.get(ALICE_DELETE)

    page = response.content.decode()
    assert 'delete the learner "alice"' in page and "delete the user" not in page
    assert "Learner: alice" in page
    assert "User skill: alice / python" in page
    assert "User stats: alice" in page
    assert 'name="version" value="1"' in page
    # The learner, the two inlines, and one Query per table of their study history.
    assert calls(response) <= 6


def test_deleting_a_user_deletes_its_skills_and_stats_together(admin_client_, alice):
    response = admin_client_.post(ALICE_DELETE, {"version": "1"})

    assert response.status_code == 302
    assert User.get_or_none("alice") is None
    assert UserSkill.get_or_none("alice", "python") is None
    assert UserStats.get_or_none("alice") is None
    [entry] = AdminLog.history(User("alice"))
    # Who deleted it stays; its values go with it (a purge keeps no personal data).
    assert (entry.action, entry.user, entry.changes) == ("delete", "ada", {})


def test_a_delete_based_on_a_stale_version_deletes_nothing(admin_client_, alice):
    alice.name = "Alice (edited meanwhile)"
    alice.save()  # now version 2; the confirmation page showed version 1

    response = admin_client_.post(ALICE_DELETE, {"version": "1"})

    assert response.status_code == 200
    assert "Someone else changed or deleted this learner" in response.content.decode()
    assert User.get("alice").name == "Alice (edited meanwhile)"
    assert UserSkill.get_or_none("alice", "python") is not None
    assert UserStats.get_or_none("alice") is not None


def test_a_delete_without_a_version_deletes_nothing(admin_client_, alice):
    response = admin_client_.post(ALICE_DELETE, {})

    assert response.status_code == 200
    assert User.get_or_none("alice") is not None


def test_a_delete_with_a_version_no_item_can_have_deletes_nothing(admin_client_, alice):
    # 40 digits: more than DynamoDB's 38, which the engine would refuse (a 500 before).
    response = admin_client_.post("/admin/stats/userstats/alice/delete/", {"version": "1" * 40})

    assert response.status_code == 200
    assert "did not say which version" in response.content.decode()
    assert UserStats.get("alice").version == 1


def test_the_bulk_delete_action_asks_first_then_deletes_the_selected(admin_client_, dynamo):
    for skill_id in ("go", "rust", "zig"):
        Skill(skill_id, name=skill_id.title(), category="Programming").save()

    confirm = admin_client_.post(
        "/admin/catalog/skill/", {"action": "delete_selected", "_selected_action": ["go", "zig"]}
    )
    assert confirm.status_code == 200
    assert "Skill: go" in confirm.content.decode()
    assert Skill.get_or_none("go") is not None

    done = admin_client_.post(
        "/admin/catalog/skill/",
        {
            "action": "delete_selected",
            "_selected_action": ["go", "zig"],
            "_selected_version": ["1", "1"],
            "post": "yes",
        },
    )

    assert done.status_code == 302
    assert [s.skill_id for s in Skill.scan()] == ["rust"]
    assert AdminLog.history(Skill("go"))[0].action == "delete"


def test_the_bulk_delete_skips_items_changed_since_the_confirmation(admin_client_, dynamo):
    Skill("go", name="Go", category="Programming").save()
    Skill.get("go").save()  # version 2

    admin_client_.post(
        "/admin/catalog/skill/",
        {
            "action": "delete_selected",
            "_selected_action": ["go"],
            "_selected_version": ["1"],
            "post": "yes",
        },
    )

    assert Skill.get_or_none("go") is not None


def test_bulk_deleting_users_takes_their_skills_and_stats(admin_client_, alice):
    admin_client_.post(
        "/admin/users/user/",
        {
            "action": "delete_selected",
            "_selected_action": ["alice"],
            "_selected_version": ["1"],
            "post": "yes",
        },
    )

    assert User.get_or_none("alice") is None
    assert list(UserSkill.query("alice")) == []
    assert UserStats.get_or_none("alice") is None
