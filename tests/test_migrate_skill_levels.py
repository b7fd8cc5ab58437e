"""migrate_skill_levels: a dump from before sortable levels, migrated in place, resumably."""

from __future__ import annotations

import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import tables
from dynamo.models import client_for
from tests.helpers import empty_all_tables, snapshot
from users.management.commands.migrate_skill_levels import Command as Migration
from users.models import User, UserSkill
from users.search import TalentSearch, search

DUMP = Path(__file__).parent / "fixtures" / "before_skill_levels.jsonl"
OLD_INDEX_KEYS = [
    ("skill_name", "S", "HASH"),
    ("proficiency", "S", "RANGE"),
    ("years", "N", "RANGE"),
]


@pytest.fixture
def old_tables(created_tables):
    """The tables as they were before the change (gsi_skill_level on the words), loaded.

    The other tables are the module's one build (`created_tables`), emptied: only user-skills,
    the table the migration changes, is made again for each test, with its old index.
    """
    tables.delete(UserSkill)
    while tables.describe(UserSkill) is not None:  # DELETING, on an engine that takes its time
        time.sleep(tables.poll_seconds(UserSkill))
    request = tables.expected_table(UserSkill)
    for index in request["GlobalSecondaryIndexes"]:
        if index["IndexName"] == "gsi_skill_level":
            index["KeySchema"] = [{"AttributeName": n, "KeyType": k} for n, _, k in OLD_INDEX_KEYS]
    wanted = {n for i in request["GlobalSecondaryIndexes"] for n in _names(i)} | {
        "username",
        "skill_id",
    }
    definitions = {d["AttributeName"]: d for d in request["AttributeDefinitions"]}
    definitions.update({n: {"AttributeName": n, "AttributeType": t} for n, t, _ in OLD_INDEX_KEYS})
    request["AttributeDefinitions"] = [d for n, d in definitions.items() if n in wanted]
    client_for(UserSkill).create_table(**request)
    tables.wait_until_active(UserSkill)
    call_command("create_tables", stdout=StringIO())
    empty_all_tables()  # what the module's tests before this one wrote
    call_command("load_tables", input=str(DUMP), stdout=StringIO())
    return created_tables


def _names(index) -> list[str]:
    return [k["AttributeName"] for k in index["KeySchema"]]


def migrate() -> str:
    out = StringIO()
    call_command("migrate_skill_levels", stdout=out)
    return out.getvalue()


def found(**criteria) -> list[str]:
    return [h.username for h in search(TalentSearch("Python", **criteria), limit=50).holders]


def test_check_reports_the_old_index_before_and_nothing_after(old_tables, capsys):
    with pytest.raises(CommandError, match="1 difference"):
        call_command("create_tables", "--check")
    assert "index gsi_skill_level has keys" in capsys.readouterr().out

    migrate()

    call_command("create_tables", "--check")
    assert tables.drift(UserSkill) == []


def test_it_orders_levels_and_leaves_deleted_learners_out(old_tables):
    output = migrate()

    assert "Migrated 6 user-skills; rebuilt gsi_skill_level" in output
    # carol is soft-deleted in the dump: her Expert Python is kept but not listed.
    assert found() == ["bob", "dave", "alice", "erin"]
    assert found(min_level="Advanced") == ["bob", "dave"]
    carol = UserSkill.get("carol", "python")
    assert (carol.level, carol.listed_skill_name) == (4, None)
    alice = UserSkill.get("alice", "python")
    assert (alice.level, alice.listed_skill_name, alice.proficiency) == (
        2,
        "Python",
        "Intermediate",
    )
    User.get("carol").restore()
    assert found() == ["carol", "bob", "dave", "alice", "erin"]


def test_a_second_run_changes_nothing(old_tables):
    migrate()
    before = snapshot()

    output = migrate()

    assert "Migrated 0 user-skills; kept gsi_skill_level" in output
    assert snapshot() == before


def test_a_run_that_died_half_way_is_finished_by_the_next(old_tables):
    # The first run migrated two items, then died before touching the index.
    for holding in list(UserSkill.scan())[:2]:
        assert Migration().handle_one(holding, {"carol"})

    output = migrate()

    assert "Migrated 4 user-skills; rebuilt gsi_skill_level" in output
    assert all(h.level is not None for h in UserSkill.scan())
    assert found() == ["bob", "dave", "alice", "erin"]


def test_a_dry_run_changes_nothing(old_tables):
    before = snapshot()
    out = StringIO()

    call_command("migrate_skill_levels", "--dry-run", stdout=out)

    assert "6 user-skills to migrate" in out.getvalue()
    assert "gsi_skill_level has keys" in out.getvalue()
    assert snapshot() == before
