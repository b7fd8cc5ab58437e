"""Every door writes one way: an import saves each row as its change page would, and an export
shows only what the admin shows its reader. Regression tests of what a side door once let by."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib import admin as django_admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import Skill
from dynamo_admin.exports import model_admin_named
from tests.admin_fixtures import client_for, staff
from users.models import User, UserSkill

USERS = "/admin/users/user/"


def stored(model, *key) -> dict:
    """The item as DynamoDB holds it (GetItem, consistent)."""
    hash_key, range_key = model._serialize_keys(*key) if len(key) > 1 else (key[0], None)
    found = model._get_connection().get_item(hash_key, range_key=range_key, consistent_read=True)
    return found["Item"]


def upload(client, text: str, name: str):
    return client.post(f"{USERS}import/", {"file": SimpleUploadedFile(name, text.encode())})


def test_an_import_refuses_the_fields_the_admin_shows_read_only(alice, db):
    """deleted_at in 2020 would have let the gardener purge alice for good; XP and the hash too."""
    editor = client_for(staff("eve", "users.view_user", "users.change_user"))
    before = stored(User, "alice")

    page = upload(editor, "username,deleted_at\nalice,2020-01-01T00:00:00+00:00\n", "u.csv")
    text = page.content.decode()

    assert page.status_code == 200
    assert "deleted_at: read-only here" in text
    assert stored(User, "alice") == before
    page = upload(editor, "username,password_hash\nalice,pbkdf2_sha256$1$x$y\n", "u.csv")
    assert "password_hash: read-only here" in page.content.decode()
    assert stored(User, "alice") == before


def test_import_items_refuses_a_read_only_field_and_writes_nothing(alice, tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("username,deleted_at\nalice,2020-01-01T00:00:00+00:00\n")
    before = stored(User, "alice")

    with pytest.raises(CommandError, match="1 rows refused"):
        call_command("import_items", "users.User", str(path), stdout=(out := StringIO()))

    assert "line 2 (alice): refused: deleted_at: read-only here" in out.getvalue()
    assert stored(User, "alice") == before


def test_a_password_hash_never_leaves_in_an_export(alice, admin):
    """The change page masks it; the export, whatever its format, leaves it out or masks it."""
    User.get("alice").set_password("s3cret-pass")
    ada = client_for(admin)

    for kind in ("csv", "jsonl"):
        response = ada.get(f"{USERS}export/", {"format": kind, "q": "alice"})
        text = b"".join(response.streaming_content).decode()
        assert "pbkdf2_sha256$" not in text, kind
        assert "alice" in text


def test_whole_items_are_exported_only_to_those_who_may_change_them(alice, db):
    viewer = client_for(staff("vic", "users.view_user"))

    assert viewer.get(f"{USERS}export/", {"format": "jsonl"}).status_code == 403
    assert viewer.get(f"{USERS}export/", {"format": "csv"}).status_code == 200


def test_a_new_json_lines_learner_follows_the_model_s_rules(python, tmp_path, admin):
    """Found by name (search words written with it), versioned; copies from the catalog."""
    learner = {"username": {"S": "zed"}, "name": {"S": "Zed Shaw"}, "email": {"S": "z@example.com"}}
    (tmp_path / "u.jsonl").write_text(json.dumps(learner) + "\n")
    holding = {
        "username": {"S": "zed"},
        "skill_id": {"S": "python"},
        "proficiency": {"S": "Beginner"},
        "years": {"N": "1"},
    }
    (tmp_path / "s.jsonl").write_text(json.dumps(holding) + "\n")

    call_command("import_items", "users.User", str(tmp_path / "u.jsonl"), stdout=StringIO())
    call_command("import_items", "users.UserSkill", str(tmp_path / "s.jsonl"), stdout=StringIO())

    assert User.get("zed").version == 1
    assert "zed" in client_for(admin).get(USERS, {"q": "Shaw"}).content.decode()
    skill = UserSkill.get("zed", "python")
    assert (skill.skill_name, skill.category) == ("Python", "Programming")
    assert client_for(admin).get("/api/learners/zed").status_code in (200, 401, 403)


def test_a_user_skill_claiming_another_skill_s_name_is_refused(python, tmp_path):
    User("zed", name="Zed Shaw", email="z@example.com").save()
    holding = {
        "username": {"S": "zed"},
        "skill_id": {"S": "python"},
        "skill_name": {"S": "Rust"},
        "category": {"S": "Programming"},
        "proficiency": {"S": "Expert"},
    }
    (tmp_path / "s.jsonl").write_text(json.dumps(holding) + "\n")

    with pytest.raises(CommandError, match="1 rows refused"):
        call_command(
            "import_items", "users.UserSkill", str(tmp_path / "s.jsonl"), stdout=StringIO()
        )
    assert UserSkill.get_or_none("zed", "python") is None


def test_a_key_twice_in_one_file_is_refused_as_such(alice, tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("username,name\nalice,Alice One\nalice,Alice Two\n")

    with pytest.raises(CommandError, match="1 rows refused"):
        call_command("import_items", "users.User", str(path), stdout=(out := StringIO()))

    assert "line 3: refused: the same key as line 2" in out.getvalue()
    assert User.get("alice").name == "Alice Liddell"


def test_every_model_s_csv_export_imports_back_unchanged(alice, tmp_path):
    """Export then import of the same file changes nothing, for every model the admin serves."""
    Skill("go", name='=HYPERLINK("http://x")', category="Backend").save()
    labels = [
        f"{m._meta.app_label}.{m.__name__}"
        for m in django_admin.site._registry
        if hasattr(m, "_get_connection")
        and m.__module__.split(".")[0] in ("users", "catalog", "stats")
    ]
    assert {"users.User", "users.UserSkill", "catalog.Skill", "stats.UserStats"} <= set(labels)
    for label in labels:
        model_admin = model_admin_named(label)
        if model_admin is None:
            continue
        path = tmp_path / f"{label}.csv"
        call_command("export_items", label, "--format", "csv", "-o", str(path), stdout=StringIO())
        out = StringIO()
        call_command("import_items", label, str(path), "--dry-run", stdout=out)
        assert " 0 new, 0 changed," in out.getvalue() and " 0 refused" in out.getvalue(), (
            label,
            out.getvalue(),
        )
    text = (tmp_path / "catalog.Skill.csv").read_text()
    assert "'=HYPERLINK" in text  # a spreadsheet shows it as text


def test_a_backup_imports_unchanged_and_an_export_is_a_backup_s_lines(alice, tmp_path):
    """dump_tables and export_items write one line format: each reads the other's files."""
    backup = tmp_path / "all.jsonl"
    call_command("dump_tables", "-o", str(backup), stdout=StringIO())
    out = StringIO()

    call_command("import_items", "catalog.Skill", str(backup), "--dry-run", stdout=out)
    export = tmp_path / "skills.jsonl"
    call_command("export_items", "catalog.Skill", "-o", str(export), stdout=StringIO())

    assert "Would import: 0 new, 0 changed, 1 unchanged, 0 refused" in out.getvalue()
    skills = [line for line in backup.read_text().splitlines() if '"table":"skills"' in line]
    assert export.read_text().splitlines() == skills
