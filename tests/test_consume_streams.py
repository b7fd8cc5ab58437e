"""`consume_streams` and the stream handler: the boards' tier counts kept, each change once."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from io import StringIO

import boto3
import pytest
from botocore.exceptions import ClientError
from django.conf import settings
from django.core.management import CommandError, call_command

from dynamo import streams, tables
from dynamo.meter import metered
from dynamo.models import utcnow
from stats.boards import tiers, upkeep
from stats.boards.ranking import rank_infos, rank_sorted
from stats.history.recording import record_session
from stats.learner_page.page import learner_page
from stats.management.commands.consume_streams import Command, Reader
from stats.models import METRICS, UserStats
from tests.conftest import SHARED_PREFIX
from tests.helpers import child_environment, stored_board
from tests.iam_audit import allowed, role_statements, suffix_of
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


# On DynamoDB Local alone: what a hundred changes prove over a few (every learner's page exact,
# the kept counts equal to a rebuild's) is the handler's arithmetic, the same on either engine;
# on moto, reading its stream and applying sessions and deletes are proved by the tests below
# (a batch delivered twice, soft and hard deletes), and moto copies every table a transaction
# touches, stream and all, which made this test's hundred sessions three times as slow there.
@pytest.mark.engines("local")
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


def counted_applies(monkeypatch, then=None) -> list[tuple[float, str, int]]:
    """Count apply_batch's calls: (when, shard, records); `then()` runs after each one."""
    calls = []
    real_apply = upkeep.apply_batch

    def counted(shard_id, records):
        calls.append((time.monotonic(), shard_id, len(records)))
        done = real_apply(shard_id, records)
        if then is not None:
            then()
        return done

    monkeypatch.setattr(upkeep, "apply_batch", counted)
    return calls


def running_consumer() -> tuple[Command, Reader]:
    command = Command(stdout=StringIO())
    command.stopping = False
    return command, Reader(upkeep.Stream.open())


def test_while_sessions_flow_a_shard_is_applied_once_a_window_with_all_its_sessions(
    board, monkeypatch
):
    rebuild()
    applies = counted_applies(monkeypatch)
    command, reader = running_consumer()
    written = []

    def flow(seconds: float = 3.5, sessions: int = 20) -> None:
        # A steady flow, a session every 50 ms or as fast as they go, for a few windows and at
        # least `sessions` of them however slow a loaded machine writes, then a stop (SIGTERM).
        rng, end = random.Random(21), time.monotonic() + seconds
        try:
            while time.monotonic() < end or len(written) < sessions:
                username = f"user{rng.randrange(LEARNERS):03d}"
                record_session(username, xp=5, questions=3, correct=1, minutes=2)
                written.append(1)
                time.sleep(0.05)
        finally:
            command.stop(signal.SIGTERM, None)

    writer = threading.Thread(target=flow)
    began = time.monotonic()
    writer.start()
    command.run(reader, once=False)
    writer.join()
    elapsed = time.monotonic() - began

    # Rounds start a window apart while changes come: one transaction a shard a window, each
    # carrying the window's sessions (without it, a round followed the last at once, and each
    # batch held the one or two sessions written meanwhile).
    assert len(written) >= 20
    assert len(applies) <= elapsed / streams.BATCH_WINDOW + 1, (elapsed, applies)
    starts = [when for when, _, _ in applies]
    assert all(b - a >= 0.8 * streams.BATCH_WINDOW for a, b in itertools.pairwise(starts)), starts
    assert reader.applied + consume_count() == len(written)
    assert exact_everywhere()


def consume_count() -> int:
    """Apply what is left with --once; return how many changes that was."""
    out = consume()
    return int(out.split("Caught up: ")[1].split(" changes")[0].replace(",", ""))


def test_a_stop_during_the_window_ends_the_run_at_once_with_the_counts_caught_up(
    board, monkeypatch
):
    rebuild()
    monkeypatch.setattr(streams, "BATCH_WINDOW", 30)  # a wait that did not end would show
    command, reader = running_consumer()
    counted_applies(monkeypatch, then=lambda: command.stop(signal.SIGTERM, None))
    sessions(5, seed=6)
    began = utcnow()

    started = time.monotonic()
    command.run(reader, once=False)

    assert time.monotonic() - started < 10
    assert reader.applied == 5
    marker = Job.get(tiers.UPKEEP_JOB, consistent_read=True).watermark
    assert marker >= began.isoformat()  # the round read every shard to its end: marked
    assert exact_everywhere()


