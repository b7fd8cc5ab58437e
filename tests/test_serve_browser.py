"""`make serve`'s gunicorn with DEBUG off, in Chromium: a styled admin, no CSP violation."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from dynamo import local

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]

BASE_DIR = Path(__file__).resolve().parent.parent
START_TIMEOUT = 60


def served_environment(tmp: Path, endpoint: str) -> dict[str, str]:
    """Return production's environment, with TLS relaxed because the test speaks plain HTTP."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp),
        "DJANGO_ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
        "SITE_URL": "http://127.0.0.1:8000",
        "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
        "DJANGO_SECURE_SSL_REDIRECT": "false",
        "DJANGO_SESSION_COOKIE_SECURE": "false",
        "DJANGO_CSRF_COOKIE_SECURE": "false",
        "DJANGO_STATIC_ROOT": str(tmp / "static"),
        "DATABASE_URL": f"sqlite:///{tmp / 'django.sqlite3'}",
        "DYNAMODB_ENDPOINT": endpoint,
        "DYNAMODB_TABLE_PREFIX": f"serve-{uuid.uuid4().hex[:8]}-",
    }


def manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=BASE_DIR,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def wait_until_serving(url: str, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stderr.read()
        try:
            with urllib.request.urlopen(f"{url}/admin/login/", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"gunicorn did not answer on {url} within {START_TIMEOUT}s")


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
    url = f"http://127.0.0.1:{local.free_port()}"
    gunicorn = [sys.executable, "-m", "gunicorn", "-c", "project/gunicorn.conf.py"]
    log = tmp / "stdout.log"
    with log.open("w") as stdout:
        server = subprocess.Popen(
            [*gunicorn, "--workers", "1", "--bind", url.removeprefix("http://")],
            cwd=BASE_DIR,
            env=env,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        wait_until_serving(url, server)
        yield url, password, log
    finally:
        server.terminate()
        server.wait(timeout=30)
        manage("delete_tables", "--yes", env=env)


@pytest.fixture
def watched(browser, served):
    """A page that records CSP violations, console errors and failed requests."""
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));"
    )
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} {r.failure}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}"))
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
