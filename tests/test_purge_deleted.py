"""purge_deleted: the gardener purges users soft-deleted longer than the retention."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from catalog.models import Skill
from dynamo.models import utcnow
from stats.models import UserStats
from users.management.commands.purge_deleted import Command
from users.models import User, UserSkill


@pytest.fixture
def catalog(dynamo):
    for skill_id, name in (("python", "Python"), ("go", "Go")):
        Skill(skill_id, name=name, category="Programming").save()


def learner(username: str, deleted_days_ago: int | None = None) -> User:
    user = User(username, name=username.title(), email=f"{username}@example.com")
    user.save()
    for skill_id in ("python", "go"):
        UserSkill(username, skill_id, proficiency="Advanced", years=3).save()
    UserStats(username, xp=10).save()
    if deleted_days_ago is not None:
        user.soft_delete(when=utcnow() - timedelta(days=deleted_days_ago))
    return user


def owned_by(username: str) -> tuple[bool, int, bool]:
    """Whether the user exists, how many skills it holds, whether its stats exist."""
    return (
        User.get_or_none(username) is not None,
        len(list(UserSkill.query(username))),
        UserStats.get_or_none(username) is not None,
    )


def purge(**options) -> str:
    out = StringIO()
    call_command("purge_deleted", stdout=out, **options)
    return out.getvalue()


def test_it_purges_users_deleted_longer_than_the_retention_with_skills_and_stats(catalog):
    learner("gone.long", deleted_days_ago=45)

    output = purge()

    assert owned_by("gone.long") == (False, 0, False)
    # Search words: gone.long, gone, long and the email for staff; the first three for anyone.
    assert "Purged 1 users with 2 user-skills and 7 search words and 1 stats" in output


def test_it_keeps_recently_deleted_and_active_users(catalog):
    learner("gone.lately", deleted_days_ago=5)
    learner("active")

    output = purge()

    assert owned_by("gone.lately") == (True, 2, True)
    assert owned_by("active") == (True, 2, True)
    assert "Purged 0 users" in output
    assert "1 soft-deleted not due yet (retention 30 days)" in output


def test_the_retention_comes_from_settings(catalog, settings):
    settings.USER_PURGE_AFTER_DAYS = 3
    learner("gone.lately", deleted_days_ago=5)

    purge()

    assert owned_by("gone.lately") == (False, 0, False)


def test_a_dry_run_changes_nothing_and_names_who_would_go(catalog):
    learner("gone.long", deleted_days_ago=45)
    learner("gone.lately", deleted_days_ago=5)

    output = purge(dry_run=True)

    assert owned_by("gone.long") == (True, 2, True)
    assert "Would purge gone.long (deleted " in output
    assert "gone.lately" not in output
    assert "would purge 1 users" in output and "Nothing was changed" in output


def test_a_rerun_finishes_a_purge_that_died_half_way(catalog):
    learner("gone.long", deleted_days_ago=45)
    UserSkill.get("gone.long", "python").delete()
    UserStats.get("gone.long").delete()

    purge()

    assert owned_by("gone.long") == (False, 0, False)


def test_running_it_twice_purges_nothing_more(catalog):
    learner("gone.long", deleted_days_ago=45)
    learner("active")
    purge()

    output = purge()

    assert "Purged 0 users" in output
    assert owned_by("active") == (True, 2, True)


def test_a_user_restored_after_the_index_was_read_is_kept_whole(catalog):
    stale = learner("back.again", deleted_days_ago=45)
    User.get("back.again").restore()

    purge_result = Command().handle_one(stale, cutoff=utcnow() - timedelta(days=30))

    assert purge_result.outcome == "restored"
    assert owned_by("back.again") == (True, 2, True)


def test_a_user_deleted_again_recently_is_not_purged_for_an_old_deletion(catalog):
    stale = learner("twice", deleted_days_ago=45)
    user = User.get("twice")
    user.restore()
    user.soft_delete()

    purge_result = Command().handle_one(stale, cutoff=utcnow() - timedelta(days=30))

    assert purge_result.outcome == "restored"
    assert owned_by("twice") == (True, 2, True)


def test_a_user_claimed_for_purging_can_no_longer_be_restored(catalog):
    learner("going", deleted_days_ago=45)
    assert User.get("going").claim_for_purge(utcnow() - timedelta(days=30))

    with pytest.raises(ValidationError, match="being purged"):
        User.get("going").restore()
    assert User.get("going").deleted_at is not None


def test_a_restore_racing_the_claim_wins_and_the_user_is_kept(catalog):
    stale = learner("racer", deleted_days_ago=45)
    read_by_gardener = User.get("racer")
    User.get("racer").restore()

    assert not read_by_gardener.claim_for_purge(utcnow() - timedelta(days=30))
    assert Command().handle_one(stale, cutoff=utcnow() - timedelta(days=30)).outcome == "restored"
    assert owned_by("racer") == (True, 2, True)


def test_a_rerun_finishes_a_purge_that_died_after_claiming(catalog):
    learner("half.gone", deleted_days_ago=45)
    User.get("half.gone").claim_for_purge(utcnow() - timedelta(days=30))
    UserSkill.get("half.gone", "python").delete()

    purge()

    assert owned_by("half.gone") == (False, 0, False)
