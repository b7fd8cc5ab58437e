"""The stream watcher: where only the Lambda applies the stream, it tells pages the counts are
current (stats/boards/upkeep.py, `watch`)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

import pytest

from dynamo import streams
from dynamo.meter import metered
from dynamo.models import utcnow
from stats.boards import tiers, upkeep
from stats.history.recording import record_session
from tests.helpers import stored_board
from tests.iam_audit import suffix_of
from tests.test_consume_streams import (
    LEARNERS,
    exact_everywhere,
    lambda_event,
    rebuild,
    sessions,
    stream_records,
    template_role_grants,
)
from workers.jobs import Job


@pytest.fixture
def board(dynamo):
    return stored_board(LEARNERS, 1)


class Context:
    """Lambda's context object, as far as the watcher reads it: the run's time left."""

    def __init__(self, seconds: float) -> None:
        self.deadline = time.monotonic() + seconds

    def get_remaining_time_in_millis(self) -> int:
        return int(max(0.0, self.deadline - time.monotonic()) * 1000)


def rounds(count: int) -> Context:
    """Return a context whose run leaves time for `count` watch rounds, about a second each."""
    return Context(upkeep.WATCH_MARGIN + (count - 0.5) * upkeep.WATCH_EVERY)


def marker() -> datetime | None:
    job = Job.get_or_none(tiers.UPKEEP_JOB, consistent_read=True)
    return datetime.fromisoformat(job.watermark) if job is not None else None


def stall_the_marker() -> None:
    """Make the counts' last confirmation ten minutes old, older than any page allows."""
    Job.apply(tiers.UPKEEP_JOB, [Job.watermark.set((utcnow() - timedelta(minutes=10)).isoformat())])


def apply_as_the_lambda() -> str:
    """Hand everything after the checkpoint to the Lambda's handler; return the stream's ARN."""
    arn, shard_id, records = stream_records()
    done = streams.sequence(Job.get(upkeep.checkpoint_name(shard_id)).watermark)
    fresh = [r for r in records if streams.sequence(upkeep.sequence_of(r)) > done]
    if fresh:
        upkeep.handler(lambda_event(arn, fresh))
    return arn


def test_under_the_lambda_alone_the_watcher_marks_every_rank_exact(board):
    rebuild()
    stall_the_marker()
    sessions(10, seed=21)
    arn = apply_as_the_lambda()
    # The counts hold every change, but nothing has said so: below the top tier, ranks are "≈".
    assert not exact_everywhere()

    done = upkeep.watcher({"StreamArn": arn}, rounds(1))

    assert done == {"marked": 1}
    assert exact_everywhere()  # and each rank equals the one counted from the table


def test_a_change_not_yet_applied_holds_the_marker_at_its_creation(board):
    rebuild()
    stream = upkeep.Stream.open()
    before = utcnow()
    assert upkeep.counted_up_to(stream, before) == before  # nothing waits: caught up to now

    record_session("user007", xp=40, questions=5, correct=1, minutes=3)
    written = utcnow()
    _, _, records = stream_records()
    waiting = streams.created_at(records[-1])
    held = upkeep.counted_up_to(stream, utcnow())

    # Every change before the waiting one is counted, and nothing after it is claimed.
    assert held == waiting <= written
    apply_as_the_lambda()
    after = utcnow()
    assert upkeep.counted_up_to(stream, after) == after


class ClosedSince:
    """A stream whose one shard closed after it was described; its child holds a change."""

    ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/label"
    PARENT, CHILD = "shardId-parent", "shardId-child"
    ENDING = str(200).zfill(21)

    def __init__(self, created: datetime) -> None:
        self.record = {
            "dynamodb": {
                "SequenceNumber": str(300).zfill(21),
                "ApproximateCreationDateTime": created,
            }
        }
        self.described = 0

    def describe_stream(self, StreamArn, **_):
        self.described += 1
        start = {"StartingSequenceNumber": str(100).zfill(21)}
        return {
            "StreamDescription": {
                "Shards": [
                    {
                        "ShardId": self.PARENT,
                        "SequenceNumberRange": start | {"EndingSequenceNumber": self.ENDING},
                    },
                    {
                        "ShardId": self.CHILD,
                        "ParentShardId": self.PARENT,
                        "SequenceNumberRange": {"StartingSequenceNumber": str(300).zfill(21)},
                    },
                ]
            }
        }

    def get_shard_iterator(self, StreamArn, ShardId, ShardIteratorType, **_):
        return {"ShardIterator": ShardId}

    def get_records(self, ShardIterator, Limit):
        if ShardIterator == self.PARENT:  # read to its end: no records, and no more iterator
            return {"Records": []}
        return {"Records": [self.record], "NextShardIterator": ShardIterator}


