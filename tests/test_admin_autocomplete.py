"""Django's autocomplete for a user-skill's skill: its JSON answered by Queries, not a Scan."""

from __future__ import annotations

import pytest

from catalog.models import Skill
from dynamo.batch import batch_put
from tests.admin_fixtures import calls, client_for, staff

URL = "/admin/autocomplete/"
PARAMS = {"app_label": "users", "model_name": "userskill", "field_name": "skill_id"}


@pytest.fixture
def catalog(dynamo) -> None:
    batch_put(
        Skill,
        [
            Skill("python", name="Python", category="Programming"),
            Skill("pytorch", name="PyTorch", category="Data"),
            Skill("postgres", name="PostgreSQL", category="Database"),
            Skill("aws", name="AWS", category="Cloud"),
        ],
    )


def test_it_answers_names_starting_with_the_term_by_name_from_every_category(
    admin_client_, catalog
):
    response = admin_client_.get(URL, {**PARAMS, "term": "py"})

    assert response.status_code == 200
    assert response.json() == {
        "results": [
            # By name as DynamoDB orders it: byte order, capitals first.
            {"id": "pytorch", "text": "PyTorch (pytorch)"},
            {"id": "python", "text": "Python (python)"},
        ],
        "pagination": {"more": False},
    }
    # A GetItem for the id and one Query per category for each spelling: never a Scan.
    assert calls(response) <= 1 + 2 * 10


def test_it_finds_a_skill_by_its_id(admin_client_, catalog):
    response = admin_client_.get(URL, {**PARAMS, "term": "aws"})

    assert [r["id"] for r in response.json()["results"]] == ["aws"]


def test_it_needs_the_view_permission_of_the_catalog(dynamo, db, catalog):
    client = client_for(staff("una", "users.change_userskill"))

    response = client.get(URL, {**PARAMS, "term": "py"})

    assert response.status_code == 403


def test_a_field_that_references_nothing_is_refused(admin_client_, catalog):
    response = admin_client_.get(URL, {**PARAMS, "field_name": "notes", "term": "py"})

    assert response.status_code == 403


def test_the_user_skill_form_uses_djangos_autocomplete_widget(admin_client_, catalog):
    page = admin_client_.get("/admin/users/userskill/add/").content.decode()

    assert 'class="admin-autocomplete"' in page
    assert 'data-ajax--url="/admin/autocomplete/"' in page
    assert "admin/js/autocomplete.js" in page


def test_a_stored_rows_fixed_skill_is_a_disabled_text_input_the_new_rows_search(
    admin_client_, alice
):
    """A stored row's key cannot change, so it has nothing to search: select2 only where it can."""
    page = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    assert '<input type="text" name="userskill-0-skill_id" value="python" disabled' in page
    assert '<select name="userskill-0-skill_id"' not in page
    assert 'id="id_userskill-1-skill_id" class="admin-autocomplete"' in page
