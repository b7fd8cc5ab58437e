"""Inline rows as Django's: on the add page, extra/min_num/max_num, errors on editable fields."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from stats.models import UserStats
from users.admin import UserSkillInline
from users.models import User, UserSkill

# Inline rows as Django's formsets count and check them; their one-transaction save is tested on
# both engines in test_admin_change: moto alone here.
pytestmark = pytest.mark.engines("moto")

ADD = "/admin/users/user/add/"


@pytest.fixture
def go(dynamo, python) -> Skill:
    skill = Skill("go", name="Go", category="Programming")
    skill.save()
    return skill


def add_post(rows: list[dict[str, str]], **overrides) -> dict[str, str]:
    """Return an add page's POST: Bob, these skill rows, and his stats."""
    data = {
        "username": "bob",
        "name": "Bob",
        "email": "bob@example.com",
        "userskill-TOTAL_FORMS": str(len(rows)),
        "userskill-INITIAL_FORMS": "0",
        "userskill-MIN_NUM_FORMS": "0",
        "userskill-MAX_NUM_FORMS": "1000",
        "userstats-TOTAL_FORMS": "1",
        "userstats-INITIAL_FORMS": "0",
        "userstats-MIN_NUM_FORMS": "0",
        "userstats-MAX_NUM_FORMS": "1",
        "userstats-0-next_reminder_at_0": "2030-01-02",
        "userstats-0-next_reminder_at_1": "03:04:05",
    }
    for n, row in enumerate(rows):
        data.update({f"userskill-{n}-{name}": value for name, value in row.items()})
    return {**data, **overrides}


def skill_row(skill_id: str, proficiency: str = "Beginner", years: str = "1") -> dict[str, str]:
    return {"skill_id": skill_id, "proficiency": proficiency, "years": years, "notes": ""}


def test_the_add_page_shows_a_blank_skill_row_the_stats_and_the_row_to_copy(admin_client_, dynamo):
    page = admin_client_.get(ADD).content.decode()

    assert 'name="userskill-0-skill_id"' in page
    assert 'name="userstats-0-next_reminder_at_0"' in page
    assert 'name="userstats-0-xp"' not in page  # a new learner's totals start at 0
    assert 'id="userskill-empty"' in page and 'name="userskill-__prefix__-skill_id"' in page
    assert "data-inline-formset=" in page and "admin/js/inlines" in page


def test_an_inline_holding_max_num_stored_rows_has_no_row_to_copy_and_others_keep_theirs(
    admin_client_, alice
):
    page = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    # The stats inline (max_num 1) holds Alice's stored stats: inlines.js never shows its
    # "Add another" link, so there is no empty row to copy, and the stored row is not one.
    assert 'id="userstats-0"' in page and 'id="userstats-empty"' not in page
    assert "userstats-__prefix__" not in page and "empty-form last-related" not in page
    assert 'id="userskill-empty"' in page  # the skills can still grow


def test_a_learner_without_stats_keeps_the_stats_row_to_copy(admin_client_, alice):
    UserStats.get("alice").delete()

    page = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    # The blank stats row can be removed on the page, and "Add another" then copies this one.
    assert 'id="userstats-0"' in page and 'id="userstats-empty"' in page


def test_a_learner_with_two_skills_and_stats_is_added_in_one_save(admin_client_, go):
    response = admin_client_.post(
        ADD, add_post([skill_row("python", "Expert", "5"), skill_row("go")])
    )

    assert response.status_code == 302, response.content.decode()
    assert User.get("bob").name == "Bob"
    assert [(s.skill_id, s.skill_name, s.proficiency) for s in UserSkill.query("bob")] == [
        ("go", "Go", "Beginner"),
        ("python", "Python", "Expert"),
    ]
    assert (UserStats.get("bob").xp, UserStats.get("bob").name) == (0, "Bob")
    # Each item went with its history entry in the one transaction.
    assert [e.action for e in AdminLog.history(User.get("bob"))] == ["add"]


def test_a_bad_skill_id_is_said_on_its_field_alone_and_nothing_is_stored(admin_client_, go):
    response = admin_client_.post(ADD, add_post([skill_row("Not An Id")]))

    page = response.content.decode()
    assert response.status_code == 200
    assert "lowercase letters, digits and dashes" in page
    assert "Skill name: This field is required." not in page
    assert "Category: This field is required." not in page
    assert User.get_or_none("bob") is None


def test_min_num_rows_must_be_filled(admin_client_, go, monkeypatch):
    monkeypatch.setattr(UserSkillInline, "min_num", 1)
    blank = {"skill_id": "", "proficiency": "", "years": "", "notes": ""}

    response = admin_client_.post(ADD, add_post([blank]))

    assert response.status_code == 200
    assert "This field is required." in response.content.decode()
    assert User.get_or_none("bob") is None


def test_rows_beyond_max_num_are_refused(admin_client_, go, monkeypatch):
    monkeypatch.setattr(UserSkillInline, "max_num", 1)

    response = admin_client_.post(ADD, add_post([skill_row("python"), skill_row("go")]))

    assert response.status_code == 200
    assert "Please submit at most 1 form." in response.content.decode()
    assert User.get_or_none("bob") is None


def test_extra_sets_the_blank_rows_shown(admin_client_, dynamo, monkeypatch):
    monkeypatch.setattr(UserSkillInline, "extra", 3)

    page = admin_client_.get(ADD).content.decode()

    assert 'name="userskill-2-skill_id"' in page
    assert 'name="userskill-3-skill_id"' not in page
