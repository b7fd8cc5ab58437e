"""Why three leaderboard indexes were slow on DynamoDB Local: a reproduction with boto3 only.

Run: .venv/bin/python bench/leaderboard_index.py [--users 20000]
Starts DynamoDB Local with its data in a temporary directory (so its SQLite file can be
read), makes the same learners' stats table several ways, loads it with boto3's
`batch_writer`, times a Limit-50 and a Limit-1 descending Query on each leaderboard index and
lists the SQLite indexes DynamoDB Local built behind each table. Prints a Markdown report.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import boto3

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))

METRICS = ("xp", "streak", "efficiency", "accuracy")
ROUNDS = 5


def gsi(metric: str, *, sort: tuple[str, ...] | None = None) -> dict:
    sort = (metric, "username") if sort is None else sort
    return {
        "IndexName": f"gsi_leaderboard_{metric}",
        "KeySchema": [{"AttributeName": "leaderboard_partition", "KeyType": "HASH"}]
        + [{"AttributeName": name, "KeyType": "RANGE"} for name in sort],
        "Projection": {"ProjectionType": "ALL"},
    }


def definitions(*names: str) -> list[dict]:
    return [{"AttributeName": n, "AttributeType": "N" if n in METRICS else "S"} for n in names]


# name -> (what it is, indexes in the CreateTable, indexes added by UpdateTable after it,
#          whether those are added after the data is loaded)
VARIANTS = {
    "as_create_tables_did": (
        "one CreateTable naming the four GSIs in PynamoDB's (alphabetical) order, as "
        "`create_tables` did",
        [gsi(m) for m in sorted(METRICS)],
        [],
        False,
    ),
    "xp_first": (
        "the same CreateTable with `gsi_leaderboard_xp` named first",
        [gsi(m) for m in METRICS],
        [],
        False,
    ),
    "one_sort_attribute": (
        "one CreateTable, classic GSIs: sort key the metric alone",
        [gsi(m, sort=(m,)) for m in METRICS],
        [],
        False,
    ),
    "added_one_by_one": (
        "CreateTable with no GSI, then one UpdateTable per GSI before the data "
        "(what `create_tables` now does on a local engine)",
        [],
        [gsi(m) for m in METRICS],
        False,
    ),
    "added_after_data": (
        "CreateTable with no GSI, the data, then one UpdateTable per GSI (backfilled)",
        [],
        [gsi(m) for m in METRICS],
        True,
    ),
}


def learners(count: int, seed: int = 42):
    """Yield the same learners' stats items as the leaderboard benchmark writes."""
    rng = random.Random(seed)
    for n in range(count):
        yield {
            "username": f"learner{n:06d}",
            "leaderboard_partition": "ALL",
            "xp": int(rng.paretovariate(1.2) * 100),
            "streak": rng.randrange(0, 60),
            "efficiency": round(rng.uniform(0, 100), 1),
            "accuracy": round(rng.uniform(20, 100), 1),
        }


def wait_active(client, table: str) -> None:
    while True:
        description = client.describe_table(TableName=table)["Table"]
        statuses = [description["TableStatus"]]
        statuses += [i["IndexStatus"] for i in description.get("GlobalSecondaryIndexes", [])]
        if all(status == "ACTIVE" for status in statuses):
            return
        time.sleep(0.05)


def add_indexes(client, table: str, indexes: list[dict]) -> None:
    for index in indexes:
        names = [k["AttributeName"] for k in index["KeySchema"]]
        client.update_table(
            TableName=table,
            AttributeDefinitions=definitions(*names),
            GlobalSecondaryIndexUpdates=[{"Create": index}],
        )
        wait_active(client, table)


def load(resource, table: str, count: int) -> float:
    from decimal import Decimal

    def write(chunk: list[dict]) -> None:
        with resource.Table(table).batch_writer() as batch:
            for item in chunk:
                batch.put_item(
                    Item={k: Decimal(str(v)) if k in METRICS else v for k, v in item.items()}
                )

    items = list(learners(count))
    chunks = [items[i::4] for i in range(4)]
    started = time.perf_counter()
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(write, chunks))
    return time.perf_counter() - started


def make(client, resource, table: str, variant: tuple, count: int) -> float:
    _, created, added, after_data = variant
    names = {k["AttributeName"] for i in created for k in i["KeySchema"]} | {"username"}
    request = {
        "TableName": table,
        "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "username", "KeyType": "HASH"}],
        "AttributeDefinitions": definitions(*sorted(names)),
    }
    if created:
        request["GlobalSecondaryIndexes"] = created
    client.create_table(**request)
    wait_active(client, table)
    if not after_data:
        add_indexes(client, table, added)
    seconds = load(resource, table, count)
    if after_data:
        add_indexes(client, table, added)
    return seconds


def query_ms(client, table: str, metric: str, limit: int) -> float:
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        client.query(
            TableName=table,
            IndexName=f"gsi_leaderboard_{metric}",
            KeyConditionExpression="leaderboard_partition = :p",
            ExpressionAttributeValues={":p": {"S": "ALL"}},
            ScanIndexForward=False,
            Limit=limit,
        )
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def sqlite_indexes(data_dir: Path, table: str) -> list[str]:
    """Return the SQLite indexes DynamoDB Local keeps for a table's GSIs, with their columns."""
    (path,) = data_dir.glob("*.db")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?", (table,)
        ).fetchall()
    return [
        f"`{name.split('*', 1)[1]}` {sql[sql.rindex('(') :]}"
        for name, sql in rows
        if sql and "*gsi_" in name
    ]


def clients(endpoint: str):
    options = {
        "endpoint_url": endpoint,
        "region_name": "us-east-1",
        "aws_access_key_id": "local",
        "aws_secret_access_key": "local",
    }
    return boto3.client("dynamodb", **options), boto3.resource("dynamodb", **options)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=20_000)
    args = parser.parse_args()

    from dynamo import local

    out = [
        f"## The leaderboard index mystery: a boto3-only reproduction, {args.users:,} learners\n"
    ]
    out.append("| table made by | " + " | ".join(f"`{m}` 50 / 1" for m in METRICS) + " |")
    out.append("|---|" + "---:|" * len(METRICS))
    with local.running(allow_moto=False, log=lambda _: None) as engine:
        client, resource = clients(engine.endpoint)
        for name, variant in VARIANTS.items():
            print(f"{name}: loading {args.users:,} items", file=sys.stderr)
            seconds = make(client, resource, name, variant, args.users)
            cells = [
                f"{query_ms(client, name, m, 50):.0f} / {query_ms(client, name, m, 1):.0f}"
                for m in METRICS
            ]
            out.append(
                f"| {variant[0]} (`{name}`, loaded in {seconds:.0f} s) | "
                + " | ".join(cells)
                + " |"
            )
    out.append(
        f"\nMilliseconds, median of {ROUNDS} descending Queries on `leaderboard_partition = "
        "ALL`, Limit 50 / Limit 1, DynamoDB Local in memory.\n\n"
        "SQLite indexes DynamoDB Local builds behind each table's GSIs (the same tables made "
        "empty on a second DynamoDB Local that keeps its SQLite file on disk):\n"
    )
    # In memory there is no file to read; the schema does not depend on the data.
    with (
        tempfile.TemporaryDirectory() as data,
        local.running(data_dir=Path(data), allow_moto=False, log=lambda _: None) as engine,
    ):
        client, resource = clients(engine.endpoint)
        for name, variant in VARIANTS.items():
            make(client, resource, name, variant, 0)
            out.append(f"- `{name}`: " + ("; ".join(sqlite_indexes(Path(data), name)) or "none"))
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
