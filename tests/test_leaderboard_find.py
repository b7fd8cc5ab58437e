"""The board's "Find a learner…": by username or by name, as the admin's learner search finds."""

from __future__ import annotations

import re

import pytest

from stats.models import UserStats
from tests.admin_fixtures import calls
from tests.helpers import totals_for
from users.models import User

BOARD = "/leaderboard/"


@pytest.fixture
def learners(dynamo):
    """Kofi Mensah, two Amas and Zoë; Ama Boateng is soft-deleted."""
    people = [
        ("kofi.mensah", "Kofi Mensah", 900),
        ("ama.owusu", "Ama Owusu", 700),
        ("ama_b", "Ama Boateng", 500),
        ("zoe", "Zoë Ngô", 300),
        ("amadou", "Amadou Diallo", 100),
    ]
    for username, name, xp in people:
        User(username, name=name, email=f"{username}@example.com").save()
        UserStats(username, xp=xp, **totals_for(50.0, 10.0)).save()
    User.get("ama_b").soft_delete()


@pytest.mark.parametrize("typed", ["Kofi", "kofi mensah", "Kofi.Mensah", "@kofi.mensah", "MENS"])
def test_it_finds_one_learner_by_name_or_username_and_shows_their_rank(client, learners, typed):
    response = client.get(BOARD, {"metric": "xp", "user": typed})

    assert response.status_code == 200
    assert response.context["username"] == "kofi.mensah"
    assert response.context["user_rank"] == 1


def test_a_lowercase_full_name_with_accents_dropped_finds_the_learner(client, learners):
    response = client.get(BOARD, {"metric": "xp", "user": "zoe ngo", "format": "json"})

    assert response.status_code == 200
    assert response.json()["user"] == "zoe"


def test_several_matches_are_a_short_list_of_links_without_the_soft_deleted(client, learners):
    response = client.get(BOARD, {"metric": "xp", "user": "ama"})

    assert response.status_code == 200
    html = response.content.decode()
    links = re.findall(r'href="/leaderboard/\?metric=xp&amp;user=([^"]+)"', html)
    assert sorted(links) == ["ama.owusu", "amadou"]
    assert "Ama Boateng" not in html
    assert calls(response) <= 4  # the missed rank's read, a Query and a BatchGetItem


def test_several_matches_in_json_name_each_learner(client, learners):
    response = client.get(BOARD, {"metric": "xp", "user": "ama", "format": "json"})

    assert {m["username"] for m in response.json()["matches"]} == {"ama.owusu", "amadou"}


def test_a_name_nobody_has_is_not_on_the_board(client, learners):
    response = client.get(BOARD, {"metric": "xp", "user": "yusuf"})

    assert response.status_code == 404
    assert "Not on the board" in response.content.decode()


def test_a_soft_deleted_learner_is_not_found_by_name(client, learners):
    response = client.get(BOARD, {"metric": "xp", "user": "boateng"})

    assert response.status_code == 404
