"""Domain rules, timestamps and optimistic locking on the models."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from catalog.models import Skill
from dynamo.exceptions import AlreadyExists, StaleVersion
from stats.models import UserStats, leaderboard_partition_for
from tests.helpers import learners_for
from users.models import User, UserSkill

# A rule refused before anything is written is checked on moto alone (ON_MOTO); stored items,
# conditional writes and indexes run on both engines.
ON_MOTO = pytest.mark.engines("moto")


@pytest.fixture
def learners(dynamo):
    for username in ("alice", "bob"):
        User(username, name=username.title(), email=f"{username}@example.com").save()


def errors_of(item) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        item.save()
    return caught.value.message_dict


@ON_MOTO
@pytest.mark.parametrize(
    ("skill_id", "name", "category", "bad"),
    [
        ("Python", "Python", "Programming", "skill_id"),
        ("a" * 51, "Python", "Programming", "skill_id"),
        ("py_thon", "Python", "Programming", "skill_id"),
        ("python", "P", "Programming", "name"),
        ("python", "P" * 101, "Programming", "name"),
        ("python", "Python", "Languages", "category"),
    ],
)
def test_a_skill_breaking_a_rule_is_rejected_with_one_message_for_the_field(
    dynamo, skill_id, name, category, bad
):
    errors = errors_of(Skill(skill_id, name=name, category=category))

    assert list(errors) == [bad]
    assert Skill.get_or_none(skill_id) is None


@ON_MOTO
def test_a_user_skill_is_checked_field_by_field(python):
    errors = errors_of(UserSkill("ab", "python", proficiency="Guru", years=61))

    assert set(errors) == {"username", "proficiency", "years"}
    assert "Beginner, Intermediate, Advanced, Expert" in errors["proficiency"][0]
    assert errors["years"] == ["Must be between 0 and 60."]


@ON_MOTO
def test_a_user_skill_must_reference_a_catalog_skill(learners):
    errors = errors_of(UserSkill("alice", "cobol", proficiency="Expert", years=3))

    assert errors == {"skill_id": ["No catalog skill 'cobol'."]}
    assert UserSkill.get_or_none("alice", "cobol") is None


def test_a_new_user_skill_copies_the_catalog_name_and_category(python, learners):
    UserSkill("alice", "python", proficiency="Expert", years=6).save()

    stored = UserSkill.get("alice", "python")
    assert (stored.skill_name, stored.category) == ("Python", "Programming")


def test_renaming_a_catalog_skill_rewrites_every_copy(python, learners):
    for username in ("alice", "bob"):
        UserSkill.for_catalog(username, python, proficiency="Advanced", years=2).save()

    python.name, python.category = "Python 3", "Backend"
    python.save()
    call_command("sync_user_skills", "--pending", stdout=StringIO())

    copies = {
        (c.username, c.skill_name, c.category) for c in UserSkill.gsi_skill_id.query("python")
    }
    assert copies == {("alice", "Python 3", "Backend"), ("bob", "Python 3", "Backend")}


@ON_MOTO
@pytest.mark.parametrize(
    ("username", "email", "bad"),
    [
        ("al", "al@example.com", "username"),
        ("al ice", "a@example.com", "username"),
        ("alice", "not-an-email", "email"),
        ("a" * 31, "a@example.com", "username"),
    ],
)
def test_a_user_breaking_a_rule_is_rejected(dynamo, username, email, bad):
    assert list(errors_of(User(username, name="Alice", email=email))) == [bad]


@ON_MOTO
def test_stats_must_be_in_range(dynamo):
    learners_for(["alice"])
    errors = errors_of(UserStats("alice", xp=-1, streak=1.5, efficiency=101, accuracy=-3))

    assert set(errors) == {"xp", "streak", "efficiency", "accuracy"}


def test_saving_a_user_stamps_times_and_the_sign_up_month(dynamo):
    user = User("alice", name="Alice", email="alice@example.com")
    user.save()

    stored = User.get("alice")
    assert stored.created_at == user.created_at
    assert stored.created_month == user.created_at.strftime("%Y-%m")
    assert stored.version == 1


def test_adding_an_existing_key_fails_and_keeps_the_stored_item(dynamo):
    User("alice", name="Alice", email="alice@example.com").save()

    with pytest.raises(AlreadyExists):
        User("alice", name="Mallory", email="mallory@example.com").save()
    assert User.get("alice").name == "Alice"


def test_a_stale_save_is_rejected_and_the_stored_item_kept(python):
    first, second = Skill.get("python"), Skill.get("python")
    first.description = "first"
    first.save()

    second.description = "second"
    with pytest.raises(StaleVersion):
        second.save()
    stored = Skill.get("python")
    assert (stored.description, stored.version) == ("first", 2)


def test_a_stale_delete_is_rejected(python):
    first, second = Skill.get("python"), Skill.get("python")
    first.description = "changed"
    first.save()

    with pytest.raises(StaleVersion):
        second.delete()
    assert Skill.get_or_none("python") is not None


def test_the_leaderboard_partition_is_stable_and_within_the_shard_count():
    assert leaderboard_partition_for("alice", 1) == "ALL"
    partitions = {leaderboard_partition_for(f"user{i}", 4) for i in range(200)}
    assert partitions == {"ALL#0", "ALL#1", "ALL#2", "ALL#3"}
    assert leaderboard_partition_for("alice", 4) == leaderboard_partition_for("alice", 4)


def test_scheduling_a_reminder_sets_its_hour_bucket(dynamo):
    from datetime import UTC, datetime

    learners_for(["alice"])
    stats = UserStats("alice")
    stats.schedule_reminder(datetime(2026, 3, 1, 17, 45, tzinfo=UTC))
    stats.save()

    stored = UserStats.get("alice")
    assert stored.next_reminder_bucket == "2026-03-01-17"
    stats.schedule_reminder(None)
    stats.save()
    assert UserStats.get("alice").next_reminder_bucket is None


@ON_MOTO
def test_a_password_is_stored_as_a_django_hash_and_checked_against_it(dynamo):
    user = User("alice", name="Alice", email="alice@example.com")
    user.set_password("correct horse")
    user.save()

    stored = User.get("alice")
    assert "correct horse" not in stored.password_hash
    assert stored.check_password("correct horse")
    assert not stored.check_password("wrong horse")
    stored.set_password(None)
    assert not stored.check_password("correct horse")


def test_a_users_skills_come_back_in_the_order_they_were_added(python):
    from datetime import UTC, datetime, timedelta

    User("alice", name="Alice", email="alice@example.com").save()
    for n, skill_id in enumerate(("rust", "go", "elm")):
        skill = Skill(skill_id, name=skill_id.title(), category="Programming")
        skill.save()
        holding = UserSkill.for_catalog("alice", skill, proficiency="Beginner", years=1)
        holding.created_at = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(days=n)
        holding.save()

    assert [s.skill_id for s in User.get("alice").skills()] == ["rust", "go", "elm"]
