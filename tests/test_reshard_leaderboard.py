"""reshard_leaderboard: every item moves to its shard, resumably, with the ranking unchanged."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from dynamo.batch import batch_put
from stats.boards.ranking import top
from stats.management.commands import reshard_leaderboard
from stats.models import UserStats, leaderboard_partition_for
from tests.helpers import learners_for


@pytest.fixture
def board(dynamo, settings):
    settings.LEADERBOARD_SHARDS = 1
    learners_for([f"user{n:02d}" for n in range(60)])
    batch_put(
        UserStats,
        [UserStats(f"user{n:02d}", xp=(n * 37) % 11 * 10, streak=n % 4) for n in range(60)],
    )


def reshard(**options) -> str:
    out = StringIO()
    call_command("reshard_leaderboard", stdout=out, **options)
    return out.getvalue()


def ranking(metric: str = "xp") -> list[tuple[int, str]]:
    return [(row.rank, row.username) for row in top(metric, limit=100).rows]


def test_it_moves_every_item_and_the_ranking_stays_the_same(board, settings):
    before = ranking()

    output = reshard(shards=4)

    assert "scanned 60 items, moved" in output
    for stats in UserStats.scan():
        assert stats.leaderboard_partition == leaderboard_partition_for(stats.username, 4)
    settings.LEADERBOARD_SHARDS = 4
    assert ranking() == before
    assert "moved 0" in reshard()


def test_an_interrupted_run_resumes_from_its_checkpoint(board, monkeypatch):
    monkeypatch.setattr(reshard_leaderboard, "PAGE_SIZE", 20)

    reshard(shards=3, max_pages=2)
    moved_early = {
        s.username
        for s in UserStats.scan()
        if s.leaderboard_partition == leaderboard_partition_for(s.username, 3)
    }
    output = reshard(shards=3)

    assert "Resuming from the saved checkpoint." in output
    assert "scanned 20 items" in output or "scanned 21 items" in output
    assert 0 < len(moved_early) < 60
    assert all(
        s.leaderboard_partition == leaderboard_partition_for(s.username, 3)
        for s in UserStats.scan()
    )


def test_a_bad_shard_count_is_refused(board):
    with pytest.raises(CommandError, match="between 1 and 64"):
        reshard(shards=65)
