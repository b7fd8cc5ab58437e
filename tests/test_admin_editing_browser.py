"""Staff tasks in headless Chromium at two widths, under the site's CSP: Django's widgets,
inline rows, soft delete and restore, sorted columns. No CSP violation or console error."""

from __future__ import annotations

import pytest
from django.utils import timezone

from catalog.models import Skill
from stats.models import UserStats
from tests.browser_fixtures import staff_and_skills, staff_page
from users.models import User, UserSkill

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]
WIDTHS = [1280, 1024]


@pytest.fixture
def site(dynamo, live_server, transactional_db):
    """Data on DynamoDB Local and a superuser."""
    staff_and_skills()
    User("alice", name="Alice", email="alice@example.com").save()
    UserStats("alice", xp=10).save()
    return live_server.url


@pytest.fixture(params=WIDTHS, ids=lambda width: f"{width}px")
def watched(request, browser, site):
    """A logged-in page at one width, recording CSP violations and console errors."""
    with staff_page(browser, site, viewport={"width": request.param, "height": 900}) as watched:
        yield watched


def test_staff_pick_a_category_from_a_select(watched, site):
    page, problems = watched
    page.goto(f"{site}/admin/catalog/skill/add/")
    page.fill("#id_skill_id", "rust")
    page.fill("#id_name", "Rust")
    page.select_option("#id_category", "Programming")
    page.click("input[name=_save]")

    assert "was added successfully" in page.inner_text(".messagelist")
    assert Skill.get("rust").category == "Programming"
    assert problems == []


def test_staff_set_a_date_with_the_calendar_and_the_clock(watched, site):
    page, problems = watched
    page.goto(f"{site}/admin/stats/userstats/alice/change/")
    page.click("#calendarlink0")
    page.click("#calendarbox0 td a >> text='15'")
    page.click("#clocklink0")
    page.click("#clockbox0 >> text=Noon")
    assert page.input_value("#id_next_reminder_at_1") == "12:00:00"
    page.click("input[name=_save]")

    assert "was changed successfully" in page.inner_text(".messagelist")
    stored = timezone.localtime(UserStats.get("alice").next_reminder_at)
    assert (stored.day, stored.hour, stored.minute) == (15, 12, 0)
    assert problems == []


def choose_skill(page, row: int, term: str, text: str) -> None:
    """Pick a catalog skill in one row's autocomplete select, as staff do: type, then click."""
    page.click(f"#userskill-{row} .select2-selection")
    page.fill(".select2-search__field", term)
    page.click(f".select2-results__option >> text='{text}'")


def test_staff_add_a_learner_with_two_skills_and_stats_in_one_save(watched, site):
    page, problems = watched
    page.goto(f"{site}/admin/users/user/add/")
    page.fill("#id_username", "bob")
    page.fill("#id_name", "Bob")
    page.fill("#id_email", "bob@example.com")
    choose_skill(page, 0, "py", "Python (python)")
    page.select_option("#id_userskill-0-proficiency", "Expert")
    page.fill("#id_userskill-0-years", "5")
    page.click("#userskill-group .add-row a")  # Django's inlines.js "Add another"
    choose_skill(page, 1, "Go", "Go (go)")
    page.select_option("#id_userskill-1-proficiency", "Beginner")
    page.fill("#id_userskill-1-years", "1")
    page.fill("#id_userstats-0-next_reminder_at_0", "2030-01-02")
    page.fill("#id_userstats-0-next_reminder_at_1", "03:04:05")
    page.click("input[name=_save]")

    assert "was added successfully" in page.inner_text(".messagelist")
    stored = {(s.skill_id, s.proficiency, s.years) for s in UserSkill.query("bob")}
    assert stored == {("python", "Expert", 5), ("go", "Beginner", 1)}
    # Totals start at 0: only recorded sessions move them.
    stats = UserStats.get("bob")
    assert (stats.xp, stats.next_reminder_bucket) == (0, "2030-01-02-03")
    assert problems == []


def run_action(page, site, username: str, action: str) -> str:
    """Select a learner in the list, run an action from Django's action bar; return the message."""
    page.goto(f"{site}/admin/users/user/")
    page.check(f"input.action-select[value='{username}']")
    page.select_option("select[name=action]", action)
    with page.expect_navigation():
        page.click("button[name=index]")
    return page.inner_text(".messagelist")


def test_staff_soft_delete_and_restore_a_learner_from_the_list(watched, site):
    page, problems = watched

    deleted = run_action(page, site, "alice", "soft_delete_selected")
    assert "left the leaderboard and the talent search" in deleted and "unless restored" in deleted
    assert User.get("alice").is_deleted

    restored = run_action(page, site, "alice", "restore_selected")
    assert "back on the leaderboard and in the talent search" in restored
    assert not User.get("alice").is_deleted
    assert problems == []


def test_staff_sort_skills_by_name_both_ways(watched, site):
    page, problems = watched
    page.goto(f"{site}/admin/catalog/skill/")
    shown = "#result_list tbody th a"
    assert page.locator(shown).all_inner_texts() == ["aws", "go", "python"]

    with page.expect_navigation():
        page.click("th.column-name .text a")
    assert page.locator(shown).all_inner_texts() == ["python", "go", "aws"]
    assert "descending" in page.get_attribute("th.column-name", "class")

    with page.expect_navigation():
        page.click("th.column-name .text a")
    assert page.locator(shown).all_inner_texts() == ["aws", "go", "python"]
    assert problems == []


HEADERS = """() => {
    const right = document.querySelector('#changelist-form .results').getBoundingClientRect().right;
    return [...document.querySelectorAll('#result_list thead th')].map(th => ({
        text: th.innerText,
        past: th.getBoundingClientRect().right - right,
        cut: th.scrollWidth - th.clientWidth,
    }));
}"""


@pytest.mark.parametrize("url", ["/admin/stats/userstats/", "/admin/users/user/"])
def test_no_column_header_is_cut_beside_the_sidebars(watched, site, url):
    page, problems = watched
    page.goto(f"{site}{url}")

    headers = page.evaluate(HEADERS)

    assert [h for h in headers if h["past"] > 0.5 or h["cut"] > 0] == []
    assert problems == []
