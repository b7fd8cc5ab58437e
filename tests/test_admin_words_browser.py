"""In headless Chromium: History in words, the styled 403 of a refused form, failed logins."""

from __future__ import annotations

import re

import pytest

from stats.history.recording import record_session
from stats.models import UserStats
from tests.browser_fixtures import STAFF_PASSWORD, STAFF_USERNAME, create_staff, watch
from users.models import User

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]

# What a page leaking stored values shows: an ISO time, a Python or JSON map.
RAW = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\{'|\{\"")


@pytest.fixture
def site(dynamo, live_server, transactional_db):
    create_staff()
    User("alice", name="Alice", email="alice@example.com").save()
    UserStats("alice", xp=10).save()
    return live_server.url


def log_in(page, site: str, password: str = STAFF_PASSWORD) -> None:
    page.goto(f"{site}/admin/login/?next=/admin/")
    page.fill("#id_username", STAFF_USERNAME)
    page.fill("#id_password", password)
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_staff_read_a_learners_history_in_words(browser, site):
    page = browser.new_page()
    problems = watch(page)
    log_in(page, site)
    record_session("alice", xp=40, questions=10, correct=8, minutes=12, actor="ada")
    for action in ("soft_delete_selected", "restore_selected"):
        page.goto(f"{site}/admin/users/user/")
        page.check("input[name=_selected_action][value=alice]")
        page.select_option("select[name=action]", action)
        with page.expect_navigation():
            page.click("button[name=index]")

    page.goto(f"{site}/admin/users/user/alice/history/")
    learner = page.inner_text("#change-history")
    page.goto(f"{site}/admin/stats/userstats/alice/history/")
    stats = page.inner_text("#change-history")

    assert "Restored." in learner and "Soft-deleted" in learner
    assert "Recorded a session: 40 XP, 8 of 10 right, 12 minutes" in stats
    assert not RAW.search(learner + stats), learner + stats
    assert User.get("alice").deleted_at is None and not problems
    page.close()


def test_a_form_sent_without_its_csrf_cookie_gets_the_sites_styled_403(browser, site):
    context = browser.new_context()
    page = context.new_page()
    page.goto(f"{site}/admin/login/")
    context.clear_cookies()  # as if the browser blocked or lost the site's cookies
    page.fill("#id_username", STAFF_USERNAME)
    page.fill("#id_password", STAFF_PASSWORD)
    with page.expect_navigation() as navigation:
        page.click("input[type=submit]")

    assert navigation.value.status == 403
    assert page.inner_text("h1") == "Forbidden"
    assert "reload the page" in page.inner_text("main")
    # The site's stylesheet applied, not Django's bare text page.
    assert page.evaluate("document.styleSheets.length") >= 1
    assert "CSRF verification failed" not in page.content()
    context.close()


def test_staff_are_told_of_the_failed_logins_since_their_last(browser, site):
    page = browser.new_page()
    for _ in range(3):
        log_in(page, site, password="wrong")
    log_in(page, site)

    note = page.inner_text("ul.messagelist")

    assert "There were 3 failed logins to your account since your last login" in note
    page.reload()
    assert page.locator("ul.messagelist").count() == 0  # said once
    page.close()
