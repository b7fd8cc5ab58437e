"""The history keeps who changed what, with the change: no secrets, no values of the purged."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.core.management import call_command

from catalog.models import Skill
from dynamo.exceptions import StaleVersion
from dynamo.models import utcnow
from dynamo_admin.models import HIDDEN, MAX_LOGGED_VALUE_CHARS, AdminLog
from dynamo_admin.writes import write_with_history
from stats.models import UserStats
from users.models import User, UserSkill

# How a password hash is masked is checked on moto alone (ON_MOTO); deletes, purges, items near
# DynamoDB's size limit and transactions run on both engines.
ON_MOTO = pytest.mark.engines("moto")

PASSWORD = "correct-horse-battery"


@pytest.fixture
def alice_with_password(alice) -> User:
    alice.set_password(PASSWORD)
    alice.save()
    return alice


def logged_text(item) -> str:
    """Return every logged value of an item's history as one JSON text."""
    return json.dumps([entry.changes for entry in AdminLog.history(item)])


@ON_MOTO
@pytest.mark.parametrize("suffix", ["change", "raw"])
def test_a_viewer_sees_a_masked_summary_of_the_password_hash(
    viewer_client, alice_with_password, suffix
):
    stored = User.get("alice").password_hash
    algorithm, salt, hashed = stored.split("$")  # the tests' fast MD5 hasher

    page = viewer_client.get(f"/admin/users/user/alice/{suffix}/").content.decode()

    assert f"algorithm: {algorithm}" in page
    assert stored not in page and salt not in page and hashed not in page
    assert hashed[:6] + "*" * 10 in page  # Django's mask_hash: the first characters, then stars


@ON_MOTO
def test_a_changed_password_hash_is_logged_as_hidden(alice_with_password):
    user = User.get("alice")
    old = user.password_hash
    user.set_password("another-secret-phrase")

    write_with_history(user, "change", "api:ada", {"password_hash": [old, user.password_hash]})

    [entry] = AdminLog.history(user)
    assert (entry.user, entry.changes) == ("api:ada", {"password_hash": [HIDDEN, HIDDEN]})
    assert User.get("alice").check_password("another-secret-phrase")


def test_deleting_a_learner_in_the_admin_blanks_every_logged_value_of_it(admin_client_, alice):
    user = User.get("alice")
    changes = {"name": [user.name, "Alice Private"], "email": [user.email, "a@private.example"]}
    user.name, user.email = "Alice Private", "a@private.example"
    write_with_history(user, "change", "ada", changes)
    stats = UserStats.get("alice")
    write_with_history(stats, "change", "ada", {"name": ["Alice Liddell", "Alice Private"]})
    version = User.get("alice").version

    response = admin_client_.post("/admin/users/user/alice/delete/", {"version": str(version)})

    assert response.status_code == 302
    for item in (User("alice"), UserStats("alice"), UserSkill("alice", "python")):
        assert "Alice" not in logged_text(item) and "private" not in logged_text(item)
    assert [e.action for e in AdminLog.history(User("alice"))] == ["delete", "change"]
    assert AdminLog.history(User("alice"))[1].changes["email"] == [None, None]


def test_the_gardener_leaves_no_personal_values_of_the_learner_in_the_history(alice):
    write_with_history(User.get("alice"), "change", "ada", {"name": ["Alice", "Alice Private"]})
    skill = UserSkill.get("alice", "python")
    skill.notes = "Private notes"
    write_with_history(skill, "change", "ada", {"notes": [None, "Private notes"]})
    User.get("alice").soft_delete(when=utcnow() - timedelta(days=400))

    call_command("purge_deleted", stdout=open("/dev/null", "w"))  # noqa: SIM115

    assert User.get_or_none("alice") is None
    assert "Private" not in logged_text(User("alice"))
    assert "Private" not in logged_text(UserSkill("alice", "python"))
    assert AdminLog.history(User("alice"))[0].changes == {"name": [None, None]}


def test_an_item_of_nearly_400_kb_is_added_with_a_shortened_history_entry(dynamo):
    tags = {f"{n:05d}" + "t" * 45 for n in range(7000)}  # 350 KB of tags
    skill = Skill("huge", name="Huge", category="Other", tags=tags)

    write_with_history(skill, "add", "ada", {"tags": [None, sorted(tags)]})

    assert len(Skill.get("huge").tags) == 7000
    [entry] = AdminLog.history(skill)
    logged = entry.changes["tags"][1]
    assert len(logged) == MAX_LOGGED_VALUE_CHARS and logged.endswith("…")


def test_deleting_an_item_of_nearly_400_kb_commits_with_its_entry(admin_client_, dynamo):
    tags = {f"{n:05d}" + "t" * 45 for n in range(7000)}
    Skill("huge", name="Huge", category="Other", tags=tags).save()

    response = admin_client_.post("/admin/catalog/skill/huge/delete/", {"version": "1"})

    assert response.status_code == 302
    assert Skill.get_or_none("huge") is None
    assert [e.action for e in AdminLog.history(Skill("huge"))] == ["delete"]


def test_a_stale_write_with_history_writes_neither_the_item_nor_an_entry(python):
    stale = Skill.get("python")
    Skill.get("python").save()  # version 2 meanwhile
    stale.name = "Snake"

    with pytest.raises(StaleVersion):
        write_with_history(stale, "change", "ada", {"name": ["Python", "Snake"]})

    assert Skill.get("python").name == "Python"
    assert AdminLog.history(stale) == []


def test_a_change_in_the_admin_writes_its_entry_in_the_same_transaction(admin_client_, python):
    response = admin_client_.post(
        "/admin/catalog/skill/python/change/",
        {"name": "Python 3", "category": "Programming", "_version": "1"},
    )

    meter = response.wsgi_request.dynamo_meter
    assert (meter.count_of("TransactWriteItems"), meter.count_of("PutItem")) == (1, 0)
    [entry] = AdminLog.history(python)
    assert entry.changes["name"] == ["Python", "Python 3"]
