"""End to end in headless Chromium: log in, filter, page, edit, delete with cascade, history."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from dynamo.batch import batch_put
from stats.models import UserStats
from tests.browser_fixtures import create_staff, staff_page
from users.models import User, UserSkill

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture
def site(dynamo, live_server, transactional_db, monkeypatch):
    """Data on DynamoDB Local, a superuser, and five skills to a page."""
    from users.catalog_admin import SkillAdmin

    monkeypatch.setattr(SkillAdmin, "list_per_page", 5)
    create_staff()
    batch_put(
        Skill,
        [Skill(f"lang-{n:02d}", name=f"Lang {n:02d}", category="Programming") for n in range(8)]
        + [Skill("aws", name="AWS", category="Cloud")],
    )
    User("alice", name="Alice", email="alice@example.com").save()
    UserSkill.for_catalog("alice", Skill.get("lang-01"), proficiency="Expert", years=3).save()
    UserStats("alice", xp=10).save()
    return live_server.url


@pytest.fixture
def page(browser, site):
    with staff_page(browser, site) as (page, _problems):
        yield page


def test_staff_log_in_and_see_the_tables_beside_djangos_users(page):
    assert page.locator("a[href='/admin/catalog/skill/']").first.is_visible()
    assert page.locator("a[href='/admin/auth/user/']").first.is_visible()
    assert "DynamoDB call" in page.inner_text("#footer")


def follow(page, selector: str) -> list[str]:
    """Click a link, wait for the page it opens, and return the ids that page lists."""
    with page.expect_navigation():
        page.click(selector)
    return page.locator("#result_list tbody th a").all_inner_texts()


def test_staff_filter_and_page_through_skills(page, site):
    page.goto(f"{site}/admin/catalog/skill/")
    first = follow(page, "#changelist-filter >> text=Programming")
    second = follow(page, "a[rel=next]")
    again = follow(page, "a[rel=prev]")

    assert first + second == [f"lang-{n:02d}" for n in range(8)]
    assert again == first


def test_staff_select_every_skill_on_the_page_with_djangos_toggle(page, site):
    page.goto(f"{site}/admin/catalog/skill/")
    boxes = page.locator("#result_list input.action-select")
    counter = page.locator("div.actions span.action-counter")
    assert counter.inner_text() == "0 of 5 selected"

    page.check("#action-toggle")
    assert [boxes.nth(n).is_checked() for n in range(boxes.count())] == [True] * 5
    assert page.locator("#result_list tbody tr.selected").count() == 5
    assert counter.inner_text() == "5 of 5 selected"

    boxes.first.uncheck()
    assert not page.is_checked("#action-toggle")
    assert counter.inner_text() == "4 of 5 selected"
    boxes.first.check()
    assert page.is_checked("#action-toggle")


def test_staff_edit_a_skill_and_see_it_in_the_history(page, site):
    page.goto(f"{site}/admin/catalog/skill/lang-03/change/")
    page.fill("#id_name", "Lang Three")
    page.click("input[name=_save]")

    assert "was changed successfully" in page.inner_text(".messagelist")
    assert Skill.get("lang-03").name == "Lang Three"
    page.goto(f"{site}/admin/catalog/skill/lang-03/change/")
    page.click("a.historylink")
    history = page.inner_text("#change-history")
    assert "ada" in history and "Lang 03 → Lang Three" in history


def test_staff_delete_a_user_with_its_skills_and_stats(page, site):
    page.goto(f"{site}/admin/users/user/alice/change/")
    page.click("a.deletelink")
    assert "User skill: alice / lang-01" in page.inner_text("#deleted-objects")
    page.click("input[type=submit]")

    assert "was deleted successfully" in page.inner_text(".messagelist")
    assert User.get_or_none("alice") is None
    assert UserSkill.get_or_none("alice", "lang-01") is None
    assert UserStats.get_or_none("alice") is None


FITS = """() => {
    const right = (selector) => document.querySelector(selector).getBoundingClientRect().right;
    return {
        content: right("#content"),
        group: right("#userskill-group"),
        table: right("#userskill-group table"),
        page: document.documentElement.scrollWidth,
        viewport: document.documentElement.clientWidth,
    };
}"""


@pytest.mark.parametrize("width", [1280, 1024])
def test_the_learners_skills_inline_fits_the_page(page, site, width):
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(f"{site}/admin/users/user/alice/change/")

    edges = page.evaluate(FITS)

    assert edges["page"] <= edges["viewport"]  # the page never scrolls sideways
    assert edges["table"] <= edges["group"] <= edges["content"]  # nor does the inline
