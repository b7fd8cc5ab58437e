"""Time `seed --users 10000` against DynamoDB Local, in memory, with fresh tables.

Run: .venv/bin/python bench/seed.py [--users N] [--threads T]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(BASE_DIR))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()

    from dynamo import local

    with local.running(allow_moto=False) as engine:
        os.environ["DYNAMODB_ENDPOINT"] = engine.endpoint
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "project.settings")
        os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-secret-key-0123456789abcdefghij")
        os.environ["DYNAMODB_TABLE_PREFIX"] = "bench-"
        os.environ.setdefault("DJANGO_ENV_FILE", "")
        # A busy DynamoDB Local outlasts a page's deadline; wait as a shell command does.
        os.environ.setdefault("DYNAMODB_READ_TIMEOUT", "60")
        os.environ.setdefault("DYNAMODB_MAX_ATTEMPTS", "5")

        import django

        django.setup()
        from django.core.management import call_command

        from dynamo import meter

        call_command("create_tables", verbosity=0, stdout=open(os.devnull, "w"))  # noqa: SIM115
        print(f"DynamoDB Local on {engine.endpoint}; seeding {args.users:,} users")
        with meter.metered() as seed_meter:
            started = time.perf_counter()
            call_command("seed", users=args.users, threads=args.threads, random_seed=42)
            elapsed = time.perf_counter() - started
        print(
            f"seed --users {args.users} --threads {args.threads}: {elapsed:.1f} s wall, "
            f"{seed_meter.count} calls ({seed_meter.count_of('BatchWriteItem')} BatchWriteItem), "
            f"{seed_meter.write_units:g} WCU, {seed_meter.read_units:g} RCU"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
