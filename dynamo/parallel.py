"""Commands' DynamoDB work on a few threads at once, metered like any other call: batches of
writes (write_batches) and work items (run_parallel). Pages make their calls one after the
other: DynamoDB Local answers calls sent at once no faster (bench/RESULTS.md, "Reads at
once")."""

from __future__ import annotations

import argparse
import contextvars
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from .batch import write_requests
from .models import DynamoModel, client_for

DEFAULT_THREADS = 4

Batch = tuple[type[DynamoModel], list[dict[str, Any]]]


def thread_count(value: str) -> int:
    """Parse a --threads value: a whole number of at least 1."""
    try:
        threads = int(value)
    except ValueError:
        threads = 0
    if threads < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, not {value!r}")
    return threads


def add_threads_argument(parser: argparse.ArgumentParser) -> None:
    """Give a command the --threads option that write_batches takes."""
    parser.add_argument(
        "--threads",
        type=thread_count,
        default=DEFAULT_THREADS,
        help=f"Batches written in parallel ({DEFAULT_THREADS}).",
    )


def write_batches(
    batches: Iterable[Batch],
    *,
    threads: int = DEFAULT_THREADS,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Write (model, up to 25 requests) batches on `threads` threads; return requests sent.

    Batches are drawn lazily, so a generator producing them runs while earlier ones are in
    flight; `on_batch` is called on the calling thread with each finished batch's size.
    """
    sent = 0

    def done(size: int) -> None:
        nonlocal sent
        sent += size
        if on_batch:
            on_batch(size)

    run_parallel(_write, _with_clients(batches), threads=threads, on_done=done)
    return sent


def _with_clients(batches: Iterable[Batch]) -> Iterator[Batch]:
    """Yield the batches, making each model's shared client here, not racing in the threads."""
    made: set[type[DynamoModel]] = set()
    for model, requests in batches:
        if model not in made:
            client_for(model)
            made.add(model)
        yield model, requests


def _write(batch: Batch) -> int:
    model, requests = batch
    write_requests(model, requests)
    return len(requests)


def run_parallel(
    work: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    threads: int = DEFAULT_THREADS,
    on_done: Callable[[Any], None] | None = None,
) -> int:
    """Call `work(item)` for each item on `threads` threads; return how many ran.

    Items are drawn lazily (a Query's pages are read while earlier items are in flight);
    `on_done` gets each result on the calling thread. The first error stops the run.
    """
    count = 0
    in_flight: set[Future[Any]] = set()

    def collect(done: set[Future[Any]]) -> None:
        nonlocal count
        for future in done:
            result = future.result()
            count += 1
            if on_done:
                on_done(result)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dynamo-work") as pool:
        try:
            for item in items:
                if len(in_flight) >= threads * 4:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    collect(done)
                # Each task runs in a copy of this context, so the open meter sees its calls.
                in_flight.add(pool.submit(contextvars.copy_context().run, work, item))
            collect(in_flight)
        except BaseException:
            for future in in_flight:
                future.cancel()
            raise
    return count
