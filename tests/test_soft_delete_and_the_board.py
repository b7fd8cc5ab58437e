"""A soft-deleted learner leaves the leaderboard and comes back when restored."""

from __future__ import annotations

import pytest

from stats.models import UserStats
from tests.helpers import totals_for
from users.models import User


@pytest.fixture
def learners(dynamo):
    for username, xp in (("alice", 300), ("bob", 200)):
        User(username, name=username.title(), email=f"{username}@example.com").save()
        UserStats(username, xp=xp, streak=1, **totals_for(50, 50)).save()


def board() -> list[str]:
    return [s.username for s in UserStats.gsi_leaderboard_xp.query("ALL", scan_index_forward=False)]


def test_a_soft_deleted_learner_is_taken_off_every_leaderboard(learners):
    User.get("alice").soft_delete()

    assert board() == ["bob"]
    for metric in ("streak", "efficiency", "accuracy"):
        ranked = UserStats.leaderboard_index(metric).query("ALL")
        assert [s.username for s in ranked] == ["bob"]
    assert UserStats.get("alice").xp == 300  # the data stays until the gardener purges it


def test_a_restored_learner_is_back_on_the_board(learners):
    User.get("alice").soft_delete()

    User.get("alice").restore()

    assert board() == ["alice", "bob"]


def test_editing_a_soft_deleted_learners_stats_keeps_them_off_the_board(learners):
    User.get("alice").soft_delete()
    stats = UserStats.get("alice")

    stats.xp = 999
    stats.save()

    assert board() == ["bob"]
