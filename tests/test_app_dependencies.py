"""Dependencies run one way: dynamo <- dynamo_admin <- catalog <- users <- stats <- api."""

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
        ("catalog", {"users", "stats", "api"}),
        ("users", {"stats", "api"}),
        ("stats", {"api"}),
    ],
)
def test_an_app_imports_nothing_from_the_apps_that_depend_on_it(app, forbidden):
    offending = {path: names & forbidden for path, names in imported_apps(app).items()}

    assert {path: names for path, names in offending.items() if names} == {}
