"""Keep each board's learners per tier from the user-stats stream, every change exactly once.

Every write of a learner's stats reaches the table's stream with the item before and after.
On each board a change moves the learner from one tier to another, onto the board (a new
learner, a restore) or off it (a soft or hard delete); a batch of records becomes a few
per-tier deltas added to the board's counts (the `rank_counts` job, stats/boards/tiers.py). A
learner moving inside one tier changes no count and costs nothing.

Delivery is at least once (Lambda retries a batch, a consumer killed after its write reads it
again), so each shard's checkpoint, the `rank_upkeep:<shard>` job holding the last sequence
number applied, moves in the same TransactWriteItems as the deltas, on the condition that it
is still where the batch was read against: a batch delivered twice is applied once. Each
count's update is conditional on the board's generation, so a batch never lands on tiers a
rebuild has just replaced.

`consume_streams` reads shard by shard and knows each batch's; a Lambda batch does not say
which shard it came from, so the handler finds it (shard_of): the one shard whose range can
hold the batch's first sequence number, or, when several open shards can (a table of several
partitions), the one whose record at that number is exactly it.

A rebuild hands its new generation over without losing a change made during its pass (see
hand_over): it reads the stream itself from the checkpoints it saw before the pass, so it
knows every learner who moved meanwhile and counts each of them where the checkpoints it
commits against leave them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from typing import Any

from pynamodb.connection import Connection
from pynamodb.exceptions import TransactWriteError
from pynamodb.transactions import TransactWrite

from dynamo import streams, tables
from dynamo.batch import get_together
from dynamo.models import utcnow
from stats.models import METRICS, UserStats
from workers import jobs

from . import tiers

CHECKPOINT_PREFIX = "rank_upkeep:"
ROUNDS = 8  # attempts at a batch or a hand-over that races another writer
# A TransactWriteItems holds 100 items: a hand-over checks every unfinished shard in one.
MAX_SHARDS_CHECKED = 90

Scores = dict[str, Any]  # metric -> score, only for the boards the learner is on


class UpkeepError(RuntimeError):
    """The counts could not be kept: the message says why in one line."""


def checkpoint_name(shard_id: str) -> str:
    """Return the job name of a shard's checkpoint."""
    return f"{CHECKPOINT_PREFIX}{shard_id}"


def _number(value: Any) -> int | float:
    value = Decimal(str(value))
    return int(value) if value == value.to_integral_value() else float(value)


def board_scores(item: dict[str, Any] | None) -> Scores:
    """Return the scores a stats item shows on the boards: none when it is off them.

    A learner is on a board while their item has a leaderboard partition (a soft-deleted one
    has none) and the board's score: exactly when the board's index holds them.
    """
    if not item or not item.get("leaderboard_partition"):
        return {}
    return {m: _number(item[m]) for m in METRICS if item.get(m) is not None}


def record_scores(record: dict[str, Any]) -> tuple[Scores, Scores]:
    """Return the board scores before and after one stream record (Lambda's shape or the API's)."""
    return (
        board_scores(streams.image(record, "OldImage")),
        board_scores(streams.image(record, "NewImage")),
    )


def sequence_of(record: dict[str, Any]) -> str:
    return record["dynamodb"]["SequenceNumber"]


def deltas(
    moves: Iterable[tuple[Scores, Scores]], pointers: dict[str, tiers.Pointer | None]
) -> dict[str, Counter]:
    """Return each board's count changes by tier index for moves (before, after); no zeros."""
    found: dict[str, Counter] = {}
    for before, after in moves:
        for metric, pointer in pointers.items():
            if pointer is None or not pointer.kept:
                continue  # no tiers yet: the first rebuild counts everyone
            change = found.setdefault(metric, Counter())
            if metric in before:
                change[pointer.tier_of(before[metric])] -= 1
            if metric in after:
                change[pointer.tier_of(after[metric])] += 1
    kept = {m: Counter({i: d for i, d in c.items() if d}) for m, c in found.items()}
    return {m: change for m, change in kept.items() if change}


def count_actions(change: Counter) -> list:
    """Return the UpdateItem actions adding a change to a pointer's counts."""
    return [jobs.Job.counts[index].set(jobs.Job.counts[index] + d) for index, d in change.items()]


