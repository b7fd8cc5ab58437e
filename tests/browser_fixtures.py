"""Debian's Chromium, driven by Playwright, for the end-to-end tests."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

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


@pytest.fixture(scope="module")
def browser() -> Iterator:
    """Debian's Chromium driven by Playwright; a missing Chromium fails, it never skips."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(executable):
        pytest.fail("Chromium is not installed: install Debian's `chromium` package.")
    # Playwright's sync API runs an event loop; Django's ORM is safe here (tests only).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


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
