"""A user-skill's copies come from the catalog and its learner must exist, on every write path."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Skill
from dynamo import meter
from dynamo.batch import batch_put, prepare_new
from users.models import User, UserSkill


@pytest.fixture
def alice(dynamo) -> User:
    user = User("alice", name="Alice", email="alice@example.com")
    user.save()
    return user


def errors_of(write) -> dict[str, list[str]]:
    with pytest.raises(ValidationError) as caught:
        write()
    return caught.value.message_dict


def test_an_invented_name_for_a_skill_not_in_the_catalog_is_refused(alice):
    holding = UserSkill(
        "alice",
        "no-such-skill",
        skill_name="Invented",
        category="Made Up",
        proficiency="Expert",
        years=3,
    )

    assert errors_of(holding.save) == {"skill_id": ["No catalog skill 'no-such-skill'."]}
    assert UserSkill.get_or_none("alice", "no-such-skill") is None
    assert list(UserSkill.search("Invented")) == []


def test_a_name_set_by_the_caller_is_replaced_by_the_catalog_copy(python, alice):
    UserSkill(
        "alice", "python", skill_name="Snake", category="Other", proficiency="Expert", years=2
    ).save()

    stored = UserSkill.get("alice", "python")
    assert (stored.skill_name, stored.category) == ("Python", "Programming")
    assert [h.username for h in UserSkill.search("Python")] == ["alice"]
    assert list(UserSkill.search("Snake")) == []


def test_an_edit_of_a_stored_user_skill_copies_the_catalog_again(python, alice):
    UserSkill("alice", "python", proficiency="Beginner", years=1).save()
    stored = UserSkill.get("alice", "python")
    stored.skill_name, stored.proficiency = "Snake", "Advanced"

    stored.save()

    again = UserSkill.get("alice", "python")
    assert (again.skill_name, again.proficiency, again.level) == ("Python", "Advanced", 3)


def test_a_user_skill_of_a_learner_who_does_not_exist_is_refused(python):
    holding = UserSkill("ghost", "python", proficiency="Expert", years=3)

    assert errors_of(holding.save) == {"username": ["No learner 'ghost'."]}
    assert UserSkill.get_or_none("ghost", "python") is None


def test_a_batch_write_checks_the_catalog_and_the_learner_too(python, alice):
    invented = UserSkill(
        "alice", "cobol", skill_name="COBOL", category="Other", proficiency="Expert"
    )
    orphan = UserSkill.for_catalog("ghost", python, proficiency="Expert")

    assert "skill_id" in errors_of(lambda: batch_put(UserSkill, [invented]))
    assert "username" in errors_of(lambda: batch_put(UserSkill, [orphan]))
    assert list(UserSkill.scan()) == []


def test_a_made_up_skill_object_is_looked_up_rather_than_trusted(alice):
    fake = Skill("no-such-skill", name="Invented", category="Programming")

    holding = UserSkill.for_catalog(alice, fake, proficiency="Expert", years=3)

    assert errors_of(holding.save) == {"skill_id": ["No catalog skill 'no-such-skill'."]}
    assert list(UserSkill.scan()) == []


def test_a_batch_path_passing_the_objects_it_holds_reads_nothing_more(dynamo):
    # What the seed does: catalog and learners prepared for the same batch run.
    skill = prepare_new(Skill("python", name="Python", category="Programming"))
    learner = prepare_new(User("alice", name="Alice", email="alice@example.com"))
    batch_put(Skill, [skill], prepare=False)
    batch_put(User, [learner], prepare=False)

    with meter.metered() as calls:
        holding = prepare_new(UserSkill.for_catalog(learner, skill, proficiency="Advanced"))

    assert calls.count == 0
    assert (holding.skill_name, holding.level, holding.listed_skill_name) == (
        "Python",
        3,
        "Python",
    )
