"""Small helpers shared by test modules."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from dynamo import backup, tables
from dynamo.batch import batch_delete


def snapshot() -> list[str]:
    """Every stored item of every table as a sorted list of backup lines."""
    return sorted(
        backup.to_line(model, item)
        for model in tables.all_models()
        for item in backup.scan_items(model)
    )


def empty_all_tables() -> None:
    """Delete every item of every table (tests only: it Scans)."""
    for model in tables.all_models():
        batch_delete(model, model.scan())


def run_together(work: Callable[[], Any], times: int) -> list[Any]:
    """Run `work` on `times` threads started together; return results, re-raise any error."""
    results: list[Any] = []
    errors: list[BaseException] = []
    start = threading.Barrier(times)

    def run() -> None:
        start.wait()
        try:
            results.append(work())
        except BaseException as exc:  # re-raised on the calling thread below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
    return results
