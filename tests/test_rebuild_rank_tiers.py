"""`rebuild_rank_tiers`: a new generation of tiers per board, safe twice at once and killed."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections import Counter
from io import StringIO
from itertools import pairwise

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from stats.boards import tiers, upkeep
from stats.boards.ranking import rank_infos, rank_sorted
from stats.models import METRICS, UserStats
from tests import moto_atomic
from tests.conftest import SHARED_PREFIX
from tests.helpers import child_environment, run_together, stored_board
from workers import jobs

atomic_writes = moto_atomic.atomic_writes

USERS = 60


@pytest.fixture
def board(dynamo):
    return stored_board(USERS, 1)


def rebuild(*metrics: str) -> str:
    out = StringIO()
    call_command("rebuild_rank_tiers", *metrics, tier_size=10, stdout=out)
    return out.getvalue()


def stored_generations() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for tier in tiers.RankTier.scan():
        metric, _, generation = tier.board.partition("#")
        found.setdefault(metric, set()).add(generation)
    return found


def assert_every_rank_exact(board) -> None:
    # The boards' pointers are read once, as rank_of reads them (nothing writes meanwhile), and
    # each rank is counted from them as rank_of counts it: not one BatchGet a learner a board.
    found = tiers.pointers(METRICS)
    for metric in METRICS:
        expected = {row.username: row.rank for row in rank_sorted(board, metric)}
        shown = {s.username: rank_infos(s, [metric], pointers=found)[metric].rank for s in board}
        assert shown == expected, metric


class Killed(BaseException):
    """What kill -9 does to a run: it stops mid-write, and nothing of it runs afterwards."""


def test_it_points_each_board_at_tiers_that_count_every_learner(board):
    rebuild()

    for metric in METRICS:
        pointer = tiers.pointers([metric])[metric]
        stored = list(tiers.RankTier.query(tiers.board_key(metric, pointer.generation)))
        assert pointer.learners == USERS
        assert pointer.tiers == len(stored) > 1
        assert sum(tier.learners for tier in stored) == USERS
        best_first = sorted(stored, key=lambda tier: tier.ceiling, reverse=True)
        assert best_first[0].above == 0
        for higher, lower in pairwise(best_first):
            assert lower.above == higher.above + higher.learners
            assert lower.ceiling < higher.floor
    assert_every_rank_exact(board)


def test_it_prints_each_boards_learners_calls_and_capacity(board):
    out = rebuild("xp")

    assert f"xp: {USERS} learners in" in out
    assert "now current" in out
    assert "DynamoDB calls" in out and "RCU" in out and "WCU" in out


def test_a_second_run_replaces_the_generation_and_clears_the_one_before_last(board):
    rebuild("xp")
    first = tiers.pointers(["xp"])["xp"].generation
    rebuild("xp")
    second = tiers.pointers(["xp"])["xp"]
    rebuild("xp")
    third = tiers.pointers(["xp"])["xp"]

    assert second.previous == first and third.previous == second.generation
    # The previous generation stays for readers holding the old pointer; older ones go.
    assert stored_generations()["xp"] == {third.generation, second.generation}


# moto applies a conditional update without a lock: two threads can both pass a condition.
@pytest.mark.usefixtures("atomic_writes")
def test_two_runs_at_once_leave_one_current_generation_and_exact_ranks(board):
    run_together(rebuild, 2)

    pointers = tiers.pointers(METRICS)
    for metric in METRICS:
        # The loser's tiers were dropped: only the current one (and what it replaced) remain.
        assert pointers[metric].generation in stored_generations()[metric]
        assert stored_generations()[metric] <= {
            pointers[metric].generation,
            pointers[metric].previous,
        }
    assert_every_rank_exact(board)


def test_a_run_killed_half_way_leaves_ranks_true_and_the_next_run_clears_its_tiers(
    board, monkeypatch
):
    rebuild()
    before = tiers.pointers(["xp"])["xp"]
    real_put = tiers.batch_put

    def dies_half_way(model, items, **kwargs):
        items = list(items)
        real_put(model, items[: len(items) // 2], **kwargs)
        raise Killed()

    monkeypatch.setattr(tiers, "batch_put", dies_half_way)
    with pytest.raises(Killed):
        rebuild("xp")
    monkeypatch.setattr(tiers, "batch_put", real_put)

    # The board still points at the last whole generation: ranks are as exact as before.
    assert tiers.pointers(["xp"])["xp"] == before
    assert len(stored_generations()["xp"]) == 2  # the whole one and the killed run's half
    assert_every_rank_exact(board)

    rebuild("xp")
    after = tiers.pointers(["xp"])["xp"]
    assert stored_generations()["xp"] == {after.generation, before.generation}
    assert_every_rank_exact(board)


# A real kill -9: a child process stores half its tiers, then SIGKILLs itself (no clean-up of
# any kind runs), at the same point every time.
KILLED_RUN = """
import os, signal, django
django.setup()
from stats.boards import tiers, upkeep
real_put = tiers.batch_put
def dies_half_way(model, items, **kwargs):
    items = list(items)
    real_put(model, items[: len(items) // 2], **kwargs)
    os.kill(os.getpid(), signal.SIGKILL)
tiers.batch_put = dies_half_way
from django.core.management import call_command
call_command("rebuild_rank_tiers", "xp", tier_size=10)
"""


@pytest.mark.engines("local")  # the child reaches the same engine only over the network
def test_a_run_killed_with_sigkill_half_way_leaves_ranks_true(board):
    rebuild()
    before = tiers.pointers(["xp"])["xp"]

    child = subprocess.run(
        [sys.executable, "-c", KILLED_RUN],
        cwd=settings.BASE_DIR,
        env=child_environment(UserStats.Meta.host, SHARED_PREFIX),
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert child.returncode == -signal.SIGKILL, child.stderr[-2000:]
    assert tiers.pointers(["xp"])["xp"] == before
    assert len(stored_generations()["xp"]) == 2  # the killed run's half is there
    assert_every_rank_exact(board)
    rebuild("xp")
    assert stored_generations()["xp"] == {
        tiers.pointers(["xp"])["xp"].generation,
        before.generation,
    }
    assert_every_rank_exact(board)


def test_a_build_that_lost_to_a_later_one_is_dropped(board):
    rebuild("xp")
    current = tiers.pointers(["xp"])["xp"].generation
    older = tiers.new_generation(tiers.started_at(current).replace(year=2000))
    cut = [{"ceiling": 1, "floor": 0, "learners": 1, "above": 0}]
    tiers.write_tiers("xp", older, cut)

    done = upkeep.hand_over("xp", older, cut, Counter({1: 1}), {}, upkeep.open_window())
    assert not done.current
    assert jobs.read_watermark(tiers.job_name("xp")) == current


def test_an_empty_board_gets_an_empty_generation_and_ranks_stay_answerable(dynamo):
    out = rebuild()

    assert "xp: 0 learners in 0 tiers" in out
    assert tiers.pointers(["xp"])["xp"].tiers == 0


def test_it_refuses_an_unknown_metric_in_one_line(dynamo):
    with pytest.raises(CommandError, match="Unknown metric speed"):
        call_command("rebuild_rank_tiers", "speed", stdout=StringIO())
