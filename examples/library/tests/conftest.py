"""The example project on DynamoDB Local: migrate, create_tables, the shop's own table made by
its script, a superuser, then runserver; and a staff user's browser on it.

Run from examples/library: `python -m pytest tests -p no:django` (Java 17+ needed; the engine
is fetched into var/dynamodb-local there, or $DYNAMODB_LOCAL_HOME).
"""

from __future__ import annotations

import http.cookiejar
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import uuid
from html.parser import HTMLParser
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
        return self.open(path)[0]

    def open(self, path: str) -> tuple[str, dict[str, str]]:
        """Return the page at path and its response headers."""
        with self.opener.open(self.base + path, timeout=30) as response:
            return response.read().decode(), dict(response.headers)

    def post(self, path: str, data: dict[str, str]) -> tuple[str, str]:
        """Post a form from the page at path; return (the page reached, its URL)."""
        self.get(path)  # sets the csrftoken cookie
        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **data}).encode()
        request = urllib.request.Request(self.base + path, body, {"Referer": self.base + path})
        with self.opener.open(request, timeout=30) as response:
            return response.read().decode(), response.geturl()


@pytest.fixture(scope="session")
def served(tmp_path_factory):
    """The project on a fresh DynamoDB Local: tables created, a superuser, runserver; started
    once for the run, which both tests share (each writes to tables of its own: the library's
    shelves and books, the shop's table)."""
    with local.running(allow_moto=False, log=lambda _: None) as engine:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "library_site.settings",
            "DYNAMODB_ENDPOINT": engine.endpoint,
            "DYNAMODB_TABLE_PREFIX": f"example-{uuid.uuid4().hex[:8]}-",
            "LIBRARY_DATABASE": str(tmp_path_factory.mktemp("library") / "db.sqlite3"),
            "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
        }
        manage("migrate", "--no-input", "-v", "0", env=env)
        created = manage("create_tables", env=env)
        manage("make_shop_table", env=env)  # the shop's table is the team's, made by boto3
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


class FormFields(HTMLParser):
    """The fields a browser would post from a page's form with this id, as the page fills them."""

    def __init__(self, form_id: str) -> None:
        super().__init__()
        self.form_id, self.inside, self.fields = form_id, False, {}
        self.select: str | None = None
        self.textarea: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        elif self.inside and tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind not in ("submit", "button", "checkbox") or "checked" in a:
                self.fields[a["name"]] = a.get("value") or ("on" if kind == "checkbox" else "")
        elif self.inside and tag == "select":
            self.select = a.get("name")
        elif self.inside and tag == "option" and self.select and "selected" in a:
            self.fields[self.select] = a.get("value", "")
        elif self.inside and tag == "textarea" and a.get("name"):
            self.textarea = a["name"]
            self.fields[self.textarea] = ""

    def handle_data(self, data):
        if self.textarea:
            self.fields[self.textarea] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self.inside = False
        elif tag == "textarea":
            self.textarea = None
        elif tag == "select":
            self.select = None


def form_fields(page: str, form_id: str) -> dict[str, str]:
    parser = FormFields(form_id)
    parser.feed(page)
    return parser.fields
