"""Bookkeeping items an earlier release left in user-stats (keys starting with '#') stay out
of the admin until the workers move them to the jobs table."""

from __future__ import annotations

import pytest

from dynamo.models import client_for
from stats.models import UserStats
from tests.admin_fixtures import calls, listed
from tests.helpers import learners_for

STATS = "/admin/stats/userstats/"
WATERMARK_KEY = "#send_reminders"
CHECKPOINT_KEY = {"username": {"S": "#reshard_leaderboard"}}


@pytest.fixture
def bookkeeping(dynamo):
    """Two learners' stats beside the reminder watermark and the reshard checkpoint."""
    learners_for(["alice", "bob"])
    UserStats("alice", xp=10).save()
    UserStats("bob", xp=20).save()
    client_for(UserStats).put_item(
        TableName=UserStats.Meta.table_name,
        Item={"username": {"S": WATERMARK_KEY}, "watermark": {"S": "2026-01-01-00"}},
    )
    client_for(UserStats).put_item(
        TableName=UserStats.Meta.table_name, Item={**CHECKPOINT_KEY, "done": {"BOOL": False}}
    )


def test_the_stats_listing_shows_learners_only(admin_client_, bookkeeping):
    response = admin_client_.get(STATS)

    assert sorted(listed(response)) == ["alice", "bob"]
    assert "#" not in "".join(listed(response))
    assert calls(response) == 1


def test_a_search_for_a_bookkeeping_key_finds_nothing(admin_client_, bookkeeping):
    response = admin_client_.get(STATS, {"q": WATERMARK_KEY})

    assert response.status_code == 200
    assert listed(response) == []


@pytest.mark.parametrize("suffix", ["change/", "delete/", "history/", "raw/"])
@pytest.mark.parametrize(
    "key", ["_23send_reminders", "%23send_reminders", "_23reshard_leaderboard"]
)
def test_a_bookkeeping_items_pages_are_not_found(admin_client_, bookkeeping, key, suffix):
    assert admin_client_.get(f"{STATS}{key}/{suffix}").status_code == 404


def test_a_bookkeeping_item_cannot_be_deleted_by_url_or_chosen_for_an_action(
    admin_client_, bookkeeping
):
    by_url = admin_client_.post(f"{STATS}_23send_reminders/delete/", {"version": "1"})
    by_action = admin_client_.post(
        STATS, {"action": "delete_selected", "_selected_action": ["_23send_reminders"]}
    )

    assert by_url.status_code == 404
    assert by_action.status_code == 302  # nothing selected: back to the listing
    stored = client_for(UserStats).get_item(
        TableName=UserStats.Meta.table_name, Key={"username": {"S": WATERMARK_KEY}}
    )
    assert stored["Item"]["watermark"] == {"S": "2026-01-01-00"}
