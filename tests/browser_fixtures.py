"""Debian's Chromium, driven by Playwright, for the end-to-end tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def chromium() -> Iterator:
    """Debian's Chromium driven by Playwright, one per worker; a missing one fails, never skips."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(executable):
        pytest.fail("Chromium is not installed: install Debian's `chromium` package.")
    # Playwright's sync API leaves its event loop running on this thread until the session
    # ends; Django's ORM is safe under it here (tests only).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium) -> Iterator:
    """The worker's Chromium; a context the test left open (it failed half-way) is closed."""
    yield chromium
    for context in chromium.contexts:
        context.close()


def watch(page, *, responses: bool = True, failed_requests: bool = False) -> list[str]:
    """Record the page's CSP violations, console and page errors (and HTTP errors) as they come."""
    problems: list[str] = []
    page.set_default_timeout(10_000)
    page.add_init_script(
        "document.addEventListener('securitypolicyviolation', e => "
        "console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`));"
    )
    page.on("console", lambda m: m.type == "error" and problems.append(f"console: {m.text}"))
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    if failed_requests:
        page.on("requestfailed", lambda r: problems.append(f"failed: {r.url} {r.failure}"))
    if responses:
        page.on(
            "response", lambda r: r.status >= 400 and problems.append(f"HTTP {r.status}: {r.url}")
        )
    return problems


# The superuser every admin browser test's site makes.
STAFF_USERNAME, STAFF_PASSWORD = "ada", "correct horse"


@contextmanager
def staff_page(browser, site: str, **context_options) -> Iterator[tuple]:
    """Yield (page, problems): a new browser context logged in to the admin as the staff user.

    `problems` records CSP violations and console errors from the first page on (watch()).
    """
    context = browser.new_context(**context_options)
    page = context.new_page()
    problems = watch(page, responses=False)
    page.goto(f"{site}/admin/login/")
    page.fill("#id_username", STAFF_USERNAME)
    page.fill("#id_password", STAFF_PASSWORD)
    page.click("input[type=submit]")
    try:
        yield page, problems
    finally:
        context.close()


def create_staff() -> None:
    """Create the superuser staff_page() logs in as."""
    from django.contrib.auth.models import User as StaffUser

    StaffUser.objects.create_superuser(STAFF_USERNAME, "ada@example.com", STAFF_PASSWORD)


def staff_and_skills() -> None:
    """Create the staff user staff_page() logs in as, and three catalog skills."""
    from catalog.models import Skill
    from dynamo.batch import batch_put

    create_staff()
    batch_put(
        Skill,
        [
            Skill("python", name="Python", category="Programming"),
            Skill("go", name="Go", category="Programming"),
            Skill("aws", name="AWS", category="Cloud"),
        ],
    )
