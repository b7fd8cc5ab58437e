"""Dependencies run one way: dynamo <- dynamo_admin <- catalog <- users <- stats <- api.

project sits on top: nothing imports it but its own modules, manage.py and the tests.
Inside stats: history, boards and reminders each stand alone on stats.models; the learner
page sits on history and boards; the app's top modules (admin, receivers, urls...) on them all.
"""

from __future__ import annotations

import ast
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


# Each of stats' feature packages, and the parts of stats it may import besides its own.
STATS_FEATURES = {
    "history": {"models"},
    "boards": {"models"},
    "reminders": {"models"},
    "learner_page": {"models", "history", "boards"},
}


def stats_parts_imported(path: Path) -> set[str]:
    """Return the parts of stats a module imports ("models", "boards"...), relative ones too."""
    package = path.relative_to(BASE_DIR).parent.parts
    parts = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [alias.name.split(".") for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            module = base + (node.module.split(".") if node.module else [])
            modules = [[*module, alias.name] for alias in node.names]
        else:
            continue
        parts |= {module[1] for module in modules if module[0] == "stats" and len(module) > 1}
    return parts


@pytest.mark.parametrize("feature", sorted(STATS_FEATURES))
def test_a_stats_feature_imports_only_the_parts_of_stats_beneath_it(feature):
    allowed = STATS_FEATURES[feature] | {feature}
    offending = {
        str(path.relative_to(BASE_DIR)): parts - allowed
        for path in sorted((BASE_DIR / "stats" / feature).rglob("*.py"))
        if (parts := stats_parts_imported(path)) - allowed
    }

    assert offending == {}


def test_the_stats_features_are_the_packages_of_stats():
    # A new package under stats gets its place in the order above before it gets code.
    packages = {
        path.parent.name
        for path in (BASE_DIR / "stats").glob("*/__init__.py")
        if path.parent.name not in {"management", "templates"}
    }

    assert packages == set(STATS_FEATURES)
