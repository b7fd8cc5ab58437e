"""Keep the boards' tier counts from the user-stats stream where no Lambda does (see
stats/boards/upkeep.py): DynamoDB Local, a plain server."""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field

from botocore.exceptions import ClientError
from django.core.management.base import CommandError

from dynamo import streams
from dynamo.management.base import DynamoCommand
from dynamo.models import utcnow
from stats.boards import upkeep
from workers import jobs

IDLE_SLEEP_FIRST = 0.05  # seconds: the first wait once every shard is read to its end
IDLE_SLEEP_MOST = 1.0  # the longest wait: well inside tiers.UPKEEP_LAG
# While busy, rounds start streams.BATCH_WINDOW apart (1 s: also well inside it).
SHARDS_EVERY = 10.0  # seconds between two DescribeStream calls while no shard closes
REPORT_EVERY = 60.0  # seconds between two progress lines of a long run


@dataclass
class Reader:
    """Where the consumer reads each shard, and what it did so far."""

    stream: upkeep.Stream
    iterators: dict[str, str] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    applied: int = 0
    repeated: int = 0
    described_at: float = 0.0

    def refresh_shards(self) -> None:
        """Ask the stream for its shards again: new ones after a split or a roll-over."""
        self.stream.shards = streams.shards(self.stream.client, self.stream.arn)
        self.described_at = time.monotonic()

    def readable(self) -> list[streams.Shard]:
        """Return the shards to read now: not finished, and whose parent (if held) is."""
        held = {s.shard_id for s in self.stream.shards}
        return [
            s
            for s in self.stream.shards
            if s.shard_id not in self.finished
            and (s.parent_id not in held or s.parent_id in self.finished)
        ]

    def position(self, shard: streams.Shard) -> str | None:
        """Return an iterator for a shard: the one kept, or one just after its checkpoint."""
        if shard.shard_id not in self.iterators:
            stored = jobs.Job.get_or_none(
                upkeep.checkpoint_name(shard.shard_id), consistent_read=True
            )
            after = stored.watermark if stored is not None else None
            found = streams.iterator(self.stream.client, self.stream.arn, shard.shard_id, after)
            if found is None:  # trimmed away: nothing of it is left to apply
                return None
            self.iterators[shard.shard_id] = found
        return self.iterators[shard.shard_id]

    def read_one(self, shard: streams.Shard) -> bool:
        """Read and apply one page of a shard; return whether more may be waiting (a full page).

        A page short of the limit held everything the shard had when it was asked for: the
        round that read it is caught up to its own start, even under a steady flow of writes.
        """
        position = self.position(shard)
        if position is None:
            self.finished.add(shard.shard_id)
            return False
        try:
            page = streams.read(self.stream.client, position)
        except ClientError as exc:
            if not streams.expired(exc):
                raise
            del self.iterators[shard.shard_id]  # renewed from the checkpoint next time
            return True
        if page.records:
            done = upkeep.apply_batch(shard.shard_id, page.records)
            self.applied += done.applied
            self.repeated += done.repeated
        if page.next_iterator is None:
            self.finished.add(shard.shard_id)  # closed and read to its end: children next
            self.iterators.pop(shard.shard_id, None)
            self.described_at = 0.0
        else:
            self.iterators[shard.shard_id] = page.next_iterator
        return len(page.records) >= streams.PAGE_LIMIT

    def round(self) -> tuple[bool, bool]:
        """Read every readable shard once; return whether all of them were read to where they
        ended when asked, and whether any had records."""
        if time.monotonic() - self.described_at > SHARDS_EVERY:
            self.refresh_shards()
        behind, applied = False, self.applied + self.repeated
        finished = len(self.finished)
        for shard in self.readable():
            behind = self.read_one(shard) or behind
        # A shard that just ended hands over to its children: they are read before resting.
        caught_up = not behind and len(self.finished) == finished
        return caught_up, self.applied + self.repeated > applied


class Command(DynamoCommand):
    help = (
        "Apply the user-stats stream to the boards' tier counts, each change once, so ranks "
        "are exact within seconds: every shard polled, splits followed, idle shards waited "
        "on, a round at most once a second while changes come. Runs until stopped (Ctrl-C or "
        "SIGTERM, after the batch in hand); --once applies what the stream holds now and "
        "exits. Where the Lambda of export_cloudformation runs, this command is not needed."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--once", action="store_true", help="Apply what the stream holds now, then exit."
        )

    def handle(self, *args, once: bool = False, **options):
        stream = upkeep.Stream.open()
        if stream is None:
            raise CommandError(
                "The user-stats table has no stream: run `manage.py create_tables` to add it."
            )
        reader = Reader(stream)
        self.stopping = False
        previous = {sig: signal.signal(sig, self.stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.run(reader, once)
        except upkeep.UpkeepError as exc:
            raise CommandError(str(exc)) from exc
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        self.stdout.write(
            f"{'Stopped' if self.stopping else 'Caught up'}: {reader.applied:,} changes applied, "
            f"{reader.repeated:,} seen before, over {len(stream.shards)} shard(s)."
        )

    def run(self, reader: Reader, once: bool) -> None:
        idle = IDLE_SLEEP_FIRST
        reported = time.monotonic()
        while not self.stopping:
            began, started = time.monotonic(), utcnow()
            caught_up, had_records = reader.round()
            if caught_up:
                upkeep.mark_caught_up(started)  # pages read this: the counts are current
                if once:
                    return
            if not caught_up:  # a full page, or a shard handing over: read on at once
                idle = IDLE_SLEEP_FIRST
            elif had_records:
                # Busy: the next round starts a window after this one, so each batch carries
                # a window's changes and the board's counts are written once for them all (the
                # Lambda's batching window, the same figure).
                idle = IDLE_SLEEP_FIRST
                self.sleep(began + streams.BATCH_WINDOW - time.monotonic())
            else:
                self.sleep(idle)
                idle = min(IDLE_SLEEP_MOST, idle * 2)
            if time.monotonic() - reported > REPORT_EVERY:
                reported = time.monotonic()
                self.stdout.write(f"{reader.applied:,} changes applied so far.")

    def sleep(self, seconds: float) -> None:
        """Wait, but no longer than a stop: checked every 50 ms."""
        deadline = time.monotonic() + seconds
        while not self.stopping and time.monotonic() < deadline:
            time.sleep(min(0.05, deadline - time.monotonic()))

    def stop(self, signum, _frame) -> None:
        """Stop after the batch in hand: its transaction either happened or did not."""
        self.stopping = True
