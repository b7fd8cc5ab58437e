"""`consume_streams` and the stream handler: the boards' tier counts kept, each change once."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from dynamo import streams, tables
from dynamo.meter import metered
from dynamo.models import utcnow
from stats.boards import tiers, upkeep
from stats.boards.ranking import rank_infos, rank_sorted
from stats.history.recording import record_session
from stats.learner_page.page import learner_page
from stats.models import METRICS, UserStats
from tests.conftest import SHARED_PREFIX
from tests.helpers import stored_board
from tests.iam_audit import allowed, suffix_of
from users.models import User
from workers.jobs import Job

LEARNERS = 60
SESSIONS = 100


@pytest.fixture
def board(dynamo):
    return stored_board(LEARNERS, 1)


def rebuild() -> str:
    out = StringIO()
    call_command("rebuild_rank_tiers", tier_size=10, stdout=out)
    return out.getvalue()


def consume() -> str:
    out = StringIO()
    call_command("consume_streams", once=True, stdout=out)
    return out.getvalue()


def sessions(count: int, seed: int) -> None:
    """Record `count` sessions of learners chosen at random, as the API would."""
    rng = random.Random(seed)
    for _ in range(count):
        username = f"user{rng.randrange(LEARNERS):03d}"
        record_session(
            username,
            xp=rng.randrange(1, 300),
            questions=rng.randrange(1, 40),
            correct=rng.randrange(0, 2),
            minutes=rng.randrange(1, 50),
        )


def listed() -> list[UserStats]:
    return [s for s in UserStats.scan() if s.leaderboard_partition is not None]


def page_ranks() -> dict[str, dict]:
    """Return every listed learner's ranks as their own page shows them."""
    found = {}
    for stats in listed():
        page = learner_page(stats.username, cursor=None, newer=None, today=utcnow().date())
        found[stats.username] = {m: page["metrics"][m]["rank"] for m in METRICS}
    return found


def true_ranks() -> dict[str, dict[str, int]]:
    learners = listed()
    by_metric = {m: {r.username: r.rank for r in rank_sorted(learners, m)} for m in METRICS}
    return {s.username: {m: by_metric[m][s.username] for m in METRICS} for s in learners}


def stream_records() -> tuple[str, str, list[dict]]:
    """Return the stream's ARN, its first shard and every record that shard holds."""
    arn = tables.stream_arn(UserStats)
    client = streams.client_for(UserStats)
    shard = streams.shards(client, arn)[0]
    records = [r for page in streams.records_after(client, arn, shard, None) for r in page]
    return arn, shard.shard_id, records


def lambda_event(arn: str, records: list[dict]) -> dict:
    """Return records as Lambda hands them to a function: eventSourceARN on each."""
    return {"Records": [r | {"eventSourceARN": arn} for r in records]}


def kept_counts() -> dict[str, tuple[int, ...] | None]:
    return {m: p.counts for m, p in tiers.pointers(METRICS, consistent_read=True).items()}


def test_a_hundred_sessions_then_once_leave_every_page_rank_exact_and_equal_to_a_rebuild(board):
    rebuild()
    sessions(SESSIONS, seed=5)

    out = consume()

    assert f"Caught up: {SESSIONS} changes applied" in out
    shown = page_ranks()
    truth = true_ranks()
    for username, ranks in shown.items():
        for metric, rank in ranks.items():
            assert rank["exact"] and not rank["lag"], (username, metric, rank)
            assert rank["rank"] == truth[username][metric], (username, metric, rank)
    kept = kept_counts()
    report = rebuild()
    assert "the kept counts were exact" in report and "corrected" not in report
    assert {u: {m: r["rank"] for m, r in ranks.items()} for u, ranks in page_ranks().items()} == {
        u: {m: r["rank"] for m, r in ranks.items()} for u, ranks in shown.items()
    }
    assert all(counts for counts in kept.values())


