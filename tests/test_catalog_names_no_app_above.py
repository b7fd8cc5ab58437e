"""The catalog names no app above it, not even in a string an import does not show.

Its imports are checked by import-linter's contracts in pyproject.toml (`lint-imports`);
this checks the names: a command called by its name or a model looked up by its label.
"""

from __future__ import annotations

import re
from pathlib import Path

CATALOG = Path(__file__).resolve().parent.parent / "catalog"


def test_the_catalog_names_neither_the_users_app_nor_its_commands():
    # The skill-rename sync is the users app's: it imports the catalog, never the other way.
    naming = {
        str(path.relative_to(CATALOG.parent))
        for path in CATALOG.rglob("*")
        if path.suffix in {".py", ".html"}
        and re.search(r"\busers\b|sync_user_skills|UserSkill", path.read_text())
    }

    assert naming == set()
