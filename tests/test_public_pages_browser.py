"""End to end in headless Chromium at a phone's width: the leaderboard and talent search."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from stats.models import UserStats
from tests.helpers import totals_for
from users.models import User, UserSkill

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
