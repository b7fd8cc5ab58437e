"""sync_user_skills: rewrites the catalog copies held by user-skills."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from catalog.models import Skill
from dynamo.batch import batch_put
from users.models import User, UserSkill


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