def test_the_same_batch_delivered_twice_changes_nothing(board):
    rebuild()
    sessions(20, seed=8)
    arn, _, records = stream_records()
    event = lambda_event(arn, records)

    first = upkeep.handler(event)
    after_first = kept_counts()
    second = upkeep.handler(event)

    assert first["applied"] > 0 and first["repeated"] < len(records)
    assert second == {"applied": 0, "repeated": len(records)}
    assert kept_counts() == after_first
    # A later batch overlapping the first (a bisected retry) applies only what is new.
    sessions(3, seed=9)
    _, _, more = stream_records()
    third = upkeep.handler(lambda_event(arn, more))
    assert third["applied"] == len(more) - len(records)
    assert rank_infos(listed()[0])["xp"].rank == true_ranks()[listed()[0].username]["xp"]


def test_soft_delete_restore_and_hard_delete_move_the_counts(board):
    rebuild()
    learner = User.get(rank_sorted(board, "xp")[0].username)  # the best: on top of every tier
    total = {m: sum(c) for m, c in kept_counts().items()}

    learner.soft_delete()
    consume()
    assert {m: sum(c) for m, c in kept_counts().items()} == {m: n - 1 for m, n in total.items()}
    learner.restore()
    consume()
    assert {m: sum(c) for m, c in kept_counts().items()} == total
    UserStats.get(learner.username).delete(add_version_condition=False)
    consume()
    assert {m: sum(c) for m, c in kept_counts().items()} == {m: n - 1 for m, n in total.items()}
    assert "the kept counts were exact" in rebuild()


def test_once_without_a_stream_says_how_to_add_it(board, monkeypatch):
    monkeypatch.setattr(tables, "stream_arn", lambda model: None)

    with pytest.raises(CommandError, match=r"no stream: run `manage.py create_tables`"):
        consume()


def scores(partition="ALL", **values):
    return {"leaderboard_partition": partition, **values}


def pointer(metric, ceilings):
    return tiers.Pointer(metric, "g", None, 0, len(ceilings), "", tuple(ceilings), (0,) * 3)


POINTERS = {"xp": pointer("xp", [100, 50, 10])}


def test_a_move_inside_one_tier_costs_nothing():
    inside = (upkeep.board_scores(scores(xp=20)), upkeep.board_scores(scores(xp=45)))
    above_the_top = (upkeep.board_scores(scores(xp=150)), upkeep.board_scores(scores(xp=900)))

    assert upkeep.deltas([inside, above_the_top], POINTERS) == {}


def test_moves_between_tiers_onto_and_off_the_board_become_count_deltas():
    join = ({}, upkeep.board_scores(scores(xp=0)))  # a new learner: the bottom tier
    climb = (upkeep.board_scores(scores(xp=45)), upkeep.board_scores(scores(xp=60)))
    soft_delete = (upkeep.board_scores(scores(xp=60)), upkeep.board_scores(scores(None, xp=60)))
    hard_delete = (upkeep.board_scores(scores(xp=200)), upkeep.board_scores(None))

    found = upkeep.deltas([join, climb, soft_delete, hard_delete], POINTERS)

    assert found == {"xp": {2: 1, 1: -1, 0: -1}}  # tier 0: +1 -1 -1


# A real kill -9 at a point drawn at random: just before or just after a batch's transaction.
KILLED_RUN = """
import os, signal, sys, django
django.setup()
from dynamo import streams
from stats.boards import upkeep
streams.PAGE_LIMIT = 7  # many small batches
batch, after = int(sys.argv[1]), sys.argv[2] == "after"
real_apply = upkeep.apply_batch
calls = []
def dies_at_one(shard_id, records):
    calls.append(1)
    if len(calls) == batch and not after:
        os.kill(os.getpid(), signal.SIGKILL)
    done = real_apply(shard_id, records)
    if len(calls) == batch and after:
        os.kill(os.getpid(), signal.SIGKILL)
    return done
upkeep.apply_batch = dies_at_one
from django.core.management import call_command
call_command("consume_streams", once=True)
"""