def test_once_drains_a_backlog_in_full_pages_and_exits_without_a_window_wait(board, monkeypatch):
    rebuild()
    monkeypatch.setattr(streams, "BATCH_WINDOW", 30)
    monkeypatch.setattr(streams, "PAGE_LIMIT", 7)  # 40 changes: five full pages and a short one
    applies = counted_applies(monkeypatch)
    sessions(40, seed=7)

    started = time.monotonic()
    out = consume()

    assert time.monotonic() - started < 10  # a full page is read on at once, and --once ends
    assert "Caught up: 40 changes applied" in out
    assert [n for _, _, n in applies] == [7, 7, 7, 7, 7, 5]
    assert exact_everywhere()


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
    env = child_environment(UserStats.Meta.host, SHARED_PREFIX)
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
    # Lambda's poller reads the stream with the same role; the handler itself reads it only to
    # tell apart several open shards (tests below), and this stream has one.
    assert {action for action, _ in role - performed} == {
        "GetRecords",
        "GetShardIterator",
        "ListStreams",
    }


def template_role_grants(role: str = "UserStatsStreamRole") -> set[tuple[str, str]]:
    """Return the DynamoDB (action, table) pairs one of the exported template's roles grants."""
    out = StringIO()
    call_command("export_cloudformation", "--prefix", "p-", stdout=out)
    template = json.loads(out.getvalue())
    statements = role_statements(template, role)
    return {(action, suffix_of(target)) for action, target in allowed(template, statements)}


@pytest.mark.engines("local")  # the child reaches the same engine only over the network
def test_sigterm_stops_a_running_consumer_cleanly_after_it_applied_what_came(board):
    rebuild()
    env = child_environment(UserStats.Meta.host, SHARED_PREFIX)
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
    Job.apply(tiers.counts_name("xp"), [Job.counts[0].set(Job.counts[0] + 3)])

    report = rebuild()

    lines = {line.split(":")[0]: line for line in report.splitlines() if ": 60 learners" in line}
    assert "corrected the kept counts, off by 3 in all" in lines["xp"]
    assert all("the kept counts were exact" in lines[m] for m in ("streak", "accuracy"))
    assert sum(tiers.pointers(["xp"])["xp"].counts) == LEARNERS


def test_counts_an_earlier_release_kept_on_the_pointer_wait_for_a_rebuild_to_move_them(board):
    rebuild()
    # As an earlier release left the xp board: its counts on the pointer, no item of their own.
    kept = Job.get(tiers.counts_name("xp"), consistent_read=True)
    Job.apply(tiers.job_name("xp"), [Job.counts.set(list(kept.counts))])
    kept.delete()
    assert not tiers.pointers(["xp"], consistent_read=True)["xp"].kept
    sessions(10, seed=8)

    assert "Caught up: 10 changes applied" in consume()  # the other boards', xp's left alone
    assert Job.get_or_none(tiers.counts_name("xp"), consistent_read=True) is None

    rebuild()
    assert Job.get(tiers.job_name("xp"), consistent_read=True).counts is None
    assert tiers.pointers(["xp"], consistent_read=True)["xp"].kept
    assert exact_everywhere()


def test_counts_read_mid_hand_over_are_read_again_never_skipped(board, monkeypatch):
    rebuild()
    sessions(6, seed=9)
    arn, records = records_since_rebuild()
    shard_id = stream_records()[1]
    before = watermark(shard_id)
    # One BatchGetItem reads its items one by one: a hand-over can land between the pointer
    # and its counts. Torn once: the batch reads again and applies to every board.
    real, reads = tiers.pointers, []

    def torn_once(metrics, **options):
        found = real(metrics, **options)
        reads.append(found)
        if len(reads) == 1:
            found["xp"] = dataclasses.replace(found["xp"], counts=None, torn=True)
        return found

    monkeypatch.setattr(tiers, "pointers", torn_once)
    upkeep.handler(lambda_event(arn, records))
    assert len(reads) == 2 and watermark(shard_id) != before
    assert kept_counts() == true_counts()

    # Torn for good (it never is: both items move in one transaction): the batch fails, its
    # checkpoint where it was, rather than skip a board.
    sessions(2, seed=10)
    arn, records = records_since_rebuild()
    reads.clear()
    monkeypatch.setattr(
        tiers,
        "pointers",
        lambda metrics, **options: {
            m: dataclasses.replace(p, counts=None, torn=True) if p else p
            for m, p in real(metrics, **options).items()
        },
    )
    moved_to = watermark(shard_id)
    with pytest.raises(upkeep.UpkeepError, match="contention"):
        upkeep.handler(lambda_event(arn, records))
    assert watermark(shard_id) == moved_to


