"""`/api/docs` in headless Chromium: Swagger UI from our own static files, under the CSP."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

from stats.models import UserStats
from tests.helpers import totals_for
from users.models import User

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture
def site(dynamo, live_server):
    User("ada", name="Ada", email="ada@example.com").save()
    UserStats("ada", xp=900, streak=2, **totals_for(97.5, 60)).save()
    return live_server.url


def test_the_docs_work_offline_under_the_csp_and_try_a_request(browser, site):
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    here = urlsplit(site).netloc
    outside, violations = [], []

    def only_this_site(route):
        if urlsplit(route.request.url).netloc == here:
            route.continue_()
        else:  # offline: nothing may come from a CDN
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_site)
    page.on(
        "console",
        lambda message: (
            violations.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    response = page.goto(f"{site}/api/docs")
    assert "script-src 'self'" in response.headers["content-security-policy"]

    page.locator(".opblock").first.wait_for()
    assert page.locator(".opblock").count() >= 20  # every operation of the schema
    page.click("#operations-public-api_routers_public_leaderboard button.opblock-summary-control")
    page.click("button.try-out__btn")
    page.fill("input[placeholder=metric]", "xp")
    page.click("button.execute")
    answer = page.locator(".live-responses-table tbody .response-col_status")
    answer.first.wait_for()
    assert "200" in answer.first.inner_text()
    assert "ada" in page.locator(".live-responses-table .microlight").first.inner_text()

    assert outside == [] and violations == []
    context.close()