@pytest.mark.engines("local")  # the child reaches the same engine only over the network
def test_a_consumer_killed_mid_batch_and_started_again_leaves_every_rank_exact(board):
    rebuild()
    rng = random.Random(17)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "DJANGO_ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "true",
        "DJANGO_SECRET_KEY": "test-only-secret-key-that-is-long-enough-0123456789",
        "DYNAMODB_ENDPOINT": UserStats.Meta.host,
        "DYNAMODB_TABLE_PREFIX": SHARED_PREFIX,
    }
    for round_ in range(3):  # three kill points drawn at random
        sessions(15, seed=round_)
        batch, when = rng.randrange(1, 4), rng.choice(["before", "after"])
        child = subprocess.run(
            [sys.executable, "-c", KILLED_RUN, str(batch), when],
            cwd=settings.BASE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode == -signal.SIGKILL, (batch, when, child.stderr[-2000:])

    consume()

    truth = true_ranks()
    for stats in listed():
        for metric, info in rank_infos(stats).items():
            assert (info.rank, info.exact) == (truth[stats.username][metric], True)
    assert "the kept counts were exact" in rebuild()


def test_the_lambdas_role_grants_what_its_handler_does_and_what_lambda_polls_with(board):
    rebuild()
    sessions(5, seed=3)
    arn, _, records = stream_records()
    role = template_role_grants()

    with metered() as meter:
        upkeep.handler(lambda_event(arn, records))

    performed = {
        (action, suffix_of(target)) for call in meter.calls for action, target in call.targets
    }
    assert performed <= role, performed - role
    # Lambda's poller reads the stream with the same role; the handler itself does not.
    assert {action for action, _ in role - performed} == {
        "GetRecords",
        "GetShardIterator",
        "ListStreams",
    }


def template_role_grants() -> set[tuple[str, str]]:
    out = StringIO()
    call_command("export_cloudformation", "--prefix", "p-", stdout=out)
    template = json.loads(out.getvalue())
    statements = template["Resources"]["UserStatsStreamRole"]["Properties"]["Policies"][0][
        "PolicyDocument"
    ]["Statement"]
    return {(action, suffix_of(target)) for action, target in allowed(template, statements)}


@pytest.mark.engines("local")  # the child reaches the same engine only over the network
def test_sigterm_stops_a_running_consumer_cleanly_after_it_applied_what_came(board):
    rebuild()
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "DJANGO_ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "true",
        "DJANGO_SECRET_KEY": "test-only-secret-key-that-is-long-enough-0123456789",
        "DYNAMODB_ENDPOINT": UserStats.Meta.host,
        "DYNAMODB_TABLE_PREFIX": SHARED_PREFIX,
    }
    consumer = subprocess.Popen(
        [sys.executable, "manage.py", "consume_streams"],
        cwd=settings.BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        sessions(5, seed=4)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not exact_everywhere():
            time.sleep(0.2)
    finally:
        consumer.send_signal(signal.SIGTERM)
        out, err = consumer.communicate(timeout=60)

    assert consumer.returncode == 0, err[-2000:]
    assert "Stopped: 5 changes applied" in out
    assert exact_everywhere()


def exact_everywhere() -> bool:
    truth = true_ranks()
    return all(
        (info.rank, info.exact) == (truth[stats.username][metric], True)
        for stats in listed()
        for metric, info in rank_infos(stats).items()
    )


def test_a_rebuild_corrects_counts_that_went_wrong_and_says_by_how_much(board):
    rebuild()
    # As if a batch had been lost (sent to the failure queue): three learners too many on top.
    Job.apply(tiers.job_name("xp"), [Job.counts[0].set(Job.counts[0] + 3)])

    report = rebuild()

    lines = {line.split(":")[0]: line for line in report.splitlines() if ": 60 learners" in line}
    assert "corrected the kept counts, off by 3 in all" in lines["xp"]
    assert all("the kept counts were exact" in lines[m] for m in ("streak", "accuracy"))
    assert sum(tiers.pointers(["xp"])["xp"].counts) == LEARNERS
