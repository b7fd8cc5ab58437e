"""Leaderboard cost on DynamoDB Local: pages and ranks for 1 and 8 shards, against a Scan-and-sort.

Run: .venv/bin/python bench/leaderboard.py [--users 100000]
Prints a Markdown report (bench/results/leaderboard.md holds the last one). Page figures are
the median of 5 requests through Django's test client, uncached, beside the bare boto3
Queries the page makes (one Limit-50 Query per shard). A learner's rank is measured at the
top, rank 1,000, the middle and the bottom, right after `rebuild_rank_tiers`, beside the
figures of counting every learner above (before score tiers).
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
    from stats.boards.ranking import rank_sorted
    from stats.models import UserStats

    return rank_sorted(UserStats.scan(), metric)[:limit]


# The `?user=` request's figures before score tiers (bench/RESULTS.md, counting every
# learner above): read capacity and ms by shard count and position.
BEFORE = {
    1: {
        "top": (1, 31),
        "rank ~1,000": (67.5, 75),
        "middle": (1653.5, 4108),
        "bottom": (3305, 15083),
    },
    8: {
        "top": (4.5, 117),
        "rank ~1,000": (79.5, 217),
        "middle": (1676.5, 1421),
        "bottom": (3335.5, 3263),
    },
}
RANK_COSTS: dict[int, list[float]] = {}

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


def deepest_inside_a_tier(rows) -> int:
    """Return the position of the lowest learner whose score is below its tier's ceiling."""
    from stats.boards import tiers

    pointer = tiers.pointers(["xp"])["xp"]
    spread = [
        tier
        for tier in tiers.RankTier.query(tiers.board_key("xp", pointer.generation))
        if tier.floor < tier.ceiling and tier.above > 0
    ]
    floor = min(spread, key=lambda tier: tier.floor).floor
    return max(n for n, row in enumerate(rows) if row.stats.xp == floor)


