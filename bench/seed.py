"""Seeding on DynamoDB Local: `seed` beside boto3's batch_writer, the same items, fresh tables.

Run: .venv/bin/python bench/seed.py [--users 10000] [--threads 4] [--rounds 1]
Starts DynamoDB Local in memory and makes the seed's items once, with the seed's own
generator (--random-seed 42, one fixed --now). Then, on fresh tables each time, stores them
four ways: `manage.py seed` end to end (its generation included); the seed's writes alone
(its PynamoDB items, 25 to a BatchWriteItem from T threads, with backoff); boto3's
`Table.batch_writer()` on one thread, as a first script would; and boto3's batch_writer on
T threads, one session each. boto3 gets the same items as plain dicts. After each way a Scan
of every table checks that exactly those items are stored. With --rounds R the four ways
run R times, in a rotated order each round. Prints a Markdown report: wall time, items/s,
calls, WCU.
"""

from __future__ import annotations

import argparse
import contextvars
import os
import statistics
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime

from common import engine

SEED = 42
WARM_UP_USERS = 500


@dataclass
class Way:
    """One way of storing the items, and what each of its runs measured."""

    label: str
    threads: int
    store: Callable[[int, list, dict[str, list[dict]]], None]  # (users, items, rows)
    seconds: list[float] = field(default_factory=list)
    calls: int = 0
    batch_writes: int = 0
    write_units: float = 0.0


def seed_items(users: int, now: datetime) -> list:
    """Return the items `seed --users N --random-seed 42 --now NOW` writes, in its order."""
    from catalog.demo import demo_skills
    from dynamo.batch import prepare_new
    from users.demo import SIGN_UP_SPAN, DemoLearners

    # As users/management/commands/seed.py makes them: the catalog, then each learner's items.
    catalog = [prepare_new(skill) for skill in demo_skills(now - SIGN_UP_SPAN)]
    for skill in catalog:
        skill.updated_at = skill.created_at
    items = [*catalog]
    for learner in DemoLearners(SEED, now, catalog).generate(users):
        items.extend(learner.items())
    return items


def plain_rows(items: list) -> dict[str, list[dict]]:
    """Return the items as the plain dicts a boto3 Table takes, grouped by table name."""
    from boto3.dynamodb.types import TypeDeserializer

    deserializer = TypeDeserializer()
    rows: dict[str, list[dict]] = {}
    for item in items:
        row = {name: deserializer.deserialize(value) for name, value in item.serialize().items()}
        rows.setdefault(type(item).Meta.table_name, []).append(row)
    return rows


