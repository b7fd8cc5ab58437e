"""App actions: the study-session action asks for the figures, then records them."""

from __future__ import annotations

import pytest

from stats.models import UserStats
from tests.admin_fixtures import record_session_action

# The action's form and messages; the sessions it records are tested on both engines in
# test_record_session and test_study_history: moto alone here.
pytestmark = pytest.mark.engines("moto")

STATS = "/admin/stats/userstats/"


def test_recording_a_study_session_shows_a_form_first(admin_client_, alice):
    response = admin_client_.post(
        STATS, {"action": "record_study_session", "_selected_action": ["alice"]}
    )

    assert response.status_code == 200
    assert 'id="record-session-form"' in response.content.decode()
    assert UserStats.get("alice").xp == 120


def test_recording_a_study_session_updates_the_selected_users_stats(admin_client_, alice):
    response = record_session_action(
        admin_client_, ["alice"], xp="30", questions="10", correct="8", minutes="5"
    )

    assert response.status_code == 302
    assert UserStats.get("alice").xp == 150


def test_running_an_action_with_nothing_selected_changes_nothing(admin_client_, alice):
    response = admin_client_.post(STATS, {"action": "record_study_session"}, follow=True)

    assert "Items must be selected" in response.content.decode()
    assert UserStats.get("alice").xp == 120


def test_an_unknown_action_is_a_bad_request(admin_client_, alice):
    response = admin_client_.post(STATS, {"action": "explode", "_selected_action": ["alice"]})

    assert response.status_code == 400


@pytest.mark.engines("moto", "local")  # DynamoDB refuses a key over 2,048 bytes; moto need not
def test_a_selected_key_no_item_could_have_is_nothing_selected(admin_client_, alice):
    too_long = "é" * 1100  # 2,200 bytes

    response = admin_client_.post(
        "/admin/catalog/skill/",
        {"action": "delete_selected", "_selected_action": [too_long]},
        follow=True,
    )

    assert response.status_code == 200
    assert "Items must be selected" in response.content.decode()