def torn(pointers: dict[str, tiers.Pointer | None]) -> bool:
    """Return whether a board's counts were read mid hand-over: read them again, for a batch
    that skipped that board would move the checkpoint past changes it never counted."""
    return any(pointer is not None and pointer.torn for pointer in pointers.values())


def _connection() -> Connection:
    return jobs.Job._get_connection().connection


def _cancelled(exc: TransactWriteError) -> bool:
    reasons = [getattr(reason, "code", None) for reason in exc.cancellation_reasons or []]
    return bool(reasons) and all(
        code in (None, "None", "ConditionalCheckFailed", "TransactionConflict") for code in reasons
    )


@dataclass
class Applied:
    """What one batch did: records new to the counts, records applied before, counts moved."""

    applied: int = 0
    repeated: int = 0
    counts_moved: int = 0


def apply_batch(shard_id: str, records: list[dict[str, Any]]) -> Applied:
    """Apply a shard's records to the boards' counts once, whatever was applied before.

    The records are one shard's, in order. Those at or before the shard's checkpoint were
    applied already and are skipped; the rest move the counts and the checkpoint together.
    """
    if not records:
        return Applied()
    name = checkpoint_name(shard_id)
    for _ in range(ROUNDS):
        stored = jobs.Job.get_or_none(name, consistent_read=True)
        done = stored.watermark if stored is not None else None
        fresh = [r for r in records if streams.sequence(sequence_of(r)) > streams.sequence(done)]
        if not fresh:
            return Applied(repeated=len(records))
        pointers = tiers.pointers(METRICS, consistent_read=True)
        if torn(pointers):
            continue
        changes = deltas((record_scores(r) for r in fresh), pointers)
        try:
            with TransactWrite(connection=_connection()) as transaction:
                for metric, change in changes.items():
                    pointer = pointers[metric]
                    transaction.update(
                        jobs.Job(tiers.counts_name(metric)),
                        actions=count_actions(change),
                        condition=jobs.Job.watermark == pointer.generation,
                        add_version_condition=False,
                    )
                moved_to = sequence_of(fresh[-1])
                transaction.update(
                    jobs.Job(name),
                    actions=[jobs.Job.watermark.set(moved_to), jobs.Job.updated_at.set(utcnow())],
                    condition=(
                        jobs.Job.watermark.does_not_exist()
                        if done is None
                        else jobs.Job.watermark == done
                    ),
                    add_version_condition=False,
                )
        except TransactWriteError as exc:
            if not _cancelled(exc):
                raise
            continue  # another delivery moved the checkpoint, or a rebuild the generation
        moved = sum(len(change) for change in changes.values())
        return Applied(len(fresh), len(records) - len(fresh), moved)
    raise UpkeepError(f"Could not apply a batch of shard {shard_id}: too much contention.")


def mark_caught_up(when: Any = None) -> None:
    """Record that every shard was just read to its end and applied (pages read it)."""
    moment = when or utcnow()
    jobs.Job.apply(tiers.UPKEEP_JOB, [jobs.Job.watermark.set(moment.isoformat())])


# --- the stream as a whole ------------------------------------------------------------------
@dataclass
class Stream:
    """The user-stats stream: its ARN, a client and its shards, parents first."""

    arn: str
    client: Any
    shards: list[streams.Shard]

    @classmethod
    def open(cls, arn: str | None = None) -> Stream | None:
        """Return the table's current stream (or the one `arn` names), None while it has none."""
        arn = arn or tables.stream_arn(UserStats)
        if arn is None:
            return None
        client = streams.client_for(UserStats)
        return cls(arn, client, streams.shards(client, arn))

    def checkpoints(self) -> dict[str, str | None]:
        """Return each shard's checkpoint, read strongly consistent (None: nothing applied)."""
        found: dict[str, str | None] = {}
        names = [(jobs.Job, (checkpoint_name(s.shard_id),)) for s in self.shards]
        for start in range(0, len(names), 100):
            items = get_together(names[start : start + 100], consistent_read=True)
            for shard, item in zip(self.shards[start : start + 100], items, strict=True):
                found[shard.shard_id] = item.watermark if item is not None else None
        return found

    def unfinished(self, checkpoints: dict[str, str | None]) -> list[streams.Shard]:
        """Return the shards whose records are not all applied: open, or closed but not done."""
        return [
            s
            for s in self.shards
            if not s.closed
            or streams.sequence(checkpoints.get(s.shard_id)) < streams.sequence(s.ending)
        ]


