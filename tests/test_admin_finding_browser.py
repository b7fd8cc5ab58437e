"""In headless Chromium: staff find learners by name and sort the stats by their headers."""

from __future__ import annotations

import pytest

from stats.history.recording import record_session
from stats.models import UserStats
from tests.browser_fixtures import create_staff, staff_page
from tests.helpers import totals_for
from users.models import User

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture
def site(dynamo, live_server, transactional_db):
    """Three learners with stats on DynamoDB Local, and a superuser."""
    create_staff()
    for username, name, xp in (
        ("kofi.m", "Kofi Mensah", 300),
        ("zoe", "Zoë Ngô", 900),
        ("yusuf", "Yusuf Islam", 600),
    ):
        User(username, name=name, email=f"{username}@example.com").save()
        UserStats(username, xp=xp, **totals_for(50.0, 10.0)).save()
    record_session("kofi.m", xp=5, questions=1, correct=1, minutes=2)
    return live_server.url


@pytest.fixture
def page(browser, site):
    with staff_page(browser, site) as (page, _problems):
        yield page


def listed(page) -> list[str]:
    return page.locator("#result_list tbody th a").all_inner_texts()


def test_staff_find_a_learner_by_a_lowercase_last_name_and_by_accentless_name(page, site):
    page.goto(f"{site}/admin/users/user/")
    assert "beginning of any word of their name" in page.inner_text("#searchbar_helptext")

    page.fill("#searchbar", "mens")
    with page.expect_navigation():
        page.press("#searchbar", "Enter")
    assert listed(page) == ["kofi.m"]

    page.fill("#searchbar", "zoe ngo")
    with page.expect_navigation():
        page.press("#searchbar", "Enter")
    assert listed(page) == ["zoe"]
    assert "DynamoDB call" in page.inner_text("#footer")


def test_staff_sort_the_stats_by_xp_both_ways_from_the_header(page, site):
    page.goto(f"{site}/admin/stats/userstats/")
    assert listed(page) == ["zoe", "yusuf", "kofi.m"]  # by XP, highest first

    with page.expect_navigation():
        page.click("th.column-xp a")  # the sorted header toggles its direction
    assert listed(page) == ["kofi.m", "yusuf", "zoe"]

    assert page.locator("th.column-streak.sortable a").count() >= 1
    assert page.locator("th.column-accuracy.sortable a").count() >= 1


def test_the_board_finds_a_learner_by_a_lowercase_full_name(browser, site):
    context = browser.new_context()
    board = context.new_page()
    board.goto(f"{site}/leaderboard/?metric=xp")
    board.fill("#lb-user", "kofi mensah")
    with board.expect_navigation():
        board.press("#lb-user", "Enter")
    assert "Not on the board" not in board.content()
    assert "@kofi.m" in board.inner_text(".lb-you")  # their rank, their row highlighted
    assert board.locator(".is-me").count() == 1
    context.close()
