"""Small helpers shared by test modules."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any

from dynamo import backup, tables
from dynamo.batch import batch_delete


def joined_long_ago():
    """Return a sign-up time before any back-dated session a test records (400 days ago)."""
    from datetime import timedelta

    from dynamo.models import utcnow

    return utcnow() - timedelta(days=400)


def snapshot() -> list[str]:
    """Every stored item of every table as a sorted list of backup lines."""
    return sorted(
        backup.to_line(model, item)
        for model in tables.all_models()
        for item in backup.scan_items(model)
    )


def empty_all_tables() -> None:
    """Delete every item of every table (tests only: it Scans)."""
    empty_tables(tables.all_models())


def empty_tables(models) -> None:
    """Delete every item of these models' tables (tests only: it Scans).

    The Scan asks for the keys alone, all a delete needs: moto spends most of a whole item's
    Scan serialising its attributes (a seeded learner's sessions took seconds to empty).
    """
    for model in models:
        batch_delete(model, model.scan(attributes_to_get=model.key_attribute_names()))


def forget_stream_records(models) -> None:
    """Drop the records moto keeps in these models' streams (tests on moto only).

    moto copies every table, its stream's records included, for each TransactWriteItems: a
    stream kept over a worker's tests made each transaction slower and bigger than the last
    (gigabytes by the end of a run). The tests empty `jobs`, so no checkpoint outlives them.
    """
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]
    for model in models:
        table = backend.tables.get(model.Meta.table_name)
        if table is not None and table.stream_shard is not None:
            table.stream_shard.items.clear()


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


def totals_for(accuracy: float = 0, efficiency: float = 0) -> dict[str, float]:
    """Return running totals whose derived accuracy and efficiency are exactly these."""
    from stats.models import accuracy_of, efficiency_of

    correct = round(accuracy * 10)
    minutes = 0 if not efficiency else round(50 * correct / efficiency, 4)
    totals = {"questions_answered": 1000, "questions_correct": correct, "minutes_studied": minutes}
    if (accuracy_of(1000, correct), efficiency_of(correct, minutes)) != (accuracy, efficiency):
        raise ValueError(f"No totals give accuracy {accuracy} and efficiency {efficiency}.")
    return totals | {"accuracy": accuracy, "efficiency": efficiency}


def learners_for(usernames: list[str]) -> None:
    """Store a learner for each username, as stats need one."""
    from dynamo.batch import batch_put
    from users.models import User

    joined = joined_long_ago()
    batch_put(
        User,
        [User(u, name=u.title(), email=f"{u}@example.com", created_at=joined) for u in usernames],
    )


def stored_board(count: int, shards: int) -> list:
    """Store `count` learners (user000, ...) and their stats_with_ties(); return the stats."""
    from dynamo.batch import batch_put
    from stats.models import UserStats

    items = stats_with_ties(count, shards)
    learners_for([item.username for item in items])
    batch_put(UserStats, items)
    return items


def stats_with_ties(count: int, shards: int, seed: int = 7) -> list:
    """Return stats for learners user000, user001, ... with random scores, many of them tied."""
    import random

    from stats.models import UserStats, leaderboard_partition_for

    rng = random.Random(seed)
    items = []
    for n in range(count):
        username = f"user{n:03d}"
        items.append(
            UserStats(
                username,
                # Narrow ranges make plenty of ties.
                xp=rng.randrange(0, 40) * 10,
                streak=rng.randrange(0, 12),
                # The percentages are what totals give: no efficiency without accuracy.
                **totals_for(
                    rng.randrange(1, 21) * 5.0, rng.choice([0, 12.5, 50, 50.5, 75, 99.9, 100])
                ),
                leaderboard_partition=leaderboard_partition_for(username, shards),
            )
        )
    return items


def clear_caches() -> None:
    """Empty every cache in CACHES: the shared one and each process's own (the boards' too)."""
    from django.conf import settings
    from django.core.cache import caches

    for alias in settings.CACHES:
        caches[alias].clear()


def child_environment(host: str, prefix: str) -> dict[str, str]:
    """Return the environment of a command run as a child process on the test's engine and
    tables (one that a test kills or stops), with nothing of the developer's."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp",
        "DJANGO_ENV_FILE": "",
        "DJANGO_SETTINGS_MODULE": "project.settings",
        "DJANGO_DEBUG": "true",
        "DJANGO_SECRET_KEY": "test-only-secret-key-that-is-long-enough-0123456789",
        "DYNAMODB_ENDPOINT": host,
        "DYNAMODB_TABLE_PREFIX": prefix,
    }