def shard_of(stream_arn: str, sequence_number: str) -> str:
    """Return the shard holding a sequence number: a Lambda batch does not name its shard.

    The candidates are the shards whose range reaches the number. A closed shard's range ends,
    but every open shard's reaches any later number, and a table of several partitions has
    several open at once: then each candidate is asked for its record at that number (two
    stream reads apiece) and the one that has it is the batch's. Raise UpkeepError when none
    or more than one does: the batch then fails loudly and Lambda retries it, then sends it to
    the on-failure queue.

    Nothing is kept between batches. A new batch starts at a number no earlier batch showed,
    so no earlier answer names its shard; and a shard list kept for later goes stale when a
    shard rolls over (every few hours): a stale list whose one open shard has since closed
    would hand its child's batches to its checkpoint, unchecked.
    """
    client = streams.client_for(UserStats)
    holding = [s for s in streams.shards(client, stream_arn) if s.can_hold(sequence_number)]
    if len(holding) > 1:
        holding = [
            s
            for s in holding
            if streams.record_at(client, stream_arn, s.shard_id, sequence_number) is not None
        ]
    if not holding:
        raise UpkeepError(f"No shard of {stream_arn} holds sequence number {sequence_number}.")
    if len(holding) > 1:
        names = ", ".join(s.shard_id for s in holding)
        raise UpkeepError(f"Sequence number {sequence_number} is in several shards: {names}.")
    return holding[0].shard_id