def measure(shards: int, users: int, out: list[str], *, pages: bool = True) -> None:
    from django.conf import settings
    from django.test import Client

    from stats.boards import ranking
    from stats.models import METRICS

    settings.LEADERBOARD_SHARDS = shards
    settings.LEADERBOARD_CACHE_SECONDS = 0  # each page's own reads, not the cache's
    client = Client()
    out.append(f"\n### {shards} shard{'s' if shards > 1 else ''}\n")
    out.append("| request | DynamoDB calls | read capacity (RCU) | ms | bare boto3 Query ms |")
    out.append("|---|---:|---:|---:|---:|")
    for metric in METRICS if pages else ["xp"]:
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
    page_ms = ms  # the last top-50 page's median, for the bottom rank's ratio
    if not pages:
        page_ms = page_row(client, "/leaderboard/?metric=xp&format=json")[3]
    rows, meter, ms = timed(naive_top, "xp", limit=None)
    out.append(
        f"| naive: Scan the whole table + sort in memory (xp) | {meter.count} | "
        f"{meter.read_units:g} | {ms:.0f} | |"
    )
    out.append(
        f"\n#### A learner's rank ({shards} shard{'s' if shards > 1 else ''}), from score tiers\n"
    )
    out.append(
        "| learner | rank | `rank_info`: calls | RCU | ms | `?user=` page: calls | RCU | ms "
        "| before (counting): RCU | ms |"
    )
    out.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    positions = [("top", 0), ("rank ~1,000", 999), ("middle", users // 2), ("bottom", users - 1)]
    # The positions above may sit at their tier's ceiling (no COUNT needed): add one that
    # needs the COUNT inside its tier, as deep as the tiers allow.
    positions.append(("deepest inside a tier", deepest_inside_a_tier(rows)))
    bottom_ms = bottom_rank_ms = 0.0
    for label, position in positions:
        stats = rows[position].stats
        info, rank_meter, _ = timed(ranking.rank_info, "xp", stats)
        assert info.rank == rows[position].rank, (label, info, rows[position].rank)
        rank_ms = median_ms(lambda stats=stats: ranking.rank_info("xp", stats))
        calls, rcu, response, ms_user = page_row(
            client, f"/leaderboard/?metric=xp&user={stats.username}&format=json"
        )
        assert response.json()["user_rank"] == rows[position].rank
        old_rcu, old_ms = BEFORE[shards].get(label, ("", ""))
        if label == "bottom":
            bottom_ms, bottom_rank_ms = ms_user, rank_ms
        out.append(
            f"| {label} | {info.label} | {rank_meter.count} | {rank_meter.read_units:g} "
            f"| {rank_ms:.0f} | {calls} | {rcu} | {ms_user:.0f} | {_figure(old_rcu)} "
            f"| {_figure(old_ms)} |"
        )
        RANK_COSTS.setdefault(shards, []).append(rank_meter.read_units)
    out.append(
        f"\nThe bottom learner's `?user=` request: {bottom_ms:.0f} ms at p50, "
        f"{bottom_ms / page_ms:.1f}x the top-50 page ({page_ms:.0f} ms); the bottom rank alone "
        f"(`rank_info`) {bottom_rank_ms:.0f} ms, {bottom_rank_ms / page_ms:.1f}x."
    )
    rows = rows[:50]
    # Same ranking either way: the merged top 50 equals the brute-force one.
    fast = [(r.rank, r.username) for r in ranking.top("xp").rows]
    assert fast == [(r.rank, r.username) for r in rows], "sharded top-50 differs from Scan-and-sort"


def _figure(value) -> str:
    return f"{value:,}" if value != "" else "-"


REBUILDS: dict[int, dict[str, float]] = {}


def rebuild(shards: int, users: int, out: list[str]) -> None:
    """Run `rebuild_rank_tiers` once and report its calls, capacity and time."""
    from io import StringIO

    from django.conf import settings
    from django.core.management import call_command

    from dynamo import meter
    from stats.boards import tiers

    settings.LEADERBOARD_SHARDS = shards
    started = time.perf_counter()
    with meter.metered() as rebuild_meter:
        call_command("rebuild_rank_tiers", stdout=StringIO())
    seconds = time.perf_counter() - started
    count = sum(
        p.tiers for p in tiers.pointers(["xp", "streak", "efficiency", "accuracy"]).values()
    )
    REBUILDS[shards] = {
        "rcu": rebuild_meter.read_units,
        "wcu": rebuild_meter.write_units,
        "tiers": count,
        "users": users,
    }
    out.append(
        f"\n`rebuild_rank_tiers` ({shards} shard{'s' if shards > 1 else ''}, four boards): "
        f"{seconds:.0f} s, {rebuild_meter.count:,} calls, {rebuild_meter.read_units:g} RCU, "
        f"{rebuild_meter.write_units:g} WCU, {count:,} tiers "
        f"({rebuild_meter.read_units / users:.4f} RCU a learner, "
        f"{rebuild_meter.write_units / max(count, 1):.2f} WCU a tier)."
    )


def project(users: int, out: list[str]) -> None:
    """Give the figures for 1,000,000 learners by arithmetic from the measured per-item costs."""
    out.append(f"\n### 1,000,000 learners, by arithmetic from the costs measured at {users:,}\n")
    out.append("| | 1 shard | 8 shards |")
    out.append("|---|---:|---:|")
    scale = 1_000_000 / users
    cells = []
    for shards in (1, 8):
        measured = REBUILDS[shards]
        cells.append(
            f"{measured['rcu'] * scale:,.0f} RCU + {measured['wcu'] * scale:,.0f} WCU "
            f"({measured['tiers'] * scale:,.0f} tiers)"
        )
    out.append(
        f"| a rebuild (reads scale with learners, writes with tiers) | {' | '.join(cells)} |"
    )
    worst = [max(RANK_COSTS[shards]) for shards in (1, 8)]
    out.append(
        f"| a rank at any depth (tiers hold the same 100 learners, so it does not grow) "
        f"| at most {worst[0]:g} RCU | at most {worst[1]:g} RCU |"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100_000)
    parser.add_argument(
        "--ranks-only",
        type=int,
        metavar="SHARDS",
        help="write the learners on this many shards, rebuild once, measure only the ranks",
    )
    args = parser.parse_args()
    if args.ranks_only:
        return ranks_only(args.users, args.ranks_only)
    out = [f"# Leaderboard on DynamoDB Local, {args.users:,} learners\n"]
    with engine() as endpoint:
        from django.core.management import call_command

        print(f"DynamoDB Local on {endpoint}; writing {args.users:,} learners", file=sys.stderr)
        seconds = write_learners(args.users, shards=1)
        out.append(f"Wrote {args.users:,} users and {args.users:,} user-stats in {seconds:.0f} s.")
        # The third run is the steady state: it writes a generation and deletes the one
        # before last (the first two only write).
        for _ in range(3):
            rebuild(1, args.users, out)
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
        rebuild(8, args.users, out)
        measure(8, args.users, out)
        project(args.users, out)
    print("\n".join(out))
    return 0


def ranks_only(users: int, shards: int) -> int:
    """Measure ranks alone: learners written straight onto `shards` shards, one rebuild."""
    out = [f"# Ranks on DynamoDB Local, {users:,} learners, {shards} shard(s)\n"]
    with engine() as endpoint:
        print(f"DynamoDB Local on {endpoint}; writing {users:,} learners", file=sys.stderr)
        seconds = write_learners(users, shards=shards)
        out.append(f"Wrote {users:,} users and {users:,} user-stats in {seconds:.0f} s.")
        rebuild(shards, users, out)
        measure(shards, users, out, pages=False)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
