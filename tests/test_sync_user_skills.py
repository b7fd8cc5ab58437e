"""sync_user_skills: rewrites the catalog copies held by user-skills."""

from __future__ import annotations

import threading
from contextlib import suppress
from io import StringIO
from unittest import mock

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import Skill
from dynamo import meter, models
from dynamo.batch import batch_put
from users.models import User, UserSkill
from workers import jobs


@pytest.fixture
def stale_copies(dynamo):
    """Three holders of python and one of go, then a catalog edit that skipped the sync."""
    python = Skill("python", name="Python", category="Programming")
    go = Skill("go", name="Go", category="Programming")
    batch_put(Skill, [python, go])
    batch_put(
        User, [User(u, name=u.title(), email=f"{u}@example.com") for u in ("alice", "bob", "carol")]
    )
    for username in ("alice", "bob", "carol"):
        UserSkill.for_catalog(username, python, proficiency="Expert", years=6).save()
    UserSkill.for_catalog("alice", go, proficiency="Beginner", years=1).save()
    python.name, python.category = "Python 3", "Backend"
    go.name = "Golang"
    batch_put(Skill, [python, go])  # batch writes send no skill_saved signal


def copies(skill_id: str) -> set[tuple[str, str, str]]:
    return {(c.username, c.skill_name, c.category) for c in UserSkill.gsi_skill_id.query(skill_id)}


def sync(*skill_ids: str) -> str:
    out = StringIO()
    call_command("sync_user_skills", *skill_ids, stdout=out)
    return out.getvalue()


def test_it_rewrites_the_copies_of_the_named_skill_only(stale_copies):
    output = sync("python")

    assert copies("python") == {
        ("alice", "Python 3", "Backend"),
        ("bob", "Python 3", "Backend"),
        ("carol", "Python 3", "Backend"),
    }
    assert copies("go") == {("alice", "Go", "Programming")}
    assert "Rewrote 3 stale copies of 1 catalog skills" in output


def test_without_arguments_it_syncs_every_catalog_skill(stale_copies):
    output = sync()

    assert copies("go") == {("alice", "Golang", "Programming")}
    assert {name for _, name, _ in copies("python")} == {"Python 3"}
    assert "Rewrote 4 stale copies of 2 catalog skills" in output


def test_running_it_again_rewrites_nothing(stale_copies):
    sync()
    before = {(h.username, h.skill_id): h.updated_at for h in UserSkill.scan()}

    output = sync()

    assert "Rewrote 0 stale copies" in output
    assert {(h.username, h.skill_id): h.updated_at for h in UserSkill.scan()} == before


def test_an_unknown_skill_id_is_a_command_error_and_nothing_is_rewritten(stale_copies):
    with pytest.raises(CommandError, match="No catalog skill 'cobol'"):
        sync("python", "cobol")

    assert {name for _, name, _ in copies("python")} == {"Python"}


@pytest.fixture
def holders(dynamo):
    """Forty holders of python, each with a skill listed in the search."""
    python = Skill("python", name="Python", category="Programming")
    python.save()
    users = [User(f"user{n:02d}", name=f"User {n}", email=f"u{n}@example.com") for n in range(40)]
    batch_put(User, users)
    batch_put(UserSkill, [UserSkill.for_catalog(u, python, proficiency="Advanced") for u in users])
    return Skill.get("python")


def rename(skill: Skill, name: str) -> None:
    skill.name = name
    skill.save()


def test_a_rename_writes_no_copy_and_marks_the_skill_pending(holders):
    with meter.metered() as calls:
        rename(holders, "Python 3")

    # The skill's own PutItem, whatever the number of holders, after one Query: is the name free?
    assert (calls.count_of("PutItem"), calls.count) == (1, 2)
    stored = Skill.get("python")
    assert (stored.pending, stored.pending_since is not None) == ("sync", True)
    assert [s.skill_id for s in Skill.pending_work("sync")] == ["python"]
    assert {name for _, name, _ in copies("python")} == {"Python"}


def test_pending_rewrites_every_copy_of_renamed_skills_and_clears_the_marker(holders):
    rename(holders, "Python 3")

    output = sync("--pending", "--threads", "4")

    assert {name for _, name, _ in copies("python")} == {"Python 3"}
    assert len(list(UserSkill.search("Python 3"))) == 40
    assert list(UserSkill.search("Python")) == []
    assert Skill.get("python").pending is None
    assert Skill.pending_work("sync") == []
    assert "Rewrote 40 stale copies of 1 catalog skills" in output
    assert " WCU" in output and " RCU" in output  # the capacity it used


