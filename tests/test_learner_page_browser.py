"""The learner's page in headless Chromium at 1280 and 390 px: from the board, under the CSP."""

from __future__ import annotations

from datetime import timedelta

import pytest

from catalog.models import Skill
from dynamo.models import utcnow
from stats.history.recording import record_session
from tests.browser_fixtures import watch
from tests.helpers import joined_long_ago
from users.models import User, UserSkill

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture
def site(dynamo, live_server):
    python = Skill("python", name="Python", category="Programming")
    python.save()
    for username, xp in (("ada", 90), ("grace", 40)):
        User(
            username,
            name=f"{username.title()} Example",
            email=f"{username}@example.com",
            created_at=joined_long_ago(),
        ).save()
        UserSkill.for_catalog(username, python, proficiency="Expert", years=6).save()
        for days_ago in range(0, 200, 9):
            when = utcnow() - timedelta(days=days_ago)
            record_session(username, xp=xp, questions=5, correct=4, minutes=12, when=when)
    return live_server.url


@pytest.fixture(params=[1280, 390], ids=["desktop", "phone"])
def watched(request, browser):
    """A page of that width recording CSP violations, console errors and failed requests."""
    context = browser.new_context(viewport={"width": request.param, "height": 900})
    page = context.new_page()
    problems = watch(page)
    yield page, problems
    context.close()


def test_a_visitor_opens_a_learner_from_the_board_and_reads_their_year(watched, site):
    page, problems = watched
    page.goto(f"{site}/leaderboard/")

    with page.expect_navigation():
        page.click(".podium-place.place-1 a.podium-name")

    assert page.url.endswith("/learners/ada/")
    assert page.locator("h1").inner_text() == "Ada Example"
    assert page.locator(".learner-skills a").inner_text() == "Python"
    assert page.locator(".metric-rank a").first.inner_text() == "#1"
    assert page.locator(".calendar rect.cal-cell").count() >= 365
    assert page.locator(".calendar rect.shade-4").count() == 23  # one session every 9 days
    assert page.locator(".chart rect.chart-bar").count() == 53
    assert page.locator(".learner-sessions tbody tr").count() == 20
    assert page.locator("svg[role=img] > title").first.text_content().startswith("Study calendar")
    # Nothing wider than the screen: the calendar scrolls inside its own box at worst.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box = page.locator(".calendar svg").bounding_box()
    assert box["width"] >= 300 and box["height"] > 40

    with page.expect_navigation():
        page.click("a[rel=next]")
    assert page.locator(".learner-sessions tbody tr").count() == 3
    assert problems == []


def test_the_calendar_keeps_readable_cells_and_labels_and_ends_at_today(watched, site, tmp_path):
    page, problems = watched
    page.goto(f"{site}/learners/ada/")
    width = page.viewport_size["width"]

    cells = page.locator(".calendar rect.cal-cell")
    sizes = [cells.nth(n).bounding_box() for n in (0, 100, cells.count() - 1)]
    labels = page.locator(".calendar text.cal-label")
    heights = [labels.nth(n).bounding_box()["height"] for n in range(labels.count())]
    strip = page.locator(".calendar").bounding_box()
    today = cells.last.bounding_box()
    page.screenshot(path=tmp_path / f"calendar-{width}.png")  # to look at when it fails

    assert all(box["width"] >= 8 and box["height"] >= 8 for box in sizes), sizes
    assert min(heights) >= 10, heights  # a text box about as tall as its font size
    # Today's cell is in view: the strip opens at its end on a phone.
    assert strip["x"] <= today["x"] and today["x"] + today["width"] <= strip["x"] + strip["width"]
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.locator(".calendar-summary").inner_text().startswith("23 sessions on 23 days")
    assert problems == []