def handler(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """Apply one Lambda batch of user-stats stream records (the EventSourceMapping's target)."""
    records = event.get("Records", [])
    if not records:
        return {"applied": 0, "repeated": 0}
    shard_id = shard_of(records[0]["eventSourceARN"], sequence_of(records[0]))
    done = apply_batch(shard_id, records)
    return {"applied": done.applied, "repeated": done.repeated}


# --- the watcher: "caught up" where only the Lambda applies ---------------------------------
# A Lambda batch does not say whether its shard holds more, and a quiet shard gets no batch at
# all, so the function applying batches cannot tell pages the counts are current. The watcher
# does, reading without applying: every WATCH_EVERY seconds, each shard's first record after
# its checkpoint. None anywhere means every change made before the round began is counted; else
# every change made before the oldest such record is (its creation time, rounded down). That
# moment is the `rank_upkeep` marker `consume_streams` writes where it applies the stream
# itself. EventBridge starts it once a minute and each run watches for a minute.
WATCH_EVERY = 1.0  # seconds between rounds: a page's UPKEEP_LAG (5 s) with room for the lag
WATCH_SHARDS_EVERY = 10.0  # seconds between two DescribeStream calls while no shard closes
WATCH_MARGIN = 10.0  # seconds of a run's time left unused: the next run has started by then


def counted_up_to(stream: Stream, began: datetime) -> datetime | None:
    """Return the moment every change made before is in the counts, from one read of each
    unfinished shard after its checkpoint; None when a shard has closed since the stream was
    described (its children, unknown yet, may hold changes: describe it again)."""
    checkpoints = stream.checkpoints()
    moment = began
    for shard in stream.unfinished(checkpoints):
        page = streams.first_after(
            stream.client, stream.arn, shard.shard_id, checkpoints[shard.shard_id]
        )
        if page is None:
            continue  # trimmed away: nothing of it is left to apply
        if page.records:
            moment = min(moment, streams.created_at(page.records[0]))
        elif page.next_iterator is None and not shard.closed:
            return None
    return moment


def watch(stop: Callable[[], bool], arn: str | None = None) -> int:
    """Look every WATCH_EVERY seconds until `stop()` says so, writing the marker whenever its
    moment moved (a record still waiting since the last round holds it); return the writes.

    Raise UpkeepError when the table has no stream."""
    stream = Stream.open(arn)
    if stream is None:
        raise UpkeepError("The user-stats table has no stream: run `manage.py create_tables`.")
    described, marked, written = time.monotonic(), 0, None
    while not stop():
        began = time.monotonic()
        if began - described > WATCH_SHARDS_EVERY:
            stream.shards, described = streams.shards(stream.client, stream.arn), began
        moment = counted_up_to(stream, utcnow())
        if moment is None:
            described = 0.0  # a shard closed: its children are read in the next round, at once
            continue
        if moment != written:
            mark_caught_up(moment)
            marked, written = marked + 1, moment
        time.sleep(max(0.0, began + WATCH_EVERY - time.monotonic()))
    return marked


def watcher(event: dict[str, Any], context: Any) -> dict[str, Any]:
    """Watch for most of a Lambda run's time (the schedule's target; `StreamArn` in its input)."""

    def stop() -> bool:
        return context.get_remaining_time_in_millis() / 1000 < WATCH_MARGIN

    return {"marked": watch(stop, event.get("StreamArn"))}


# --- a rebuild's hand-over --------------------------------------------------------------------
@dataclass
class Change:
    """One stream record of one learner, as a hand-over needs it."""

    shard_id: str
    sequence: int
    before: Scores
    after: Scores


@dataclass
class Window:
    """The stream read from some checkpoints on: each learner's changes, in order."""

    stream: Stream | None
    read_to: dict[str, str | None]
    changes: dict[str, list[Change]] = field(default_factory=dict)

    def read_on(self) -> None:
        """Read every shard from where this window stopped to where it ends now."""
        if self.stream is None:
            return
        self.stream.shards = streams.shards(self.stream.client, self.stream.arn)
        for shard in self.stream.shards:
            after = self.read_to.get(shard.shard_id)
            for page in streams.records_after(self.stream.client, self.stream.arn, shard, after):
                for record in page:
                    username = record["dynamodb"]["Keys"]["username"]["S"]
                    before, now = record_scores(record)
                    number = streams.sequence(sequence_of(record))
                    change = Change(shard.shard_id, number, before, now)
                    self.changes.setdefault(username, []).append(change)
                self.read_to[shard.shard_id] = sequence_of(page[-1])

    def state_at(self, username: str, checkpoints: dict[str, str | None]) -> Scores:
        """Return a learner's board scores as the counts hold them at these checkpoints."""
        changes = self.changes[username]
        applied = [
            c for c in changes if c.sequence <= streams.sequence(checkpoints.get(c.shard_id))
        ]
        return applied[-1].after if applied else changes[0].before


def open_window() -> Window:
    """Return a window starting at the stream's checkpoints now (read before a rebuild's pass)."""
    stream = Stream.open()
    return Window(stream, stream.checkpoints() if stream is not None else {})


@dataclass
class HandOver:
    """How a new generation was handed over."""

    current: bool  # False: a build that started later is current, this one was not used
    moved: int = 0  # learners who moved during the pass
    difference: int | None = None  # sum over tiers of |kept - true| in the replaced counts


def _adjust(kept: list[int], ceilings: list[float], shown: Any, now: Any) -> None:
    if shown is not None:
        kept[tiers.tier_of(ceilings, shown)] -= 1
    if now is not None:
        kept[tiers.tier_of(ceilings, now)] += 1


def hand_over(
    metric: str,
    generation: str,
    cut: list[dict[str, Any]],
    counts: Counter,
    seen: dict[str, Any],
    window: Window,
) -> HandOver:
    """Make a new generation current with counts exact at the stream's end, read just now.

    The pass (`counts`, `seen`: each learner's score as read) caught learners who moved during
    it at some unknown moment; the window holds every change since the checkpoints read before
    the pass, so each learner who moved is counted where their last change put them, and every
    other learner stood still for the whole pass. The same transaction moves each shard's
    checkpoint to where the window stopped, on the condition that the consumer has not moved
    it meanwhile: the consumer goes on from there, onto the new counts. The replaced counts
    are compared with the same pass at the checkpoints they were kept to: their difference is
    what this rebuild corrects.
    """
    ceilings = [tier["ceiling"] for tier in cut]
    for _ in range(ROUNDS):
        at = window.stream.checkpoints() if window.stream is not None else {}
        stored = tiers.pointers([metric], consistent_read=True)[metric]
        if stored is not None and stored.generation >= generation:
            return HandOver(current=False)
        if stored is not None and stored.torn:
            continue  # another rebuild's hand-over is landing: read again
        started = utcnow()
        window.read_on()
        unfinished = window.stream.unfinished(at) if window.stream is not None else []
        if len(unfinished) > MAX_SHARDS_CHECKED:
            raise UpkeepError(
                f"The stream has {len(unfinished)} unfinished shards, more than one transaction "
                "can move: let the consumer catch up, then rebuild."
            )
        target = {s.shard_id: window.read_to.get(s.shard_id) for s in unfinished}
        if any(
            streams.sequence(target[shard_id]) < streams.sequence(at.get(shard_id))
            for shard_id in target
        ):
            continue  # a shard answered empty before its end: read on
        fresh = tiers.per_tier(counts, ceilings)
        old = None
        if stored is not None and stored.kept:
            old_ceilings = list(stored.ceilings)
            old = tiers.per_tier(counts, old_ceilings)
        moved = 0
        for username in window.changes:
            shown = seen.get(username)
            now = window.state_at(username, target).get(metric)
            if shown != now:
                moved += 1
                _adjust(fresh, ceilings, shown, now)
            then = window.state_at(username, at).get(metric)
            if old is not None and shown != then:
                _adjust(old, old_ceilings, shown, then)
        # The checkpoints move past these changes for every board: the other boards get them too.
        others = tiers.pointers([m for m in METRICS if m != metric], consistent_read=True)
        if torn(others):
            continue
        between = [
            (c.before, c.after)
            for changes in window.changes.values()
            for c in changes
            if c.shard_id in target
            and streams.sequence(at.get(c.shard_id))
            < c.sequence
            <= streams.sequence(target[c.shard_id])
        ]
        other_changes = deltas(between, others)
        state = {
            "previous": stored.generation if stored else None,
            "learners": sum(fresh),
            "tiers": len(cut),
            "built_at": utcnow().isoformat(),
            "ceilings": ceilings,
        }
        try:
            with TransactWrite(connection=_connection()) as transaction:
                for shard_id, position in target.items():
                    done = at.get(shard_id)
                    condition = (
                        jobs.Job.watermark.does_not_exist()
                        if done is None
                        else jobs.Job.watermark == done
                    )
                    if position == done:
                        transaction.condition_check(
                            jobs.Job, checkpoint_name(shard_id), condition=condition
                        )
                    else:
                        transaction.update(
                            jobs.Job(checkpoint_name(shard_id)),
                            actions=[jobs.Job.watermark.set(position)],
                            condition=condition,
                            add_version_condition=False,
                        )
                for other, change in other_changes.items():
                    transaction.update(
                        jobs.Job(tiers.counts_name(other)),
                        actions=count_actions(change),
                        condition=jobs.Job.watermark == others[other].generation,
                        add_version_condition=False,
                    )
                # The counts' item follows the pointer: the checkpoints' conditions above
                # already refuse this transaction if a batch moved them meanwhile.
                transaction.update(
                    jobs.Job(tiers.counts_name(metric)),
                    actions=[
                        jobs.Job.watermark.set(generation),
                        jobs.Job.counts.set(fresh),
                        jobs.Job.created_at.set(jobs.Job.created_at | utcnow()),
                        jobs.Job.updated_at.set(utcnow()),
                    ],
                    add_version_condition=False,
                )
                transaction.update(
                    jobs.Job(tiers.job_name(metric)),
                    actions=[
                        jobs.Job.watermark.set(generation),
                        jobs.Job.state.set(state),
                        jobs.Job.counts.remove(),  # where releases before kept them
                        jobs.Job.created_at.set(jobs.Job.created_at | utcnow()),
                        jobs.Job.updated_at.set(utcnow()),
                    ],
                    condition=(
                        jobs.Job.watermark.does_not_exist()
                        if stored is None
                        else jobs.Job.watermark == stored.generation
                    ),
                    add_version_condition=False,
                )
        except TransactWriteError as exc:
            if not _cancelled(exc):
                raise
            continue  # the consumer applied more meanwhile, or another build switched: again
        difference = None
        if old is not None and stored is not None and stored.counts is not None:
            difference = sum(abs(k - e) for k, e in zip(stored.counts, old, strict=True))
        if window.stream is not None:
            mark_caught_up(started)  # every change the stream held then is in the counts
        return HandOver(True, moved, difference)
    raise UpkeepError(f"Could not hand the {metric} board over: too much contention.")
