"""Rank counts kept by the user-stats stream on DynamoDB Local: lag, and capacity per session.

Run: .venv/bin/python bench/rank_upkeep.py [--users 20000] [--writes 200] [--rate 50]
    [--upkeep consume_streams|lambda]
Prints a Markdown report. N learners (users and stats, as the other stats benchmarks write
them), the score tiers rebuilt once, then `manage.py consume_streams` started as a process of
its own, as `make run` starts it; or, with `--upkeep lambda`, the exported template's two
functions as AWS runs them, in a process of their own: the stream handler fed batches as its
EventSourceMapping feeds it (each shard polled four times a second, up to 100 records or a
1 s window a batch), and the watcher, which alone writes the marker. Then --writes sessions of
learners drawn at random, paced at --rate a second from four threads (slower if writes take
longer), while another thread reads the `rank_upkeep` marker every 10 ms. A session's lag is
the time from its write's commit to the first read of a marker at a moment after that commit:
from then on every rank a page reads includes it and is marked exact. Also: the session
write's own WCU (the move counter of earlier releases, one unconditional UpdateItem on `jobs`,
measured beside it), and the consumer's calls, RCU and WCU per session, from its own meter.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
from datetime import datetime

from common import BASE_DIR, engine, write_learners

POLL_SECONDS = 0.01
WRITERS = 4  # threads writing sessions: one write takes longer than 1/50 s here


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def start_consumer(endpoint: str) -> subprocess.Popen:
    """Start `consume_streams` against the benchmark's engine, logging its summary line."""
    env = dict(os.environ, DYNAMODB_ENDPOINT=endpoint)
    return subprocess.Popen(
        [sys.executable, "manage.py", "consume_streams", "-v", "2"],
        cwd=BASE_DIR,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


class LambdaUpkeep:
    """The stream handler and the watcher, driven as Lambda drives them, until stopped."""

    POLLS_A_SECOND = 4  # how often Lambda's poller reads a shard

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.meters: dict[str, object] = {}
        self.batches = 0
        self.threads = [
            threading.Thread(target=self.metered, args=("handler", self.feed)),
            threading.Thread(target=self.metered, args=("watcher", self.watch)),
        ]

    def metered(self, name: str, work) -> None:
        from dynamo.meter import metered

        with metered() as meter:
            self.meters[name] = meter
            work()

    def feed(self) -> None:
        """Hand each shard's new records to the handler: a batch at 100 or after the window."""
        from dynamo import streams
        from dynamo.cloudformation import HANDLER_BATCH
        from stats.boards import upkeep

        stream = upkeep.Stream.open()
        checkpoints = stream.checkpoints()
        positions = {
            s.shard_id: streams.iterator(
                stream.client, stream.arn, s.shard_id, checkpoints[s.shard_id]
            )
            for s in stream.shards
            if not s.closed
        }
        waiting: dict[str, list] = {shard: [] for shard in positions}
        since: dict[str, float] = {}
        while not self.stop.is_set():
            for shard, position in positions.items():
                page = streams.read(stream.client, position, limit=HANDLER_BATCH)
                positions[shard] = page.next_iterator
                if page.records and not waiting[shard]:
                    since[shard] = time.monotonic()
                waiting[shard] += page.records
                window_over = time.monotonic() - since.get(shard, 0) >= streams.BATCH_WINDOW
                if waiting[shard] and (len(waiting[shard]) >= 100 or window_over):
                    batch, waiting[shard] = waiting[shard][:100], waiting[shard][100:]
                    records = [r | {"eventSourceARN": stream.arn} for r in batch]
                    upkeep.handler({"Records": records})
                    self.batches += 1
                    since[shard] = time.monotonic()
            self.stop.wait(1 / self.POLLS_A_SECOND)

    def watch(self) -> None:
        from stats.boards import upkeep

        upkeep.watch(self.stop.is_set)

    def start(self) -> None:
        self.started = time.monotonic()
        for thread in self.threads:
            thread.start()

    def finish(self) -> tuple[float, float, str]:
        """Stop; return the handler's RCU and WCU (a session's share), and what each did (the
        watcher's cost goes by the second, whatever the sessions)."""
        self.stop.set()
        for thread in self.threads:
            thread.join()
        seconds = time.monotonic() - self.started
        handler, watcher = self.meters["handler"], self.meters["watcher"]
        said = (
            f"the handler, {self.batches} batches: {handler.summary()}; the watcher, over "
            f"{seconds:.0f} s: {watcher.summary()}, {watcher.count_of('GetRecords')} GetRecords"
        )
        return handler.read_units, handler.write_units, said


def units(line: str, name: str) -> float:
    """Return the RCU or WCU a command's meter line gives (0 when it gives none)."""
    found = re.search(rf"([\d.]+) {name}", line)
    return float(found.group(1)) if found else 0.0


def marker_reader(stop: threading.Event, seen: list[tuple[float, datetime | None]]) -> None:
    """Read the upkeep's marker until stopped: (when read, the catch-up it records)."""
    from stats.boards import tiers
    from workers.jobs import Job

    while not stop.is_set():
        job = Job.get_or_none(tiers.UPKEEP_JOB)
        caught_up = datetime.fromisoformat(job.watermark) if job and job.watermark else None
        seen.append((time.time(), caught_up))
        time.sleep(POLL_SECONDS)


def run_lambda_functions() -> int:
    """The child process of `--upkeep lambda`: the two functions until SIGTERM, then one JSON
    line of what they did (the parent set the environment up against its engine)."""
    import django

    django.setup()
    logging.disable(logging.INFO)
    functions = LambdaUpkeep()
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    functions.start()
    stopped.wait()
    rcu, wcu, said = functions.finish()
    print(json.dumps({"rcu": rcu, "wcu": wcu, "said": said}))
    return 0


def start_lambda_functions() -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, "--lambda-functions"],
        cwd=BASE_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def main() -> int:
    if sys.argv[1:] == ["--lambda-functions"]:
        return run_lambda_functions()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--rate", type=float, default=50.0)
    parser.add_argument(
        "--upkeep", choices=("consume_streams", "lambda"), default="consume_streams"
    )
    args = parser.parse_args()
    with engine() as endpoint:
        from django.core.management import call_command

        from dynamo.meter import metered
        from dynamo.models import utcnow
        from stats.history.recording import record_session
        from workers import jobs

        started = time.perf_counter()
        write_learners(args.users)
        loaded = time.perf_counter() - started
        started = time.perf_counter()
        call_command("rebuild_rank_tiers", stdout=io.StringIO())
        rebuilt = time.perf_counter() - started

        rng = random.Random(48)
        # The session write alone, and the move counter earlier releases added to it.
        with metered() as session_meter:
            for _ in range(20):
                username = f"learner{rng.randrange(args.users):06d}"
                record_session(username, xp=30, questions=10, correct=8, minutes=10)
        with metered() as counter_meter:
            for _ in range(20):
                jobs.count_up("rank_changes:ALL")
        jobs.forget("rank_changes:ALL")
        session_wcu = session_meter.write_units / 20
        counter_wcu = counter_meter.write_units / 20

        lambda_ = args.upkeep == "lambda"
        consumer = start_lambda_functions() if lambda_ else start_consumer(endpoint)
        time.sleep(3)  # it applies the 20 sessions above and settles
        stop, seen = threading.Event(), []
        reader = threading.Thread(target=marker_reader, args=(stop, seen))
        reader.start()
        commits: list[datetime] = []
        picks = [f"learner{rng.randrange(args.users):06d}" for _ in range(args.writes)]
        begun = time.perf_counter()

        def writer(first: int) -> None:
            # Each thread takes every WRITERS-th write, each at its due time: --rate in all.
            for n in range(first, args.writes, WRITERS):
                time.sleep(max(0.0, begun + n / args.rate - time.perf_counter()))
                record_session(picks[n], xp=30 + n % 150, questions=10, correct=7, minutes=9)
                commits.append(utcnow())

        writers = [threading.Thread(target=writer, args=(k,)) for k in range(WRITERS)]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        elapsed = time.perf_counter() - begun
        time.sleep(6)
        stop.set()
        reader.join()
        consumer.send_signal(signal.SIGTERM)
        out, err = consumer.communicate(timeout=60)
        if consumer.returncode != 0:
            raise SystemExit(f"the upkeep failed: {err.strip().splitlines()[-1:]}")
        if lambda_:
            done = json.loads(out.strip().splitlines()[-1])
            rcu, wcu, said = done["rcu"], done["wcu"], done["said"]
        else:
            meter_line = next((line for line in err.splitlines() if "DynamoDB:" in line), "")
            summary = next((line for line in out.splitlines() if "changes applied" in line), "")
            rcu, wcu = units(meter_line, "RCU"), units(meter_line, "WCU")
            said = f"{summary.rstrip('.')}: `{meter_line.strip()}`"

    lags = []
    for commit in commits:
        after = [read for read, caught_up in seen if caught_up and caught_up >= commit]
        lags.append(min(after) - commit.timestamp() if after else float("inf"))
    by = " under the Lambda and its watcher" if lambda_ else ""
    print(f"# Rank counts kept by the stream{by}, {args.users:,} learners\n")
    command = (
        f"bench/rank_upkeep.py --users {args.users} --writes {args.writes} --rate {args.rate:g}"
        + (" --upkeep lambda" if lambda_ else "")
    )
    print(f"Command: `.venv/bin/python {command}`\n")
    print(f"Loading {args.users:,} learners: {loaded:.0f} s; one rebuild: {rebuilt:.0f} s.\n")
    print(
        f"{args.writes} sessions in {elapsed:.1f} s ({args.writes / elapsed:.1f} a second) with "
        f"{'the two functions' if lambda_ else '`consume_streams`'} running:\n"
    )
    print("| | p50 | p99 | max |")
    print("|---|---:|---:|---:|")
    print(
        f"| write committed to ranks exact (s) | {percentile(lags, 0.5):.3f} | "
        f"{percentile(lags, 0.99):.3f} | {max(lags):.3f} |"
    )
    print(
        f"\nThe session write: {session_wcu:g} WCU (mean of 20); the move counter it no longer "
        f"writes: {counter_wcu:g} WCU; so {session_wcu + counter_wcu:g} WCU before, "
        f"{session_wcu:g} after.\n"
    )
    sessions = args.writes + 20
    who = "handler" if lambda_ else "consumer"
    print(f"The consumer over the whole run ({said}).\n")
    print(
        f"Per session write: {rcu / sessions:.2f} RCU and {wcu / sessions:.2f} WCU by the "
        f"{who}. Per million sessions on on-demand prices (us-east-1, $0.625 a million write "
        f"and $0.125 a million read request units): {who} "
        f"${(wcu / sessions) * 0.625 + (rcu / sessions) * 0.125:.2f}, against the "
        f"${counter_wcu * 0.625:.2f} of the move counter the session write no longer makes. "
        "The stream's GetRecords are free when Lambda reads them; `consume_streams` pays "
        "$0.02 per 100,000 of them (one per shard per round, about one a second)."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
