"""The example project end to end: on DynamoDB Local, migrate, create_tables, then a shelf
added and listed through Django's admin served by runserver.

Run from examples/library: `python -m pytest tests -p no:django` (Java 17+ needed; the engine
is fetched into var/dynamodb-local there, or $DYNAMODB_LOCAL_HOME).
"""

from __future__ import annotations

import http.cookiejar
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

from dynamo import local

PROJECT = Path(__file__).resolve().parent.parent
PASSWORD = "example-password-0123"


def manage(*args: str, env: dict[str, str]) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=PROJECT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


class Browser:
    """A staff user's browser: cookies, and Django's CSRF token sent back with each form."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, data: dict[str, str]) -> tuple[str, str]:
        """Post a form from the page at path; return (the page reached, its URL)."""
        self.get(path)  # sets the csrftoken cookie
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **data}).encode()
        request = urllib.request.Request(self.base + path, body, {"Referer": self.base + path})
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode(), response.geturl()


@pytest.fixture
def served(tmp_path):
    """The project on a fresh DynamoDB Local: tables created, a superuser, runserver."""
    with local.running(allow_moto=False, log=lambda _: None) as engine:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "library_site.settings",
            "DYNAMODB_ENDPOINT": engine.endpoint,
            "DYNAMODB_TABLE_PREFIX": f"example-{uuid.uuid4().hex[:8]}-",
            "LIBRARY_DATABASE": str(tmp_path / "db.sqlite3"),
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        }
        manage("migrate", "--no-input", "-v", "0", env=env)
        created = manage("create_tables", env=env)
        manage(
            "createsuperuser",
            "--no-input",
            "--username",
            "ada",
            "--email",
            "ada@example.com",
            env=env,
        )
        port = local.free_port()
        server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
            cwd=PROJECT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 30
            while True:
                try:
                    urllib.request.urlopen(f"{base}/admin/login/", timeout=2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise
                    time.sleep(0.2)
            yield base, created
        finally:
            server.terminate()
            server.wait(timeout=15)


def test_a_shelf_added_through_the_admin_is_listed(served):
    base, created = served
    # The project's two tables and the admin's log: the package makes no table of its own.
    made = {name.split("-", 2)[2] for name in re.findall(r"Creating table (\S+)", created)}
    assert made == {"shelves", "books", "admin-log"}
    browser = Browser(base)
    _page, url = browser.post(
        "/admin/login/?next=/admin/", {"username": "ada", "password": PASSWORD}
    )
    assert url == f"{base}/admin/"

    page, url = browser.post(
        "/admin/library/shelf/add/",
        {
            "code": "R1",
            "name": "Reading room",
            "book-TOTAL_FORMS": "1",
            "book-INITIAL_FORMS": "0",
            "book-MIN_NUM_FORMS": "0",
            "book-MAX_NUM_FORMS": "1000",
            "book-0-isbn": "9780140449136",
            "book-0-title": "Crime and Punishment",
            "book-0-genre": "Fiction",
            "book-0-copies": "2",
        },
    )
    assert url == f"{base}/admin/library/shelf/", re.sub(r"\s+", " ", page)[-1500:]

    shelves = browser.get("/admin/library/shelf/")
    assert "Reading room" in shelves and 'href="/admin/library/shelf/R1/change/"' in shelves
    books = browser.get("/admin/library/book/")
    assert "Crime and Punishment" in books
