"""The admin-log searched by a learner's username: every entry about them, newest first."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from io import StringIO

import pytest
from django.contrib.admin.utils import quote
from django.core.management import CommandError, call_command

from catalog.models import Skill
from dynamo_admin.models import HIDDEN, AdminLog
from stats.models import UserStats
from tests.admin_fixtures import calls, client_for, staff
from users.models import User, UserSkill

LOG = "/admin/dynamo_admin/adminlog/"
SECRET_EMAIL = "alice.private@example.com"


def at(day: int) -> datetime:
    return datetime(2026, 11, day, 9, 30, tzinfo=UTC)


def listed_entries(response) -> list[str]:
    """Return the ids of the entries a log page lists, in order."""
    return re.findall(rf'href="{LOG}([^"/]+)/change/"', response.content.decode())


def entry_id(entry: AdminLog) -> str:
    return ",".join(quote(value) for value in entry.pk)


@pytest.fixture
def alices_log(alice, python) -> list[AdminLog]:
    """Entries about Alice's item, skill and stats (oldest first), and one about Bob."""
    bob = User("bob", name="Bob Stone", email="bob@example.com")
    entries = [
        AdminLog.record(
            User("alice"), "change", "ada", {"email": ["a@x.org", SECRET_EMAIL]}, at(1)
        ),
        AdminLog.record(UserSkill("alice", "python"), "add", "ada", None, at(2)),
        AdminLog.record(UserStats("alice"), "change", "ada", {"xp": [100, 120]}, at(3)),
    ]
    AdminLog.record(bob, "add", "ada", None, at(4))
    AdminLog.record(python, "change", "ada", {"name": ["Py", "Python"]}, at(5))
    return entries


def test_each_entry_keeps_its_items_partition_value_whatever_the_model(alice, python):
    skill_entry = AdminLog.record(UserSkill("alice", "python"), "add", "ada")
    skill_log = AdminLog.record(python, "add", "ada")

    stored = AdminLog.get(skill_entry.object_key, skill_entry.logged_at)
    assert stored.object_partition == "alice"
    assert AdminLog.get(skill_log.object_key, skill_log.logged_at).object_partition == "python"


def test_a_username_lists_every_entry_about_that_learner_newest_first_in_one_call(
    admin_client_, alices_log
):
    response = admin_client_.get(LOG, {"q": "alice"})

    assert response.status_code == 200
    assert listed_entries(response) == [entry_id(e) for e in reversed(alices_log)]
    assert calls(response) == 1
    assert 'id="searchbar_helptext">Type a key exactly' in response.content.decode()


def test_the_date_header_turns_a_learners_entries_oldest_first(admin_client_, alices_log):
    newest = admin_client_.get(LOG, {"q": "alice"})
    assert '<th scope="col" class="column-logged_at sortable sorted descending' in (
        newest.content.decode()
    )

    response = admin_client_.get(LOG, {"q": "alice", "o": "0"})

    assert listed_entries(response) == [entry_id(e) for e in alices_log]
    assert calls(response) == 1


def test_a_month_chosen_beside_the_search_narrows_the_same_query(admin_client_, alice):
    october = AdminLog.record(User("alice"), "change", "ada", {"name": ["A", "B"]}, at(1))
    AdminLog.record(
        User("alice"), "change", "ada", {"name": ["B", "C"]}, datetime(2026, 10, 9, tzinfo=UTC)
    )

    response = admin_client_.get(LOG, {"q": "alice", "logged_month": "2026-11"})

    assert listed_entries(response) == [entry_id(october)]
    assert calls(response) == 1


def test_a_log_key_still_lists_that_one_items_entries(admin_client_, alices_log):
    response = admin_client_.get(LOG, {"q": "users.userskill:alice/python"})

    assert listed_entries(response) == [entry_id(alices_log[1])]


def test_an_unknown_username_lists_nothing(admin_client_, alices_log):
    response = admin_client_.get(LOG, {"q": "nobody"})

    assert response.status_code == 200
    assert listed_entries(response) == []


def test_a_key_no_table_could_hold_is_a_bad_request(admin_client_, dynamo):
    response = admin_client_.get(LOG, {"q": "x" * 3000})

    assert response.status_code == 400
    assert "no key a table could hold" in response.content.decode()


def test_a_log_reader_who_may_not_view_learners_finds_their_entries_without_values(db, alices_log):
    reader = client_for(staff("lou", "dynamo_admin.view_adminlog"))

    found = reader.get(LOG, {"q": "alice"})
    page = reader.get(f"{LOG}{entry_id(alices_log[0])}/change/").content.decode()

    assert listed_entries(found) == [entry_id(e) for e in reversed(alices_log)]
    assert SECRET_EMAIL not in found.content.decode()
    assert SECRET_EMAIL not in page and HIDDEN in page


def test_a_learners_entries_found_after_a_forget_hold_no_values(admin_client_, alices_log):
    AdminLog.forget(alices_log[0].object_key)

    response = admin_client_.get(LOG, {"q": "alice"})
    [stored] = AdminLog.query(alices_log[0].object_key)

    assert entry_id(alices_log[0]) in listed_entries(response)
    assert stored.changes == {"email": [None, None]}
    assert stored.object_partition == "alice"


def old_entry(item, day: int) -> AdminLog:
    """Store an entry as written before entries kept their partition."""
    entry = AdminLog.entry_for(item, "add", "ada", None, at(day))
    entry.object_partition = None
    entry.save()
    return entry


def test_the_backfill_gives_old_entries_their_partition_once(admin_client_, alice, python):
    old = [old_entry(User("alice"), 1), old_entry(UserSkill("alice", "python"), 2)]
    skill = old_entry(Skill("sql", name="SQL", category="Data"), 3)
    fresh = AdminLog.record(UserStats("alice"), "add", "ada", None, at(4))

    output = StringIO()
    call_command("backfill_log_partitions", stdout=output)
    again = StringIO()
    call_command("backfill_log_partitions", stdout=again)

    assert "Done: 3 entries given a partition." in output.getvalue()
    assert "Done: 0 entries given a partition." in again.getvalue()
    assert AdminLog.get(skill.object_key, skill.logged_at).object_partition == "sql"
    response = admin_client_.get(LOG, {"q": "alice"})
    assert listed_entries(response) == [entry_id(e) for e in [fresh, *reversed(old)]]


def test_the_backfill_resumes_after_a_printed_position(alice, monkeypatch):
    from dynamo_admin.management.commands import backfill_log_partitions

    monkeypatch.setattr(backfill_log_partitions, "PAGE_SIZE", 1)
    old = [old_entry(User("alice"), day) for day in (1, 2, 3)]
    output = StringIO()
    call_command("backfill_log_partitions", stdout=output)
    first_page = output.getvalue().splitlines()[0]
    position = first_page.split("; at ", 1)[1]
    for entry in old:  # as if the run had stopped after its first page
        entry.object_partition = None
        entry.save()

    resumed = StringIO()
    call_command("backfill_log_partitions", after=position, stdout=resumed)

    partitions = [AdminLog.get(e.object_key, e.logged_at).object_partition for e in old]
    assert "Done: 2 entries given a partition." in resumed.getvalue()
    # The entry of the first page, before the position, is not read again.
    assert sorted(partitions, key=str) == [None, "alice", "alice"]


def test_the_backfill_refuses_a_position_it_did_not_print(dynamo):
    with pytest.raises(CommandError, match="not a printed position"):
        call_command("backfill_log_partitions", after='{"username": {"S": "x"}}')
