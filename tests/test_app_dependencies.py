"""Dependencies run one way: dynamo <- dynamo_admin <- catalog <- users <- stats <- api.

project sits on top: nothing imports it but its own modules, manage.py and the tests.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

BASE_DIR = Path(__file__).resolve().parent.parent
IMPORT = re.compile(r"^\s*(?:from|import)\s+(\w+)", re.MULTILINE)


def imported_apps(app: str) -> dict[str, set[str]]:
    found = {}
    for path in sorted((BASE_DIR / app).rglob("*.py")):
        found[str(path.relative_to(BASE_DIR))] = set(IMPORT.findall(path.read_text()))
    return found


DOMAIN = {"catalog", "users", "stats", "api"}


@pytest.mark.parametrize(
    ("app", "forbidden"),
    [
        # The engine layer and the reusable admin know no domain app.
        ("dynamo", DOMAIN | {"dynamo_admin", "project"}),
        ("dynamo_admin", DOMAIN | {"project"}),
        ("catalog", {"users", "stats", "api", "project"}),
        ("users", {"stats", "api", "project"}),
        ("stats", {"api", "project"}),
        ("api", {"project"}),
        # Only settings modules named by string (DJANGO_SETTINGS_MODULE) point at project.
        ("bench", {"project"}),
    ],
)
def test_an_app_imports_nothing_from_the_apps_that_depend_on_it(app, forbidden):
    offending = {path: names & forbidden for path, names in imported_apps(app).items()}

    assert {path: names for path, names in offending.items() if names} == {}


def test_nothing_outside_project_imports_it_but_manage_py_and_the_tests():
    # The tests may import project's own modules to test them; nothing else sits above it.
    top_level = {path.name for path in BASE_DIR.iterdir() if (path / "__init__.py").exists()}
    importers = {
        path: names
        for app in sorted(top_level - {"project", "tests"})
        for path, names in imported_apps(app).items()
        if "project" in names
    }

    assert importers == {}


def test_the_catalog_names_neither_the_users_app_nor_its_commands():
    # The skill-rename sync is the users app's: it imports the catalog, never the other way.
    naming = {
        str(path.relative_to(BASE_DIR))
        for path in (BASE_DIR / "catalog").rglob("*")
        if path.suffix in {".py", ".html"}
        and re.search(r"\busers\b|sync_user_skills|UserSkill", path.read_text())
    }

    assert naming == set()
