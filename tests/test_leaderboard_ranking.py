"""Leaderboard ranking: merged shards page for page equal a brute-force sort."""

from __future__ import annotations

import pytest

from dynamo.meter import metered
from stats.boards import ranking
from stats.boards.ranking import BadLeaderboardRequest, rank_sorted
from stats.models import METRICS
from tests.helpers import stored_board

USERS = 90


@pytest.fixture
def board(dynamo, settings, request):
    settings.LEADERBOARD_SHARDS = request.param
    return stored_board(USERS, request.param)


def walk(metric: str, limit: int) -> list[tuple[int, str]]:
    rows, cursor = [], None
    for _ in range(USERS):
        page = ranking.top(metric, cursor=cursor, limit=limit)
        rows += [(row.rank, row.username) for row in page.rows]
        cursor = page.next_cursor
        if not cursor:
            return rows
    raise AssertionError("the pages never ended")


@pytest.mark.parametrize("board", [1, 4], indirect=True, ids=["1-shard", "4-shards"])
@pytest.mark.parametrize("metric", METRICS)
def test_every_page_in_turn_equals_a_brute_force_ranking(board, metric):
    expected = [(row.rank, row.username) for row in rank_sorted(board, metric)]

    assert walk(metric, limit=25) == expected


@pytest.mark.parametrize("board", [4], indirect=True, ids=["4-shards"])
def test_a_page_reads_each_shard_once(board):
    first = ranking.top("xp", limit=20)
    with metered() as meter:
        ranking.top("xp", cursor=first.next_cursor, limit=20)

    assert meter.count_of("Query") == 4
    assert meter.count_of("Scan") == 0
    assert meter.count == 4


@pytest.mark.parametrize("board", [1], indirect=True, ids=["1-shard"])
def test_equal_scores_share_a_rank_and_the_next_rank_skips(board):
    rows = walk("streak", limit=10)

    ranks = [rank for rank, _ in rows]
    assert len(set(ranks)) < len(ranks)
    for position, (rank, _) in enumerate(rows, start=1):
        assert rank <= position
        assert rank == position or rank == rows[position - 2][0]


@pytest.mark.parametrize("board", [1, 4], indirect=True, ids=["1-shard", "4-shards"])
@pytest.mark.parametrize("where", ["top", "middle", "bottom"])
def test_a_users_rank_and_neighbours_match_the_brute_force_ranking(board, where):
    expected = rank_sorted(board, "xp")
    position = {"top": 0, "middle": USERS // 2, "bottom": USERS - 1}[where]
    username = expected[position].username

    result = ranking.around("xp", username, window=3)

    assert result.user_rank == expected[position].rank
    window = expected[max(0, position - 3) : position + 4]
    assert [(r.rank, r.username) for r in result.rows] == [(r.rank, r.username) for r in window]


def test_a_user_without_stats_has_no_rank(dynamo):
    assert ranking.around("xp", "nobody") is None


def test_the_top_of_an_empty_board_is_empty(dynamo):
    page = ranking.top("accuracy")

    assert (page.rows, page.next_cursor) == ([], "")


@pytest.mark.parametrize("board", [1], indirect=True, ids=["1-shard"])
def test_a_cursor_made_for_another_metric_or_shard_count_is_refused(board, settings):
    cursor = ranking.top("xp", limit=10).next_cursor

    with pytest.raises(BadLeaderboardRequest):
        ranking.top("streak", cursor=cursor)
    settings.LEADERBOARD_SHARDS = 2
    with pytest.raises(BadLeaderboardRequest):
        ranking.top("xp", cursor=cursor)
    with pytest.raises(BadLeaderboardRequest):
        ranking.top("xp", cursor=cursor[:-3] + "abc")


def test_an_unknown_metric_is_refused(dynamo):
    with pytest.raises(BadLeaderboardRequest, match="choose one of xp, streak"):
        ranking.top("karma")
