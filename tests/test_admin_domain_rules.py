"""Saves through the admin follow the same domain rules as saves anywhere else."""

from __future__ import annotations

import html
from io import StringIO

from django.core.management import call_command

from catalog.models import Skill
from stats.models import UserStats
from tests.admin_fixtures import alice_change_post
from tests.test_admin_change import PYTHON, skill_form
from users.models import User, UserSkill


def test_renaming_a_skill_in_the_admin_leaves_the_copies_to_the_worker_and_says_so(
    admin_client_, alice
):
    response = admin_client_.post(
        PYTHON,
        skill_form(skill_id="python", name="Python 3", _version="1", tags="language"),
        follow=True,
    )

    assert "1 holders&#x27; copies of “Python 3” are pending" in response.content.decode()
    assert UserSkill.get("alice", "python").skill_name == "Python"
    call_command("sync_user_skills", "--pending", stdout=StringIO())
    assert UserSkill.get("alice", "python").skill_name == "Python 3"
    assert Skill.get("python").pending is None


def test_soft_deleting_a_user_in_the_admin_takes_them_off_the_board(admin_client_, alice):
    response = admin_client_.post("/admin/users/user/alice/soft-delete/", {"_version": "1"})

    assert response.status_code == 302
    assert User.get("alice").deleted_at is not None
    assert list(UserStats.gsi_leaderboard_xp.query("ALL")) == []
    assert UserStats.get("alice").xp == 120


def test_a_reminder_set_in_the_admin_lands_in_its_hour_bucket(admin_client_, alice):
    admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "userstats-0-next_reminder_at_0": "2030-05-06",
                "userstats-0-next_reminder_at_1": "07:08:09",
            }
        ),
    )

    assert UserStats.get("alice").next_reminder_bucket == "2030-05-06-07"


def test_adding_a_skill_the_learner_holds_says_so_in_words_on_their_page(admin_client_, alice):
    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "userskill-1-skill_id": "python",
                "userskill-1-proficiency": "Beginner",
                "userskill-1-years": "1",
            }
        ),
    )

    page = html.unescape(response.content.decode())
    assert "Alice Liddell already has the skill Python." in page
    assert "with the key" not in page  # not the key's internal words
    assert UserSkill.get("alice", "python").proficiency == "Expert"


def test_adding_a_skill_the_learner_holds_says_so_in_words_on_the_add_page(admin_client_, alice):
    response = admin_client_.post(
        "/admin/users/userskill/add/",
        {"username": "alice", "skill_id": "python", "proficiency": "Beginner", "years": "1"},
    )

    page = html.unescape(response.content.decode())
    assert "Alice Liddell already has the skill Python." in page
    assert "with the key" not in page
    assert UserSkill.get("alice", "python").proficiency == "Expert"
