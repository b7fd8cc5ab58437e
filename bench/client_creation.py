"""What a model's first call in a new thread pays to make its botocore client.

PynamoDB gives each model's connection a botocore session of its own in each thread (a web
host's threads, a command's pool, a test's fresh connection). A session of its own loads
DynamoDB's service model and the endpoints file again before its client exists;
`dynamo.models.client_for` gives every session the process's one loader. Both ways are timed
taking turns, each in a thread of its own, on a fresh connection, so the machine's load falls
on both alike. No call is sent: only the client is made.

Run: .venv/bin/python bench/client_creation.py [--rounds 40]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

import django
from common import engine


def timed_in_a_thread(make) -> float:
    took: list[float] = []

    def run() -> None:
        started = time.perf_counter()
        make()
        took.append(time.perf_counter() - started)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return took[0] * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    args = parser.parse_args()
    with engine():
        measure(args.rounds)


def measure(rounds: int) -> None:
    from pynamodb.connection import TableConnection

    from dynamo.models import _client
    from users.models import User

    def fresh() -> TableConnection:
        meta = User.Meta
        return TableConnection(
            meta.table_name,
            region=meta.region,
            host=meta.host,
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )

    ways = {
        "PynamoDB's own session (a loader of its own)": lambda: fresh().connection.client,
        "the process's one loader (`client_for`)": lambda: _client(fresh().connection),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    for _ in range(rounds):
        for name, make in ways.items():
            times[name].append(timed_in_a_thread(make))
    print(f"Django {django.get_version()}, {rounds} rounds, each way in a new thread\n")
    print("| client made with | p50 ms | min ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, took in times.items():
        print(f"| {name} | {statistics.median(took):.1f} | {min(took):.1f} | {max(took):.1f} |")


if __name__ == "__main__":
    main()
