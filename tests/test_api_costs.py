"""What API requests cost: DynamoDB calls per request, read from the X-DynamoDB-Calls header."""

from __future__ import annotations

import pytest

from tests.admin_fixtures import calls

READS = [
    ("/api/skills/python", 1),  # GetItem
    ("/api/skills?category=Programming", 1),  # one Query on gsi_category
    ("/api/learners/alice", 1),
    ("/api/learners/alice/skills", 2),  # the learner, then one Query on gsi_user_created_at
    ("/api/learners/alice/stats", 1),
    ("/api/leaderboard/xp", 1),  # one Query per shard (one shard)
    # The catalog's names (read once, then cached) resolve the skill; one Query; the names
    # of the page's learners in one BatchGetItem.
    ("/api/search?skill=Python&level=Expert&min_years=5", 3),
]


@pytest.mark.parametrize(("path", "expected"), READS)
def test_a_read_costs_what_its_access_pattern_says(dynamo, alice, api_client, path, expected):
    response = api_client.get(path)
    assert response.status_code == 200
    assert calls(response) == expected


def test_creating_writes_the_item_and_its_history_in_one_call(dynamo, api_client):
    response = api_client.post(
        "/api/skills", {"skill_id": "go", "name": "Go", "category": "Programming"}
    )
    assert response.status_code == 201
    meter = response.wsgi_request.dynamo_meter
    # One Query on gsi_name_key (is the name free?), then one TransactWriteItems: the skill
    # and its log entry.
    assert (meter.count_of("Query"), meter.count_of("TransactWriteItems"), calls(response)) == (
        1,
        1,
        2,
    )
