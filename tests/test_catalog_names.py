"""Catalog names: NFC, nothing invisible, and unique case-insensitively on every write path."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from catalog.models import Skill
from dynamo.batch import batch_put, prepare_new
from dynamo.meter import metered
from tests.api_fixtures import problem_of

# Names refused or normalised before anything is written are checked on moto alone (ON_MOTO);
# uniqueness, which rests on conditional writes, runs on both engines.
ON_MOTO = pytest.mark.engines("moto")

HIDDEN = {
    "zero-width space": "Py\u200bthon",
    "zero-width joiner": "Py\u200dthon",
    "right-to-left override": "\u202ePython",
    "left-to-right isolate": "Py\u2066thon",
    "BEL (C0)": "Py\x07thon",
    "NEL (C1)": "Py\x85thon",
    "no-break space": "Py\u00a0thon",
    "Hangul filler": "Py\u3164thon",
}


def name_error(skill: Skill) -> str:
    with pytest.raises(ValidationError) as refused:
        skill.save()
    return " ".join(refused.value.message_dict["name"])


@ON_MOTO
@pytest.mark.parametrize("name", HIDDEN.values(), ids=HIDDEN.keys())
def test_a_name_with_an_invisible_or_control_character_is_refused(dynamo, name):
    message = name_error(Skill("py", name=name, category="Programming"))

    assert "invisible or control character U+" in message
    assert Skill.get_or_none("py") is None


@ON_MOTO
def test_a_name_is_stored_in_nfc_without_surrounding_spaces(dynamo):
    Skill("cafe", name="  Cafe\u0301 Script ", category="Other").save()

    assert Skill.get("cafe").name == "Caf\u00e9 Script"


@pytest.mark.parametrize("twin", ["Python", "PYTHON", "python ", "P\u0079thon"])
def test_a_second_skill_with_the_same_name_is_refused(python, twin):
    message = name_error(Skill("python-dup", name=twin, category="Programming"))

    assert "'python' is named" in message
    assert Skill.get_or_none("python-dup") is None


def test_names_that_differ_only_in_normalisation_or_case_are_the_same(dynamo):
    Skill("cafe", name="Caf\u00e9", category="Other").save()

    assert "'cafe' is named" in name_error(Skill("cafe2", name="CAFE\u0301", category="Other"))


def test_a_rename_to_another_skills_name_is_refused_and_its_own_case_is_free(python):
    Skill("go", name="Go", category="Programming").save()
    go = Skill.get("go")
    go.name = "python"
    assert "'python' is named" in name_error(go)
    assert Skill.get("go").name == "Go" and Skill.get("go").pending is None

    mine = Skill.get("python")
    mine.name = "PYTHON"
    mine.save()
    assert Skill.get("python").name == "PYTHON"


def test_a_deleted_skills_name_is_free_again(python):
    Skill.get("python").delete()

    Skill("python-3", name="Python", category="Programming").save()

    assert Skill.get("python-3").name == "Python"


def test_the_seed_and_batch_path_refuses_a_taken_name(python):
    with pytest.raises(ValidationError, match="is named"):
        batch_put(Skill, [prepare_new(Skill("snake", name="Python", category="Other"))])
    assert Skill.get_or_none("snake") is None


def test_an_unchanged_name_costs_no_read(python):
    skill = Skill.get("python")
    skill.description = "A language."
    with metered() as meter:
        skill.save()

    assert meter.count_of("Query") == 0


def test_the_admin_shows_a_taken_name_as_a_form_error(admin_client_, python):
    response = admin_client_.post(
        "/admin/catalog/skill/add/", {"skill_id": "dup", "name": "python", "category": "Other"}
    )

    assert response.status_code == 200
    assert "is named “python” already" in " ".join(
        response.context["adminform"].form.errors["name"]
    )
    assert Skill.get_or_none("dup") is None


@ON_MOTO
def test_the_api_answers_a_hidden_character_with_a_422_naming_the_field(api_client, dynamo):
    response = api_client.post(
        "/api/skills", {"skill_id": "py", "name": "Py\u200bthon", "category": "Programming"}
    )

    assert response.status_code == 422
    assert [e["field"] for e in problem_of(response)["errors"]] == ["name"]
    assert Skill.get_or_none("py") is None
