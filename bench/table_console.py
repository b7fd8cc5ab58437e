"""The Tables console's Query beside the boto3 Query that reads the same items (the floor).

Run: .venv/bin/python bench/table_console.py [--songs 2000] [--rounds 200] [--warmup 300]
                                              [--cprofile [page|chrome]]
DynamoDB Local in memory; a Music table made by boto3 (no model) under the bench's prefix,
one artist with `--songs` songs. Each round the page `/admin/tables/bench-Music/?mode=query
&pk=…&sk_op=between&sk=…&sk2=…` (50 songs) is fetched in process through Django's test
client as a superuser, and the same Query (KeyConditionExpression with BETWEEN, Limit 50) is
sent with boto3 alone; the sides take turns at going first. `--warmup` rounds of both go
unrecorded first: DynamoDB Local runs on the JVM, whose calls are slow until they have run a
few hundred times. Django's password change page, an admin page that reads nothing from
DynamoDB, takes its turn too: the cost of the admin's middleware and chrome alone. Prints a
Markdown table: p50 and p95 of each, the page's p50 over the floor's (the goal: at most 2x),
and the page's DynamoDB calls. `--cprofile` profiles the page's recorded rounds (`--cprofile
chrome`: the password change page's) and prints the functions with most cumulative and most
own time (cProfile slows Python more than waiting: it says where the time goes, not how long
it takes without it).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from typing import Any

from common import engine

GOAL = 2.0
ARTIST = "The Benchmarks"
TABLE = "bench-Music"


def make_music(client, songs: int) -> None:
    client.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "Artist", "KeyType": "HASH"},
            {"AttributeName": "SongTitle", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": "Artist", "AttributeType": "S"},
            {"AttributeName": "SongTitle", "AttributeType": "S"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for n in range(songs):
        client.put_item(
            TableName=TABLE,
            Item={
                "Artist": {"S": ARTIST},
                "SongTitle": {"S": f"Song {n:05d}"},
                "AlbumTitle": {"S": f"Album {n // 12}"},
                "Plays": {"N": str(n * 7919 % 100_000)},
                "Genres": {"SS": ["Rock", "Bench"]},
            },
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--songs", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=300)
    parser.add_argument(
        "--cprofile",
        nargs="?",
        const="page",
        choices=("page", "chrome"),
        help="profile the page's rounds (or the password change page's)",
    )
    args = parser.parse_args()
    # Django's own tables (the staff user, its session) in a throwaway SQLite file.
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["DATABASE_URL"] = f"sqlite:///{tmp}/django.sqlite3"
        times, calls = measure(args)
    report(args, times, calls)


def measure(args) -> tuple[dict[str, list[float]], int]:
    """Return each side's recorded milliseconds, and the page's DynamoDB calls."""
    with engine() as endpoint:
        import boto3
        from django.contrib.auth.models import User as StaffUser
        from django.test import Client

        client = boto3.client(
            "dynamodb",
            endpoint_url=endpoint,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        make_music(client, args.songs)
        first, last = f"Song {args.songs // 2:05d}", f"Song {args.songs // 2 + 49:05d}"
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        staff = Client()
        staff.force_login(StaffUser.objects.create_superuser("bench", "b@example.com", "pw"))
        url = f"/admin/tables/{TABLE}/"
        query = {"mode": "query", "pk": ARTIST, "sk_op": "between", "sk": first, "sk2": last}

        def fetch(side: str, *request) -> Any:
            if profiler is not None and args.cprofile == side:
                return profiler.runcall(staff.get, *request)
            return staff.get(*request)

        def page() -> float:
            started = time.perf_counter()
            response = fetch("page", url, query)
            seconds = time.perf_counter() - started
            assert response.status_code == 200 and response.content.count(b">Open</a>") == 50
            page.calls = response.wsgi_request.dynamo_meter.count
            return seconds

        def chrome() -> float:
            started = time.perf_counter()
            response = fetch("chrome", "/admin/password_change/")
            seconds = time.perf_counter() - started
            assert response.status_code == 200
            return seconds

        def floor() -> float:
            started = time.perf_counter()
            answer = client.query(
                TableName=TABLE,
                KeyConditionExpression="#a = :a AND #t BETWEEN :f AND :l",
                ExpressionAttributeNames={"#a": "Artist", "#t": "SongTitle"},
                ExpressionAttributeValues={
                    ":a": {"S": ARTIST},
                    ":f": {"S": first},
                    ":l": {"S": last},
                },
                Limit=50,
            )
            seconds = time.perf_counter() - started
            assert answer["Count"] == 50
            return seconds

        times: dict[str, list[float]] = {"page": [], "floor": [], "chrome": []}
        sides = [("page", page), ("floor", floor), ("chrome", chrome)]
        profiler = None
        for n in range(args.warmup + args.rounds):
            if n == args.warmup and args.cprofile:
                profiler = cProfile.Profile()
            order = sides[n % 3 :] + sides[: n % 3]  # each side takes its turn going first
            for name, measure in order:
                seconds = measure()
                if n >= args.warmup:
                    times[name].append(seconds * 1000)
    if profiler is not None:
        stats = pstats.Stats(profiler, stream=sys.stderr)
        stats.sort_stats("cumulative").print_stats(45)
        stats.sort_stats("tottime").print_stats(30)
        stats.sort_stats("cumulative").print_stats(r"/(dynamo|dynamo_admin|project)/", 40)
    return times, page.calls


def report(args, times: dict[str, list[float]], calls: int) -> None:
    def p(values: list[float], q: int) -> float:
        return statistics.quantiles(values, n=100)[q - 1]

    ratio = statistics.median(times["page"]) / statistics.median(times["floor"])
    print(
        f"{args.songs:,} songs of one artist; a Query of 50 by SongTitle BETWEEN; "
        f"{args.rounds} rounds after {args.warmup} unrecorded.\n"
    )
    print("| read | p50 ms | p95 ms | DynamoDB calls |")
    print("|---|---|---|---|")
    print(
        f"| Tables console page | {statistics.median(times['page']):.2f} | "
        f"{p(times['page'], 95):.2f} | {calls} |"
    )
    print(
        f"| boto3 Query (floor) | {statistics.median(times['floor']):.2f} | "
        f"{p(times['floor'], 95):.2f} | 1 |"
    )
    print(
        f"| An admin page with no DynamoDB read (password change) | "
        f"{statistics.median(times['chrome']):.2f} | {p(times['chrome'], 95):.2f} | 0 |"
    )
    verdict = "within" if ratio <= GOAL else "OVER"
    print(f"\nThe page's p50 is {ratio:.2f}x the floor's: {verdict} the {GOAL:g}x goal.")


if __name__ == "__main__":
    main()
