"""The leaderboard page and its JSON variant."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command

from dynamo.batch import batch_put
from dynamo.models import utcnow
from stats.boards import tiers
from stats.models import UserStats
from tests.admin_fixtures import calls
from users.models import User
from workers.jobs import Job

# Error pages and problems for bad parameters are checked on moto alone (ON_MOTO); rankings,
# ranks and the board's cursor run on both engines.
ON_MOTO = pytest.mark.engines("moto")


def test_the_page_ranks_learners_with_a_podium_and_shared_ranks(client, ranked_learners):
    response = client.get("/leaderboard/?metric=xp")

    assert response.status_code == 200
    html = response.content.decode()
    assert 'class="podium"' in html
    assert html.index("Alice Liddell") < html.index("Carol Danvers") < html.index("Bob Stone")
    podium = response.context["podium"]
    assert [(r["rank"], r["username"]) for r in podium] == [(1, "alice"), (2, "carol"), (2, "bob")]
    assert response["Cache-Control"] == "public, max-age=0"  # the server caches nothing here
    assert "Accept" in response["Vary"]
    assert calls(response) == 2  # one Query per shard; names come with the stats


@pytest.mark.parametrize(
    "request_kwargs",
    [
        {"path": "/leaderboard/?metric=accuracy&format=json"},
        {"path": "/leaderboard/?metric=accuracy", "HTTP_ACCEPT": "application/json"},
    ],
    ids=["format", "accept"],
)
def test_the_json_variant_serves_the_same_ranking(client, ranked_learners, request_kwargs):
    response = client.get(**request_kwargs)

    assert response.status_code == 200
    data = response.json()
    assert data["metric"] == "accuracy" and data["next"] is None
    assert data["results"][0] == {
        "rank": 1,
        "username": "erin",
        "name": "Erin Brook",
        "xp": 100,
        "streak": 3,
        "efficiency": 60,
        "accuracy": 99,
    }
    assert [r["username"] for r in data["results"]] == ["erin", "alice", "carol", "bob", "dave"]


@pytest.mark.parametrize(
    ("metric", "order"),
    [
        ("streak", ["bob", "alice", "erin", "carol", "dave"]),
        ("efficiency", ["carol", "alice", "erin", "bob", "dave"]),
    ],
)
def test_each_metric_ranks_by_its_own_score(client, ranked_learners, metric, order):
    data = client.get(f"/leaderboard/?metric={metric}&format=json").json()

    assert [r["username"] for r in data["results"]] == order


def test_pages_follow_the_cursor_with_ranks_carried_over(client, ranked_learners, monkeypatch):
    monkeypatch.setattr("stats.boards.cache.PAGE_SIZE", 2)
    seen, url = [], "/leaderboard/?metric=xp&format=json"
    while url:
        data = client.get(url).json()
        seen += [(r["rank"], r["username"]) for r in data["results"]]
        url = data["next_url"]

    assert seen == [(1, "alice"), (2, "carol"), (2, "bob"), (4, "dave"), (5, "erin")]


def test_a_user_lookup_shows_the_rank_and_neighbours(client, ranked_learners):
    response = client.get("/leaderboard/?metric=xp&user=bob&format=json")

    data = response.json()
    assert data["user_rank"] == 2
    assert [(r["rank"], r["username"]) for r in data["results"]] == [
        (1, "alice"),
        (2, "carol"),
        (2, "bob"),
        (4, "dave"),
        (5, "erin"),
    ]
    html = client.get("/leaderboard/?metric=xp&user=bob").content.decode()
    assert "is-me" in html and "#2" in html


@pytest.fixture
def thirty(dynamo, settings):
    """Thirty learners with XP 10, 20, ... 300, and tiers of ten built over them."""
    settings.LEADERBOARD_SHARDS = 2
    names = [f"learner{n:02d}" for n in range(1, 31)]
    batch_put(User, [User(u, name=u.title(), email=f"{u}@example.com") for u in names])
    batch_put(UserStats, [UserStats(u, xp=10 * n) for n, u in enumerate(names, start=1)])
    call_command("rebuild_rank_tiers", "xp", tier_size=10, stdout=StringIO())


def stall_the_consumer() -> None:
    """Make the rank counts' last catch-up ten minutes old, as when no consumer runs."""
    stale = (utcnow() - timedelta(minutes=10)).isoformat()
    Job.apply(tiers.UPKEEP_JOB, [Job.watermark.set(stale)])