def test_a_shard_closed_since_the_stream_was_described_is_described_again_and_its_child_read(
    dynamo, monkeypatch
):
    created = (utcnow() - timedelta(seconds=30)).replace(microsecond=0)
    fake = ClosedSince(created)
    Job.apply(upkeep.checkpoint_name(fake.PARENT), [Job.watermark.set(fake.ENDING)])
    as_described = [streams.Shard(fake.PARENT, None, str(100).zfill(21), None)]  # open, then
    stale = upkeep.Stream(fake.ARN, fake, as_described)

    # The parent's end says its children (unknown yet) may hold changes: no moment is claimed.
    assert upkeep.counted_up_to(stale, utcnow()) is None

    monkeypatch.setattr(upkeep.Stream, "open", classmethod(lambda cls, arn=None: stale))
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    marks = iter([False, False, True])  # two rounds: the stale one, then the described
    assert upkeep.watch(lambda: next(marks)) == 1
    assert fake.described == 1
    assert marker() == created  # the child's waiting change holds it


def test_a_run_watches_about_once_a_second_and_stops_before_its_deadline(board):
    rebuild()
    stall_the_marker()
    context = rounds(3)
    started = time.monotonic()

    done = upkeep.watcher({}, context)  # no ARN in the input: the table's own is described

    assert 2 <= done["marked"] <= 3
    # The run stops within a round of its margin, which leaves the next run time to start.
    assert time.monotonic() - started < 4 * upkeep.WATCH_EVERY
    left = context.get_remaining_time_in_millis() / 1000
    assert left > upkeep.WATCH_MARGIN - upkeep.WATCH_EVERY
    assert utcnow() - marker() < timedelta(seconds=2 * upkeep.WATCH_EVERY)


def test_the_watchers_role_grants_what_a_run_does_and_nothing_more(board, monkeypatch):
    rebuild()
    sessions(2, seed=2)  # waiting for the Lambda: the open shard has a record to show
    arn = stream_records()[0]
    role = template_role_grants("UserStatsStreamWatchRole")
    monkeypatch.setattr(upkeep, "WATCH_SHARDS_EVERY", 0.0)  # the run describes the stream too

    with metered() as meter:
        upkeep.watcher({"StreamArn": arn}, rounds(1))

    performed = {
        (action, suffix_of(target)) for call in meter.calls for action, target in call.targets
    }
    assert performed == role
    # A round's cost: one strongly consistent read a shard and one write, two stream reads a
    # shard (only GetRecords is billed), and DescribeStream once every WATCH_SHARDS_EVERY.
    assert [meter.count_of(op) for op in ("BatchGetItem", "UpdateItem")] == [1, 1]
    assert [meter.count_of(op) for op in ("GetShardIterator", "GetRecords")] == [1, 1]
    assert meter.read_units <= 1 and meter.write_units <= 1  # moto counts the write as 0.5


def test_without_a_stream_the_watcher_fails_saying_how_to_add_it(board, monkeypatch):
    monkeypatch.setattr(upkeep.Stream, "open", classmethod(lambda cls, arn=None: None))

    with pytest.raises(upkeep.UpkeepError, match="create_tables"):
        upkeep.watcher({}, rounds(1))


def test_a_change_waiting_through_several_rounds_is_written_once(board):
    rebuild()
    record_session("user011", xp=25, questions=4, correct=1, minutes=2)
    _, _, records = stream_records()

    done = upkeep.watcher({}, rounds(3))

    assert done == {"marked": 1}  # the same moment each round: one write, not three
    assert marker() == streams.created_at(records[-1])