# --- a Lambda batch finds its shard among several open ones -----------------------------------
START = 100  # where the fake shards' ranges start: both reach every number from here on


def numbered(records: list[dict], first: int, step: int) -> list[dict]:
    """Return copies of records numbered first, first + step, ... (21 digits, as streams do)."""
    return [
        r | {"dynamodb": r["dynamodb"] | {"SequenceNumber": str(first + i * step).zfill(21)}}
        for i, r in enumerate(records)
    ]


class FakeStreams:
    """A DynamoDB Streams client over open shards given as their records, counting its calls.

    Asked at a number a shard does not hold, it answers as DynamoDB Local does (the shard's next
    record, or an empty page past its latest) or, when `refuses`, with a ValidationException.
    """

    def __init__(self, shards: dict[str, list[dict]], refuses: bool = False) -> None:
        self.shards = shards
        self.refuses = refuses
        self.calls: list[str] = []

    def describe_stream(self, StreamArn, **_):
        self.calls.append("DescribeStream")
        start = str(START).zfill(21)
        return {
            "StreamDescription": {
                "Shards": [
                    {"ShardId": shard_id, "SequenceNumberRange": {"StartingSequenceNumber": start}}
                    for shard_id in self.shards
                ]
            }
        }

    def get_shard_iterator(self, StreamArn, ShardId, ShardIteratorType, SequenceNumber):
        self.calls.append("GetShardIterator")
        held = [upkeep.sequence_of(r) for r in self.shards[ShardId]]
        if self.refuses and SequenceNumber not in held:
            error = {"Code": "ValidationException", "Message": "Invalid SequenceNumber"}
            raise ClientError({"Error": error}, "GetShardIterator")
        return {"ShardIterator": f"{ShardId}|{SequenceNumber}"}

    def get_records(self, ShardIterator, Limit):
        self.calls.append("GetRecords")
        shard_id, number = ShardIterator.split("|")
        later = [r for r in self.shards[shard_id] if int(upkeep.sequence_of(r)) >= int(number)]
        return {"Records": later[:Limit], "NextShardIterator": ShardIterator}


def records_since_rebuild() -> tuple[str, list[dict]]:
    """Return the stream's ARN and the records its shard got after the last rebuild's checkpoint."""
    arn, shard_id, records = stream_records()
    done = Job.get(upkeep.checkpoint_name(shard_id)).watermark
    return arn, [r for r in records if streams.sequence(upkeep.sequence_of(r)) > int(done)]


def true_counts() -> dict[str, tuple[int, ...]]:
    """Return each board's learners per tier of its current pointer, counted from the table."""
    learners = listed()
    found = {}
    for metric, pointer in tiers.pointers(METRICS, consistent_read=True).items():
        scores = Counter(getattr(s, metric) for s in learners if getattr(s, metric) is not None)
        found[metric] = tuple(tiers.per_tier(scores, list(pointer.ceilings)))
    return found


def watermark(shard_id: str) -> str | None:
    job = Job.get_or_none(upkeep.checkpoint_name(shard_id), consistent_read=True)
    return job.watermark if job is not None else None


@pytest.fixture
def two_shards(board, monkeypatch):
    """Changes since a rebuild, spread over two open shards whose numbers interleave."""
    rebuild()
    sessions(20, seed=11)
    arn, records = records_since_rebuild()
    shards = {
        "shardId-a": numbered(records[0::2], START + 1, 2),
        "shardId-b": numbered(records[1::2], START + 2, 2),
    }
    return arn, shards