def boto3_resource(endpoint: str):
    """Return a DynamoDB resource of its own session, as boto3 asks of each thread."""
    import boto3

    from dynamo import meter

    resource = boto3.session.Session().resource(
        "dynamodb",
        endpoint_url=endpoint,
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    meter.instrument(resource.meta.client)  # counted like the project's own calls
    return resource


def batch_writer_store(endpoint: str, threads: int):
    """Return a function storing rows with `Table.batch_writer()` on `threads` threads."""

    def store(users: int, items: list, rows: dict[str, list[dict]]) -> None:
        resources = [boto3_resource(endpoint) for _ in range(threads)]

        def write_share(share: int) -> None:
            for table_name, table_rows in rows.items():
                start = share * len(table_rows) // threads
                end = (share + 1) * len(table_rows) // threads
                with resources[share].Table(table_name).batch_writer() as batch:
                    for row in table_rows[start:end]:
                        batch.put_item(Item=row)

        if threads == 1:
            write_share(0)
            return
        with ThreadPoolExecutor(threads) as pool:
            # A copy of this context per thread, so the bench's open meter sees their calls.
            futures = [
                pool.submit(contextvars.copy_context().run, write_share, share)
                for share in range(threads)
            ]
            for future in futures:
                future.result()

    return store


def stored_rows(endpoint: str, table_names: list[str]) -> dict[str, list[dict]]:
    """Scan every table; return its items as plain dicts."""
    resource = boto3_resource(endpoint)
    stored = {}
    for table_name in table_names:
        table, rows, kwargs = resource.Table(table_name), [], {}
        while True:
            page = table.scan(**kwargs)
            rows += page["Items"]
            if "LastEvaluatedKey" not in page:
                break
            kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
        stored[table_name] = rows
    return stored


def keyed(rows: list[dict], key_names: list[str]) -> dict[tuple, dict]:
    return {tuple(row[name] for name in key_names): row for row in rows}


def check_stored(endpoint: str, expected: dict[str, list[dict]], label: str) -> None:
    """Exit with a message unless the tables hold exactly the expected items."""
    from dynamo.tables import all_models

    key_names = {model.Meta.table_name: list(model.key_attribute_names()) for model in all_models()}
    stored = stored_rows(endpoint, list(expected))
    for table_name, rows in expected.items():
        want = keyed(rows, key_names[table_name])
        got = keyed(stored[table_name], key_names[table_name])
        if want != got:
            differing = sum(1 for key in want.keys() | got.keys() if want.get(key) != got.get(key))
            raise SystemExit(
                f"{label}: {table_name} holds {len(got):,} items, expected {len(want):,}; "
                f"{differing:,} differ"
            )


def fresh_tables() -> None:
    from django.core.management import call_command

    with open(os.devnull, "w") as quiet:
        call_command("delete_tables", yes=True, verbosity=0, stdout=quiet)
        call_command("create_tables", verbosity=0, stdout=quiet)


def main() -> int:
    from dynamo.parallel import DEFAULT_THREADS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument(
        "--threads", type=int, default=DEFAULT_THREADS, help="seed's and boto3's threads"
    )
    parser.add_argument("--rounds", type=int, default=1, help="times each way runs")
    args = parser.parse_args()
    if args.users < 1 or args.threads < 1 or args.rounds < 1:
        parser.error("--users, --threads and --rounds must be 1 or more")

    with engine() as endpoint:
        from django.core.management import call_command

        from dynamo import meter
        from dynamo.models import utcnow
        from dynamo.parallel import write_batches
        from users.management.commands.seed import in_batches, parse_now

        load_before = os.getloadavg()[0]
        now = parse_now(utcnow().isoformat())
        print(f"DynamoDB Local on {endpoint}; {args.users:,} users", file=sys.stderr)
        started = time.perf_counter()
        items = seed_items(args.users, now)
        generated = time.perf_counter() - started
        rows = plain_rows(items)
        table_names = ", ".join(f"{name} {len(r):,}" for name, r in rows.items())

        def seed_command(users: int, items: list, rows: dict) -> None:
            with open(os.devnull, "w") as quiet:
                call_command(
                    "seed",
                    users=users,
                    threads=args.threads,
                    random_seed=SEED,
                    now=now.isoformat(),
                    stdout=quiet,
                )

        def seed_writes(users: int, items: list, rows: dict) -> None:
            write_batches(in_batches(items), threads=args.threads)

        ways = [
            Way("`manage.py seed` end to end (generation included)", args.threads, seed_command),
            Way("the seed's writes alone (`write_batches`)", args.threads, seed_writes),
            Way("boto3 `Table.batch_writer()`", 1, batch_writer_store(endpoint, 1)),
            Way(
                "boto3 `Table.batch_writer()`, a session per thread",
                args.threads,
                batch_writer_store(endpoint, args.threads),
            ),
        ]
        # A fresh JVM is slow until it has compiled its hot paths: each way warms up, untimed.
        warm_users = min(args.users, WARM_UP_USERS)
        warm_items = seed_items(warm_users, now)
        warm_rows = plain_rows(warm_items)
        for way in ways:
            fresh_tables()
            way.store(warm_users, warm_items, warm_rows)
        for round_number in range(args.rounds):
            turn = round_number % len(ways)
            for way in ways[turn:] + ways[:turn]:
                fresh_tables()
                with meter.metered() as metered:
                    started = time.perf_counter()
                    way.store(args.users, items, rows)
                    way.seconds.append(time.perf_counter() - started)
                way.calls, way.write_units = metered.count, metered.write_units
                way.batch_writes = metered.count_of("BatchWriteItem")
                check_stored(endpoint, rows, way.label)
                print(f"{way.label}: {way.seconds[-1]:.1f} s", file=sys.stderr)

    load = f"{load_before:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    print(report(args, ways, len(items), table_names, generated, load))
    return 0


def report(args, ways: list[Way], count: int, table_names: str, generated: float, load: str) -> str:
    rounds = f", {args.rounds} rounds (median, then range)" if args.rounds > 1 else ""
    out = [
        f"## Seeding {args.users:,} users on DynamoDB Local: `seed` beside boto3's batch_writer\n",
        f"The same {count:,} items each time ({table_names}), on fresh tables with the "
        f"project's indexes{rounds}; generating them with the seed's generator takes "
        f"{generated:.1f} s.\n",
        "| how | threads | wall s | items/s | calls | BatchWriteItem | WCU |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for way in ways:
        median = statistics.median(way.seconds)
        wall = f"{median:.1f}"
        if len(way.seconds) > 1:
            wall += f" ({min(way.seconds):.1f} to {max(way.seconds):.1f})"
        out.append(
            f"| {way.label} | {way.threads} | {wall} | {count / median:,.0f} | {way.calls:,} | "
            f"{way.batch_writes:,} | {way.write_units:,.0f} |"
        )
    out.append(
        "\nEvery way's tables were scanned afterwards and hold exactly the generated items "
        "(the command's 2 more calls mark and clear its resume marker in `jobs`). "
        "The seed's writes retry unprocessed items with backoff; boto3's batch_writer resends "
        "them with its next batch. boto3 runs with its defaults (a resource per thread, as "
        "boto3 asks); both sides ask for ConsumedCapacity so the meter can sum WCU. Load "
        f"average {load} (2 cores shared by this process, DynamoDB Local and other work)."
    )
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
