"""The admin benchmark's Django anchor serves its pages on SQLite and PostgreSQL, and both sides
post what a browser does."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from tests.servers import postgresql

BENCH_DIR = Path(__file__).resolve().parent.parent / "bench"


def load_bench_module(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH_DIR / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


browser = load_bench_module("browser")
TARGET = load_bench_module("common").TARGET

CHANGE_FORM = """
<form method="post">
  <input type="hidden" name="csrfmiddlewaretoken" value="t">
  <input type="text" name="name" value="Learner 42">
  <input type="text" name="skills-0-skill_id" value="go" disabled>
  <textarea name="skills-0-notes" rows="3">
</textarea>
  <textarea name="skills-1-notes">

two lines</textarea>
  <input type="checkbox" name="skills-0-DELETE">
  <input type="checkbox" name="active" checked>
  <select name="level"><option value="1">One</option><option value="2">Two</option></select>
  <select name="kind"><option>plain</option><option selected>chosen</option></select>
  <input type="hidden" name="skills-TOTAL_FORMS" value="3">
  <input type="hidden" name="skills-INITIAL_FORMS" value="2">
  <input type="text" name="skills-2-skill_id" value="">
  <input type="submit" name="_continue" value="Save and continue">
</form>
"""


def test_the_form_posts_what_a_browser_posts():
    form = browser.FormFields()
    form.feed(CHANGE_FORM)

    assert form.data == {
        "csrfmiddlewaretoken": "t",
        "name": "Learner 42",
        "skills-0-notes": "",  # the newline right after <textarea> is not part of the value
        "skills-1-notes": "\ntwo lines",
        "active": "on",
        "level": "1",  # no option selected: the first
        "kind": "chosen",  # no value attribute: the option's text
        "skills-TOTAL_FORMS": "3",
        "skills-INITIAL_FORMS": "2",
        "skills-2-skill_id": "",
    }


def test_the_save_drops_untouched_extra_rows_and_types_the_change():
    data = browser.change_form_data(CHANGE_FORM, name="Learner 0")

    assert data["name"] == "Learner 0"
    assert data["_save"] == "Save"
    assert data["skills-TOTAL_FORMS"] == "2"
    assert "skills-2-skill_id" not in data


def serve(database: str, pages: list[str]) -> tuple[list[int], list[int], str]:
    """Run the anchor on 60 learners for these pages; return their statuses, queries and log."""
    result = subprocess.run(
        [sys.executable, "-m", "anchor.serve", "--users", "60", "--database", database],
        cwd=BENCH_DIR,
        input="\n".join(pages) + "\n",
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ready, *answers = result.stdout.splitlines()
    assert ready.startswith("ready "), result.stderr
    fields = [answer.split() for answer in answers]
    return [int(f[1]) for f in fields], [int(f[2]) for f in fields], result.stderr


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_the_anchor_serves_every_page_and_saves_the_change_page(database):
    pages = ["changelist", "cursor", "filtered", "searched", "searched by name"]
    pages += ["date hierarchy", "change"]

    statuses, queries, log = serve(database, [*pages, "save", "save", "change"])

    assert statuses == [200] * len(pages) + [302, 302, 200], log
    # Once Django has cached the content types: the session, the staff user, then the
    # learner, their skills and their stats.
    assert queries[-1] == 5


def test_the_anchor_stores_its_save_in_the_postgresql_database_it_is_given():
    with postgresql() as url:
        statuses, _, log = serve(url, ["change", "save", "save"])

        with psycopg.connect(url) as connection:
            (name,) = connection.execute(
                "SELECT name FROM learners_user WHERE username = %s", [TARGET]
            ).fetchone()

    assert statuses == [200, 302, 302], log
    assert name == "Learner 1"  # the second save's rename, as bench/admin_pages.py posts it