@pytest.mark.parametrize("refuses", [False, True], ids=["next-record", "refused"])
def test_a_lambda_batch_lands_on_the_checkpoint_of_the_open_shard_holding_it(
    two_shards, monkeypatch, refuses
):
    arn, shards = two_shards
    fake = FakeStreams(shards, refuses)
    monkeypatch.setattr(streams, "client_for", lambda model: fake)

    first = upkeep.handler(lambda_event(arn, shards["shardId-b"]))

    assert first == {"applied": len(shards["shardId-b"]), "repeated": 0}
    assert watermark("shardId-b") == upkeep.sequence_of(shards["shardId-b"][-1])
    assert watermark("shardId-a") is None
    # Both ranges reach the number: each shard was asked once for its record there.
    assert fake.calls.count("GetShardIterator") == 2
    upkeep.handler(lambda_event(arn, shards["shardId-a"]))
    assert watermark("shardId-a") == upkeep.sequence_of(shards["shardId-a"][-1])
    assert kept_counts() == true_counts()  # every change applied once, wherever it came from


def test_a_lambda_batch_delivered_twice_among_several_shards_changes_nothing(
    two_shards, monkeypatch
):
    arn, shards = two_shards
    monkeypatch.setattr(streams, "client_for", lambda model: FakeStreams(shards))
    event = lambda_event(arn, shards["shardId-a"])
    upkeep.handler(event)
    after_first = kept_counts()

    again = upkeep.handler(event)

    assert again == {"applied": 0, "repeated": len(shards["shardId-a"])}
    assert kept_counts() == after_first
    assert watermark("shardId-b") is None


def fake_record(number: int) -> dict:
    return {"dynamodb": {"SequenceNumber": str(number).zfill(21)}}


@pytest.mark.parametrize("refuses", [False, True], ids=["next-record", "refused"])
@pytest.mark.parametrize("number", [START, START + 50], ids=["between-records", "past-latest"])
def test_a_number_no_open_shard_holds_fails_the_batch_naming_it(monkeypatch, refuses, number):
    shards = {
        "shardId-a": [fake_record(START + 1), fake_record(START + 3)],
        "shardId-b": [fake_record(START + 2), fake_record(START + 4)],
    }
    monkeypatch.setattr(streams, "client_for", lambda model: FakeStreams(shards, refuses))

    wanted = str(number).zfill(21)
    with pytest.raises(
        upkeep.UpkeepError, match=f"No shard of arn:s holds sequence number {wanted}."
    ):
        upkeep.handler(lambda_event("arn:s", [fake_record(number)]))


def test_a_stream_with_one_shard_reaching_the_number_costs_no_stream_read(monkeypatch):
    fake = FakeStreams({"shardId-a": [fake_record(START + 1)]})
    monkeypatch.setattr(streams, "client_for", lambda model: fake)

    assert upkeep.shard_of("arn:s", str(START + 1).zfill(21)) == "shardId-a"
    assert fake.calls == ["DescribeStream"]


def test_a_shard_gives_its_own_record_at_a_number_and_nothing_for_another(board, dynamo):
    sessions(3, seed=2)
    arn, shard_id, records = stream_records()
    client = streams.client_for(UserStats)
    own = upkeep.sequence_of(records[-2])
    past = str(int(upkeep.sequence_of(records[-1])) + 1).zfill(len(own))

    assert upkeep.sequence_of(streams.record_at(client, arn, shard_id, own)) == own
    assert streams.record_at(client, arn, shard_id, past) is None  # both: an empty page
    if dynamo == "local":
        # DynamoDB Local numbers the records of every stream from one counter, so another
        # table's record falls between two of this shard's: asked there, the shard gives its
        # next record, which is not the one asked for.
        between = other_streams_number_between(lambda: sessions(1, seed=3))
        assert streams.record_at(client, arn, shard_id, between) is None


def other_streams_number_between(write_here) -> str:
    """Write to a scratch table with a stream, then here; return the scratch record's number."""
    client = boto3.client(
        "dynamodb",
        endpoint_url=UserStats.Meta.host,
        region_name=UserStats.Meta.region,
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    name = f"{SHARED_PREFIX}scratch-stream"
    client.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
    )
    try:
        write_here()
        client.put_item(TableName=name, Item={"k": {"S": "one"}})
        write_here()
        arn = client.describe_table(TableName=name)["Table"]["LatestStreamArn"]
        stream_client = streams.client_for(UserStats)
        shard = streams.shards(stream_client, arn)[0]
        (page,) = streams.records_after(stream_client, arn, shard, None)
        return upkeep.sequence_of(page[0])
    finally:
        client.delete_table(TableName=name)