def test_a_rank_below_the_top_tier_is_exact_after_a_rebuild_and_approximate_while_counts_lag(
    client, thirty
):
    from django.core.cache import cache

    fresh = client.get("/leaderboard/?metric=xp&user=learner05&format=json").json()
    # learner05 has the 26th best XP, below the top tier: exact while nothing moved.
    assert (fresh["user_rank"], fresh["user_rank_exact"], fresh["user_rank_label"]) == (
        26,
        True,
        "26",
    )
    User.get("learner01").soft_delete()  # a move on the board after the rebuild
    stall_the_consumer()  # and no consumer applies it
    cache.clear()

    deep = client.get("/leaderboard/?metric=xp&user=learner05&format=json").json()
    top = client.get("/leaderboard/?metric=xp&user=learner28&format=json").json()

    # The counts lag, so below the top tier the page and the JSON say so.
    assert (deep["user_rank"], deep["user_rank_exact"], deep["user_rank_label"]) == (
        26,
        False,
        "≈26",
    )
    assert deep["ranks_exact"] is False
    assert (top["user_rank"], top["user_rank_exact"], top["user_rank_label"]) == (3, True, "3")
    html = client.get("/leaderboard/?metric=xp&user=learner05").content.decode()
    assert '<span class="lb-you-rank">#≈26</span>' in html
    assert ">≈</abbr>26<" in html


def test_an_approximate_rank_is_explained_on_the_page_and_an_exact_one_needs_no_note(
    client, thirty
):
    from django.core.cache import cache

    exact = client.get("/leaderboard/?metric=xp&user=learner05").content.decode()
    User.get("learner01").soft_delete()  # a move after the rebuild: deep ranks may lag
    stall_the_consumer()
    cache.clear()

    approximate = client.get("/leaderboard/?metric=xp&user=learner05").content.decode()

    assert "lb-note" not in exact
    assert '<p class="lb-note">≈ marks an approximate rank:' in approximate


@ON_MOTO
def test_an_unknown_user_gives_a_404_page(client, ranked_learners):
    response = client.get("/leaderboard/?user=nobody")

    assert response.status_code == 404
    assert "No learner called" in response.content.decode()


@ON_MOTO
@pytest.mark.parametrize(
    "query", ["metric=karma", "metric=xp&cursor=garbage", "metric=xp&user=bob&metric=nope"]
)
def test_a_bad_metric_or_cursor_gives_a_400_page(client, ranked_learners, query):
    response = client.get(f"/leaderboard/?{query}")

    assert response.status_code == 400
    assert 'role="alert"' in response.content.decode()


@ON_MOTO
@pytest.mark.parametrize(
    ("query", "status", "detail"),
    [
        ("metric=karma", 400, "Unknown metric 'karma'"),
        ("metric=xp&cursor=garbage", 400, "page link"),
        ("metric=streak&user=nobody", 404, "No learner called 'nobody' is on the leaderboard."),
    ],
)
def test_the_boards_json_errors_are_problems_as_the_apis(
    client, ranked_learners, query, status, detail
):
    by_format = client.get(f"/leaderboard/?{query}&format=json")
    by_accept = client.get(f"/leaderboard/?{query}", headers={"accept": "application/json"})

    for response in (by_format, by_accept):
        assert response.status_code == status
        assert response["Content-Type"] == "application/problem+json"
        body = response.json()
        assert set(body) == {"type", "title", "status", "detail"}
        assert (body["type"], body["status"]) == ("about:blank", status)
        assert body["title"] == ("Bad Request" if status == 400 else "Not Found")
        assert detail in body["detail"]


@ON_MOTO
def test_an_empty_board_invites_the_first_learner(client, dynamo):
    response = client.get("/leaderboard/")

    assert response.status_code == 200
    assert "Nobody is on this board yet" in response.content.decode()


def test_a_renamed_learner_shows_their_new_name_on_the_board(client, ranked_learners):
    alice = User.get("alice")
    alice.name = "Alice Kingsleigh"
    alice.save()

    response = client.get("/leaderboard/?format=json")

    assert response.json()["results"][0]["name"] == "Alice Kingsleigh"
    assert calls(response) == 2


def test_stats_without_a_copied_name_fall_back_to_one_batch_read(client, ranked_learners):
    from dynamo.models import client_for

    client_for(UserStats).update_item(
        TableName=UserStats.Meta.table_name,
        Key={"username": {"S": "alice"}},
        UpdateExpression="REMOVE #n",
        ExpressionAttributeNames={"#n": "name"},
    )

    response = client.get("/leaderboard/?format=json")

    assert response.json()["results"][0]["name"] == "Alice Liddell"
    assert calls(response) == 3  # + one BatchGetItem for the missing name
