"""Leaderboard cost on DynamoDB Local: the page for 1 and 8 shards against a Scan-and-sort.

Run: .venv/bin/python bench/leaderboard.py [--users 100000]
Prints a Markdown report (bench/results/leaderboard.md holds the last one). Page figures are
the median of 5 requests through Django's test client, uncached, beside the bare boto3
Queries the page makes (one Limit-50 Query per shard).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from common import engine, timed, write_learners


def naive_top(metric: str, limit: int | None = 50):
    """The naive way: Scan the whole table and sort it in memory."""
    from stats.leaderboard import rank_sorted
    from stats.models import UserStats

    return rank_sorted(UserStats.scan(), metric)[:limit]


REPEATS = 5  # each figure is the median of this many requests, after one to warm up


def median_ms(call) -> float:
    call()
    samples = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def bare_queries(metric: str, shards: int):
    """Return the page's DynamoDB work as bare boto3 calls: one Limit-50 Query per shard."""
    import boto3

    from stats.models import UserStats, leaderboard_partitions

    client = boto3.client(
        "dynamodb",
        endpoint_url=os.environ["DYNAMODB_ENDPOINT"],
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )

    def run():
        for partition in leaderboard_partitions(shards):
            client.query(
                TableName=UserStats.Meta.table_name,
                IndexName=f"gsi_leaderboard_{metric}",
                KeyConditionExpression="leaderboard_partition = :p",
                ExpressionAttributeValues={":p": {"S": partition}},
                ScanIndexForward=False,
                Limit=50,
            )

    return run


def page_row(client, url: str) -> tuple[str, str, str, float]:
    elapsed = median_ms(lambda: client.get(url))
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    # The request's own meter: its X-DynamoDB-* headers are for staff only.
    meter = response.wsgi_request.dynamo_meter
    return str(meter.count), f"{meter.read_units:g}", response, elapsed


def measure(shards: int, users: int, out: list[str]) -> None:
    from django.conf import settings
    from django.test import Client

    from stats import leaderboard
    from stats.models import METRICS

    settings.LEADERBOARD_SHARDS = shards
    settings.LEADERBOARD_CACHE_SECONDS = 0  # each page's own reads, not the cache's
    client = Client()
    out.append(f"\n### {shards} shard{'s' if shards > 1 else ''}\n")
    out.append("| request | DynamoDB calls | read capacity (RCU) | ms | bare boto3 Query ms |")
    out.append("|---|---:|---:|---:|---:|")
    for metric in METRICS:
        calls, rcu, response, ms = page_row(client, f"/leaderboard/?metric={metric}&format=json")
        bare = median_ms(bare_queries(metric, shards))
        out.append(
            f"| `/leaderboard/?metric={metric}` page 1 (top 50) | {calls} | {rcu} | {ms:.0f} "
            f"| {bare:.0f} ({ms / bare:.1f}x) |"
        )
        cursor = response.json()["next"]
        calls, rcu, _, ms = page_row(
            client, f"/leaderboard/?metric={metric}&format=json&cursor={cursor}"
        )
        out.append(f"| `/leaderboard/?metric={metric}` page 2 | {calls} | {rcu} | {ms:.0f} | |")
    rows, meter, ms = timed(naive_top, "xp", limit=None)
    for label, position in (
        ("top", 0),
        ("rank ~1,000", 999),
        ("middle", users // 2),
        ("bottom", users - 1),
    ):
        username = rows[position].username
        calls, rcu, response, ms_user = page_row(
            client, f"/leaderboard/?metric=xp&user={username}&format=json"
        )
        rank = response.json()["user_rank"]
        assert rank == rows[position].rank, (rank, rows[position].rank)
        out.append(
            f"| `?metric=xp&user=` {label} (rank {rank:,}) | {calls} | {rcu} | {ms_user:.0f} | |"
        )
    out.append(
        f"| naive: Scan the whole table + sort in memory (xp) | {meter.count} | "
        f"{meter.read_units:g} | {ms:.0f} | |"
    )
    rows = rows[:50]
    # Same ranking either way: the merged top 50 equals the brute-force one.
    fast = [(r.rank, r.username) for r in leaderboard.top("xp").rows]
    assert fast == [(r.rank, r.username) for r in rows], "sharded top-50 differs from Scan-and-sort"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    args = parser.parse_args()
    out = [f"# Leaderboard on DynamoDB Local, {args.users:,} learners\n"]
    with engine() as endpoint:
        from django.core.management import call_command

        print(f"DynamoDB Local on {endpoint}; writing {args.users:,} learners", file=sys.stderr)
        seconds = write_learners(args.users, shards=1)
        out.append(f"Wrote {args.users:,} users and {args.users:,} user-stats in {seconds:.0f} s.")
        measure(1, args.users, out)
        from io import StringIO

        from dynamo import meter

        started = time.perf_counter()
        with meter.metered() as reshard_meter:
            call_command("reshard_leaderboard", shards=8, stdout=StringIO())
        out.append(
            f"\n`reshard_leaderboard --shards 8`: {time.perf_counter() - started:.0f} s, "
            f"{reshard_meter.count:,} calls, {reshard_meter.read_units:g} RCU, "
            f"{reshard_meter.write_units:g} WCU."
        )
        measure(8, args.users, out)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
