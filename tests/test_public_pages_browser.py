"""End to end in headless Chromium at a phone's width: the leaderboard and talent search."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.cache import cache
from django.core.management import call_command

from catalog.models import Skill
from dynamo.batch import batch_put
from dynamo.models import utcnow
from stats.boards import tiers
from stats.models import UserStats
from tests.helpers import totals_for
from users.models import User, UserSkill
from workers.jobs import Job

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]

LEARNERS = [("ada", 900, 97.5), ("grace", 700, 99.0), ("linus", 700, 88.0), ("guido", 100, 91.0)]


@pytest.fixture
def site(dynamo, live_server):
    python = Skill("python", name="Python", category="Programming")
    python.save()
    for username, xp, accuracy in LEARNERS:
        User(username, name=username.title(), email=f"{username}@example.com").save()
        UserStats(username, xp=xp, streak=2, **totals_for(accuracy, 60)).save()
        UserSkill.for_catalog(username, python, proficiency="Expert", years=xp // 100).save()
    return live_server.url


@pytest.fixture
def phone(browser):
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    page.set_default_timeout(10_000)
    yield page
    context.close()


def test_a_learner_sees_the_podium_and_switches_metric(phone, site):
    phone.goto(f"{site}/leaderboard/")

    podium = phone.locator(".podium-place").all_inner_texts()
    assert "Ada" in podium[0] and "Grace" in podium[1] + podium[2]
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    with phone.expect_navigation():
        phone.click(".lb-tabs a:has-text('Accuracy')")
    assert "Grace" in phone.locator(".podium-place").first.inner_text()
    assert phone.locator("footer.meter").count() == 0  # the DynamoDB figures are for staff


def test_a_recruiter_finds_experts_with_enough_years(phone, site):
    phone.goto(f"{site}/skills/search/")

    phone.fill("input[name=skill]", "Python")
    phone.select_option("select[name=level]", "Expert")
    phone.fill("input[name=min_years]", "7")
    with phone.expect_navigation():
        phone.click("button[type=submit]")

    found = phone.locator("tbody tr td.ts-user a").all_inner_texts()
    assert found[0] == "@ada"  # 9 years, then the two with 7 in either order
    assert sorted(found[1:]) == ["@grace", "@linus"]


@pytest.fixture
def deep_board(dynamo, live_server):
    """150 learners, tiers of ten, and a move the counts lag behind: ranks past 100 are
    approximate."""
    names = [f"learner{n:03d}" for n in range(1, 151)]
    batch_put(User, [User(u, name=u.title(), email=f"{u}@example.com") for u in names])
    batch_put(UserStats, [UserStats(u, xp=10 * n, streak=2) for n, u in enumerate(names, 1)])
    call_command("rebuild_rank_tiers", "xp", tier_size=10, stdout=StringIO())
    User.get("learner150").soft_delete()
    # No consumer applies it: the counts' last catch-up is ten minutes old.
    stale = (utcnow() - timedelta(minutes=10)).isoformat()
    Job.apply(tiers.UPKEEP_JOB, [Job.watermark.set(stale)])
    cache.clear()
    return live_server.url


def test_a_deep_approximate_rank_stands_apart_from_the_next_column_and_is_explained(
    phone, deep_board
):
    phone.goto(f"{deep_board}/leaderboard/?metric=xp&user=learner010")

    row = phone.locator(".lb-row").first
    assert row.locator(".lb-rank").inner_text().startswith("≈1")  # ranks 1xx, three digits
    # Where the rank's text is drawn (not its grid cell): beside the name and the other
    # metrics, never over them.
    drawn = row.evaluate(
        """row => [".lb-rank", ".lb-who", ".lb-others"].map(selector => {
            const range = document.createRange();
            range.selectNodeContents(row.querySelector(selector));
            const box = range.getBoundingClientRect();
            return [box.left, box.right];
        })"""
    )
    rank, who, others = drawn
    assert rank[1] <= who[0] and rank[1] <= others[0], drawn
    assert "\n" in row.inner_text().split("≈", 1)[1][:6]  # "≈1xx" then a break, not "Streak"
    assert phone.locator(".lb-note").is_visible()
    assert "approximate" in phone.locator(".lb-note").inner_text()
    assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
