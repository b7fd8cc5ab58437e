"""dump_tables and load_tables: a JSON Lines backup that restores every table exactly."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from dynamo import backup
from dynamo.models import client_for
from tests.conftest import SHARED_PREFIX
from tests.helpers import empty_all_tables, snapshot
from users.models import User

# The file's format and the commands' errors are checked on moto alone (ON_MOTO); what a
# restore stores, to the byte, runs on both engines.
ON_MOTO = pytest.mark.engines("moto")

ODD_ITEM = {
    "username": {"S": "odd.one"},
    "name": {"S": 'Zoë <Odd> "One"'},
    "email": {"S": "odd@example.com"},
    "avatar": {"B": bytes(range(256))},
    "tags": {"SS": ["a", "b", "ü"]},
    "scores": {"NS": ["1.5", "-2", "12345678901234567890.123456789"]},
    "blobs": {"BS": [b"\x00", b"\xff"]},
    "profile": {"M": {"level": {"N": "3"}, "nested": {"L": [{"S": "x"}, {"BOOL": False}]}}},
    "nothing": {"NULL": True},
}


@pytest.fixture
def stocked(dynamo):
    call_command("seed", users=8, now="2025-06-01T12:00:00", stdout=StringIO())
    client_for(User).put_item(TableName=User.Meta.table_name, Item=ODD_ITEM)
    return dynamo


def dump(path) -> str:
    out = StringIO()
    call_command("dump_tables", output=str(path), stdout=out)
    return out.getvalue()


def load(path, **options) -> str:
    out = StringIO()
    call_command("load_tables", input=str(path), stdout=out, **options)
    return out.getvalue()


def test_a_dump_loaded_into_empty_tables_dumps_again_identically(stocked, tmp_path):
    before = snapshot()
    dump(tmp_path / "backup.jsonl")
    empty_all_tables()

    output = load(tmp_path / "backup.jsonl")
    dump(tmp_path / "again.jsonl")

    assert snapshot() == before
    assert sorted((tmp_path / "again.jsonl").read_text().splitlines()) == sorted(
        (tmp_path / "backup.jsonl").read_text().splitlines()
    )
    assert f"Loaded {len(before)} items" in output


def test_numbers_sets_maps_and_binary_survive_exactly(stocked, tmp_path):
    dump(tmp_path / "backup.jsonl")
    empty_all_tables()

    load(tmp_path / "backup.jsonl")

    stored = client_for(User).get_item(
        TableName=User.Meta.table_name, Key={"username": {"S": "odd.one"}}
    )["Item"]
    assert stored["avatar"] == {"B": bytes(range(256))}
    assert sorted(stored["scores"]["NS"]) == sorted(ODD_ITEM["scores"]["NS"])
    assert sorted(stored["blobs"]["BS"]) == [b"\x00", b"\xff"]
    assert stored["profile"] == ODD_ITEM["profile"]
    assert stored["nothing"] == {"NULL": True}


@ON_MOTO
def test_the_dump_is_one_table_and_item_per_line(stocked, tmp_path):
    output = dump(tmp_path / "backup.jsonl")

    lines = [json.loads(line) for line in (tmp_path / "backup.jsonl").read_text().splitlines()]
    assert {line["table"] for line in lines} == {
        "users",
        "skills",
        "user-skills",
        "user-stats",
        "study-sessions",
        "study-days",
        "learner-words",
    }
    assert all(set(line) == {"table", "item"} for line in lines)
    assert f"Dumped {len(lines)} items" in output
    assert not list(tmp_path.glob(".*partial"))


@ON_MOTO
def test_it_dumps_to_standard_output_and_loads_from_standard_input(stocked):
    out, err = StringIO(), StringIO()
    call_command("dump_tables", output="-", stdout=out, stderr=err)
    before = snapshot()
    empty_all_tables()

    call_command("load_tables", input="-", stdin=StringIO(out.getvalue()), stdout=StringIO())

    assert snapshot() == before
    assert "Dumped" in err.getvalue() and "Dumped" not in out.getvalue()


def test_it_refuses_to_load_into_tables_holding_items(stocked, tmp_path):
    dump(tmp_path / "backup.jsonl")
    User("extra", name="Extra", email="extra@example.com").save()
    before = snapshot()

    with pytest.raises(CommandError, match="Pass --replace"):
        load(tmp_path / "backup.jsonl")

    assert snapshot() == before


def test_replace_leaves_the_tables_holding_exactly_the_backup(stocked, tmp_path):
    dump(tmp_path / "backup.jsonl")
    before = snapshot()
    User("extra", name="Extra", email="extra@example.com").save()

    output = load(tmp_path / "backup.jsonl", replace=True)

    assert snapshot() == before
    assert User.get_or_none("extra") is None
    # The learner and their search words: "extra" and "extra@example.com" for staff, "extra"
    # again for anyone.
    assert "Removed 4 items the backup lacks" in output


GOOD = '{"table": "users", "item": {"username": {"S": "alice"}, "name": {"S": "Alice"}}}'


@ON_MOTO
@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"table": "users"}', 'exactly the keys "table" and "item"'),
        ('{"table": "people", "item": {"username": {"S": "x"}}}', "unknown table 'people'"),
        ('{"table": "users", "item": {"name": {"S": "x"}}}', "lacks its key attribute"),
        ('{"table": "users", "item": {"username": {"N": "1"}}}', "must be of type S"),
        ('{"table": "users", "item": {"username": {"S": ""}}}', "must not be empty"),
        ('{"table": "users", "item": {"username": {"S": "b"}, "x": {"B": "!!"}}}', "base64"),
        ('{"table": "users", "item": {"username": {"S": "b"}, "x": {"N": "1_0"}}}', "bad N"),
        ('{"table": "users", "item": {"username": {"S": "b"}, "x": {"Q": 1}}}', "unknown type"),
        (GOOD, "the same item key as line 1"),
    ],
)
def test_a_bad_line_is_named_by_number_and_nothing_is_written(dynamo, tmp_path, bad, message):
    other = '{"table": "skills", "item": {"skill_id": {"S": "go"}, "name": {"S": "Go"}}}'
    (tmp_path / "bad.jsonl").write_text(f"{GOOD}\n\n{other}\n{bad}\n")

    with pytest.raises(CommandError, match="line 4") as caught:
        load(tmp_path / "bad.jsonl")

    assert message in str(caught.value)
    assert snapshot() == []


@ON_MOTO
def test_a_missing_input_file_is_a_command_error(dynamo, tmp_path):
    with pytest.raises(CommandError, match="Cannot read"):
        load(tmp_path / "nowhere.jsonl")


def users_file(path: Path, names: dict[str, str]) -> Path:
    """Write a backup holding one users item per (username, name)."""
    lines = [
        json.dumps(
            {
                "table": "users",
                "item": {"username": {"S": u}, "name": {"S": n}, "email": {"S": f"{u}@x.org"}},
            }
        )
        for u, n in names.items()
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def stored_users() -> dict[str, str]:
    return {item["username"]["S"]: item["name"]["S"] for item in backup.scan_items(User)}


@pytest.mark.engines("local")
def test_a_replace_killed_half_way_leaves_old_or_new_items_and_a_rerun_finishes(dynamo, tmp_path):
    old = {f"user{i:04}": "Old" for i in range(1500)} | {f"gone{i:03}": "Old" for i in range(300)}
    new = {f"user{i:04}": "New" for i in range(1500)}
    load(users_file(tmp_path / "old.jsonl", old))
    restore = users_file(tmp_path / "new.jsonl", new)
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_ENV_FILE": "",
        "DJANGO_DEBUG": "false",
        "DJANGO_SECRET_KEY": "test-only-secret-key-that-is-long-enough-0123456789",
        "SITE_URL": "http://127.0.0.1:8000",
        "DYNAMODB_ENDPOINT": User.Meta.host,
        "DYNAMODB_TABLE_PREFIX": SHARED_PREFIX,
        "AWS_REGION": "us-east-1",
        "PYTHONUNBUFFERED": "1",
    }
    command = [sys.executable, "manage.py", "load_tables", "--replace", "-i", str(restore)]
    process = subprocess.Popen(
        [*command, "--threads", "1"], env=environment, stdout=subprocess.PIPE, text=True
    )
    try:
        for line in process.stdout:
            if line.startswith("Loading:"):  # a tenth written: kill it mid-write
                process.send_signal(signal.SIGKILL)
                break
    finally:
        process.kill()
        process.wait()

    half_way = stored_users()
    assert set(half_way) >= set(new)  # nothing the old tables held is missing
    assert {name for name in half_way.values()} == {"Old", "New"}
    assert all(half_way[u] == "Old" for u in half_way if u.startswith("gone"))

    load(restore, replace=True)

    assert stored_users() == new


def test_a_loaded_admin_log_is_found_by_learner_again(dynamo, tmp_path):
    from dynamo_admin.models import AdminLog
    from users.models import UserSkill

    entry = AdminLog.record(UserSkill("alice", "python"), "add", "ada")
    dump(tmp_path / "backup.jsonl")
    empty_all_tables()

    load(tmp_path / "backup.jsonl")

    [found] = AdminLog.gsi_object_partition.query("alice")
    assert (found.object_key, found.logged_at) == (entry.object_key, entry.logged_at)
