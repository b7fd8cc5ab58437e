"""`make serve`'s gunicorn with DEBUG off, in Chromium: a styled admin, no CSP violation."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.browser_fixtures import watch
from tests.serving import (
    manage,
    served_environment,
    start_gunicorn,
    stop_gunicorn,
    wait_until_serving,
)

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture(scope="module")
def served(dynamodb_local, tmp_path_factory) -> Iterator[tuple[str, str, Path]]:
    """Run what `make serve` runs against seeded tables; yield its URL, a password, its log."""
    tmp = tmp_path_factory.mktemp("serve")
    env = served_environment(tmp, dynamodb_local)
    manage("migrate", "--no-input", "-v", "0", env=env)
    manage("create_tables", env=env)
    manage("seed", "--users", "12", "--random-seed", "7", env=env)
    login = manage("bootstrap_staff", "--username", "staff", env=env)
    password = re.search(r"staff / (\S+)", login).group(1)
    manage("collectstatic", "--no-input", "-v", "0", env=env)
    log = tmp / "stdout.log"
    url, server = start_gunicorn(env, log)
    try:
        wait_until_serving(url, server)
        yield url, password, log
    finally:
        stop_gunicorn(server)
        manage("delete_tables", "--yes", env=env)


@pytest.fixture
def watched(browser, served):
    """A page that records CSP violations, console errors and failed requests."""
    context = browser.new_context()
    page = context.new_page()
    problems = watch(page, failed_requests=True)
    yield page, problems
    context.close()


def log_in(page, url: str, password: str) -> None:
    page.goto(f"{url}/admin/login/")
    page.fill("input[name=username]", "staff")
    page.fill("input[name=password]", password)
    with page.expect_navigation():
        page.click("input[type=submit]")


def test_the_admin_is_styled_and_its_scripts_run_under_the_policy(engine, watched, served):
    page, problems = watched
    url, password, _ = served
    log_in(page, url, password)

    header = page.evaluate("getComputedStyle(document.getElementById('header')).backgroundColor")
    assert header == "rgb(65, 118, 144)"  # base.css's --header-bg
    page.goto(f"{url}/admin/users/user/")
    page.check("#action-toggle")  # actions.js selects every row on the page
    assert page.locator("input.action-select:checked").count() > 0
    assert "selected" in page.inner_text(".action-counter")
    with page.expect_navigation():
        page.locator("#result_list tbody a").first.click()
    assert page.locator("input[name=email]").count() == 1
    page.goto(f"{url}/admin/catalog/skill/")
    assert page.locator("#result_list tbody tr").count() > 0
    assert problems == []


def test_the_leaderboard_and_the_search_render_under_the_policy(engine, watched, served):
    page, problems = watched
    url, _, _ = served
    page.goto(f"{url}/leaderboard/")

    assert page.locator(".podium-place").count() == 3
    assert page.evaluate("getComputedStyle(document.body).margin") == "0px"  # skillboard.css
    page.goto(f"{url}/leaderboard/?metric=accuracy")
    assert page.locator(".podium-place").count() == 3
    page.goto(f"{url}/skills/search/?skill=Python")
    assert page.locator("tbody tr").count() > 0
    page.goto(f"{url}/")
    assert problems == []


def test_static_files_carry_content_hashes_and_far_future_caching(engine, served):
    url, _, _ = served
    with urllib.request.urlopen(f"{url}/admin/login/") as response:
        html = response.read().decode()
    css = re.search(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"', html).group(1)

    request = urllib.request.Request(f"{url}{css}", headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert "immutable" in response.headers["Cache-Control"]


def test_the_server_logs_one_json_object_per_line_with_each_request(engine, served):
    url, _, log = served
    with urllib.request.urlopen(
        urllib.request.Request(
            f"{url}/skills/search/?skill=Python", headers={"X-Request-ID": "p-1"}
        )
    ):
        pass

    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert {"gunicorn.error", "skillboard.request"} <= {line["logger"] for line in lines}
    (probe,) = [line for line in lines if line.get("request_id") == "p-1"]
    assert (probe["path"], probe["status"]) == ("/skills/search/", 200)
    assert probe["dynamodb_calls"] >= 1
