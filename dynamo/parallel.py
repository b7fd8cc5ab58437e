"""Send batches of write requests from a few threads at once, metered like any other call."""

from __future__ import annotations

import argparse
import contextvars
import threading
from collections.abc import Callable, Iterable
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
    warmed: set[type[DynamoModel]] = set()
    in_flight: set[Future[int]] = set()

    def collect(done: set[Future[int]]) -> None:
        nonlocal sent
        for future in done:
            size = future.result()
            sent += size
            if on_batch:
                on_batch(size)

    with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="dynamo-batch") as pool:
        try:
            for model, requests in batches:
                if model not in warmed:
                    client_for(model)  # make the shared client here, not racing in the threads
                    warmed.add(model)
                if len(in_flight) >= threads * 2:
                    done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    collect(done)
                # Each task runs in a copy of this context, so the open meter sees its calls.
                context = contextvars.copy_context()
                in_flight.add(pool.submit(context.run, _write, model, requests))
            collect(in_flight)
        except BaseException:
            for future in in_flight:
                future.cancel()
            raise
    return sent


def _write(model: type[DynamoModel], requests: list[dict[str, Any]]) -> int:
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


# A few threads shared by every request: a page's independent reads go out together.
_page_pool: ThreadPoolExecutor | None = None
_page_pool_guard = threading.Lock()
PAGE_THREADS = 8


def read_together(reads: list[Callable[[], Any]]) -> list[Any]:
    """Run a page's independent reads at once; return their results in order.

    One read runs on the calling thread. Each other read runs on a shared thread in a copy of
    this context, so the request's meter counts it; the first error is raised.
    """
    if len(reads) <= 1:
        return [read() for read in reads]
    global _page_pool
    with _page_pool_guard:
        if _page_pool is None:
            _page_pool = ThreadPoolExecutor(PAGE_THREADS, thread_name_prefix="dynamo-page")
    *others, last = reads
    futures = [_page_pool.submit(contextvars.copy_context().run, read) for read in others]
    try:
        result = last()
    except BaseException:
        wait(futures)  # none outlives the request
        raise
    return [future.result() for future in futures] + [result]
