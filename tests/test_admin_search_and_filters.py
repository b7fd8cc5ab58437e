"""A search and a list filter together: one Query where the filter can narrow it, else said."""

from __future__ import annotations

from datetime import timedelta

import pytest

from catalog.models import Skill
from dynamo.models import utcnow
from stats.history.recording import record_session
from tests.admin_fixtures import calls, listed
from tests.helpers import joined_long_ago, learners_for
from users.models import User, UserSkill


@pytest.fixture
def holdings(dynamo):
    learners_for(["ychen", "zed"])
    for skill_id, name in (("kotlin", "Kotlin"), ("rust", "Rust")):
        skill = Skill(skill_id, name=name, category="Programming")
        skill.save()
        for username in ("ychen", "zed"):
            UserSkill.for_catalog(username, skill, proficiency="Expert", years=2).save()


def test_a_filter_narrows_a_key_search_in_the_same_query(admin_client_, holdings):
    response = admin_client_.get("/admin/users/userskill/", {"q": "ychen", "skill_id": "rust"})

    assert listed(response) == ["ychen,rust"]
    assert calls(response) == 2  # the catalog's name key (no skill "ychen"), the one Query
    meter = response.wsgi_request.dynamo_meter
    assert [c.operation for c in meter.calls if c.table.endswith("user-skills")] == ["Query"]
    assert "The search is narrowed by skill id" in response.content.decode()


def test_the_filters_keep_the_search_and_the_search_keeps_the_filters(admin_client_, holdings):
    page = admin_client_.get("/admin/users/userskill/", {"q": "ychen"}).content.decode()
    filtered = admin_client_.get("/admin/users/userskill/", {"skill_id": "rust"}).content.decode()

    assert '<input type="hidden" name="q" value="ychen">' in page  # the skill id box
    assert '<input type="hidden" name="skill_id" value="rust">' in filtered  # the search box


def test_a_month_narrows_a_learners_sessions(admin_client, dynamo):
    User("ada", name="Ada Lovelace", email="ada@example.com", created_at=joined_long_ago()).save()
    now = utcnow()
    record_session("ada", xp=11, questions=1, correct=1, minutes=3, when=now)
    record_session("ada", xp=22, questions=1, correct=1, minutes=3, when=now - timedelta(days=62))
    month = now.strftime("%Y-%m")

    response = admin_client.get("/admin/stats/studysession/", {"q": "ada", "started_month": month})

    html = response.content.decode()
    assert ">11<" in html and ">22<" not in html
    assert "The search is narrowed by month" in html


def test_a_filter_that_cannot_narrow_a_word_search_is_said_so(admin_client_, dynamo):
    User("kofi", name="Kofi Mensah", email="k@example.com").save()
    User("kofi.b", name="Kofi Boateng", email="kb@example.com").save()
    User.get("kofi.b").soft_delete()

    response = admin_client_.get("/admin/users/user/", {"q": "kofi", "deleted": "yes"})

    assert sorted(listed(response)) == ["kofi", "kofi.b"]  # the search's results alone
    assert "cannot be narrowed by soft-deleted" in response.content.decode()