def test_pending_finishes_a_run_that_died_half_way_and_a_second_run_writes_nothing(holders):
    rename(holders, "Python 3")
    for holding in list(UserSkill.gsi_skill_id.query("python"))[:15]:
        holding.rewrite_copy(Skill.get("python"))  # what the dead run got done

    assert "Rewrote 25 stale copies" in sync("--pending")
    before = {h.pk: h.version for h in UserSkill.scan()}
    assert "Rewrote 0 stale copies of 0 catalog skills" in sync("--pending")
    assert {h.pk: h.version for h in UserSkill.scan()} == before


def test_a_rename_during_a_run_keeps_the_skill_pending_for_the_next(holders):
    rename(holders, "Python 3")
    seen = Skill.pending_work("sync")[0]
    rename(Skill.get("python"), "CPython")

    assert not seen.mark_done(seen.pending_since)  # the run that read the first rename
    assert Skill.get("python").pending == "sync"
    sync("--pending")
    assert {name for _, name, _ in copies("python")} == {"CPython"}


def test_pending_and_skill_ids_together_is_a_command_error(holders):
    with pytest.raises(CommandError, match="not both"):
        sync("python", "--pending")


def test_a_learner_deleted_after_the_read_is_not_put_back_in_the_search(holders):
    rename(holders, "Python 3")
    read = list(UserSkill.gsi_skill_id.query("python"))
    User.get("user07").soft_delete()  # between the worker's read and its write

    assert UserSkill.rewrite_copies(read, Skill.get("python")) == 40

    assert {name for _, name, _ in copies("python")} == {"Python 3"}
    stored = UserSkill.get("user07", "python")
    assert (stored.skill_name, stored.listed_skill_name) == ("Python 3", None)
    assert len(list(UserSkill.search("Python 3"))) == 39


def versions(skill_id: str) -> dict[str, int]:
    return {
        h.username: UserSkill.get(h.username, skill_id, consistent_read=True).version
        for h in UserSkill.gsi_skill_id.query(skill_id)
    }


def test_two_pending_runs_at_once_write_each_copy_once(holders):
    rename(holders, "Python 3")
    before = versions("python")
    # Both runs read the holders before either writes (at the AWS boundary, as two hosts would).
    both_read = threading.Barrier(2, timeout=3)
    client = models.client_for(UserSkill)
    real_call = client._make_api_call

    def call(operation_name, kwargs):
        if operation_name == "TransactWriteItems":
            with suppress(threading.BrokenBarrierError):  # the other run never got this far
                both_read.wait()
        return real_call(operation_name, kwargs)

    outputs: list[str] = []
    with mock.patch.object(client, "_make_api_call", call):
        runs = [threading.Thread(target=lambda: outputs.append(sync("--pending"))) for _ in "ab"]
        for run in runs:
            run.start()
        for run in runs:
            run.join()

    assert len(outputs) == 2
    assert versions("python") == {username: v + 1 for username, v in before.items()}
    assert {name for _, name, _ in copies("python")} == {"Python 3"}
    assert Skill.get("python").pending is None


def test_a_copy_another_run_rewrote_after_this_one_read_it_is_not_written_again(holders):
    rename(holders, "Python 3")
    read_by_the_slower_run = list(UserSkill.gsi_skill_id.query("python"))
    sync("--pending")
    after_the_first = versions("python")

    rewritten = UserSkill.rewrite_copies(read_by_the_slower_run[:10], Skill.get("python"))

    assert rewritten == 0
    assert versions("python") == after_the_first


def test_a_skill_another_run_holds_is_left_to_it(holders):
    rename(holders, "Python 3")
    assert jobs.take_lease("sync_user_skills:python", "another-run", seconds=600)

    output = sync("--pending")

    assert {name for _, name, _ in copies("python")} == {"Python"}  # nothing written
    assert Skill.get("python").pending == "sync"  # the other run clears it when done
    assert "python: another run is on it" in output
    jobs.release_lease("sync_user_skills:python", "another-run")
    assert "Rewrote 40 stale copies" in sync("--pending")
    assert jobs.read_state("sync_user_skills:python") is None  # no lease left behind
