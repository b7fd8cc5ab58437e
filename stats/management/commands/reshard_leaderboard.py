"""Rewrite every user's leaderboard partition for a shard count, resumably."""

from __future__ import annotations

import contextvars
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand
from dynamo.models import client_for
from stats.models import (
    UserStats,
    forget_legacy_item,
    leaderboard_partition_for,
    legacy_item,
)
from workers import jobs

JOB = "reshard_leaderboard"
LEGACY_CHECKPOINT_KEY = "#reshard_leaderboard"
PAGE_SIZE = 500


class Command(DynamoCommand):
    help = (
        "Set leaderboard_partition on every user-stats item for a shard count (default: "
        "LEADERBOARD_SHARDS). Progress is checkpointed after each page in the jobs table: "
        "run it again to resume."
    )

    def add_arguments(self, parser):
        parser.add_argument("--shards", type=int, help="the shard count (default: the setting)")
        parser.add_argument("--restart", action="store_true", help="ignore a saved checkpoint")
        parser.add_argument("--workers", type=int, default=8, help="parallel writers (1-32)")
        parser.add_argument(
            "--max-pages", type=int, help="stop after this many scan pages (resume later)"
        )

    def handle(self, *args, **options):
        shards = options["shards"] or settings.LEADERBOARD_SHARDS
        if not 1 <= shards <= 64:
            raise CommandError("--shards must be between 1 and 64.")
        if not 1 <= options["workers"] <= 32:
            raise CommandError("--workers must be between 1 and 32.")
        self.client = client_for(UserStats)
        self.table = UserStats.Meta.table_name
        # Read even with --restart: an earlier release's checkpoint moves out of user-stats.
        saved = self.load_checkpoint(shards)
        start = None if options["restart"] else saved
        if start:
            self.stdout.write("Resuming from the saved checkpoint.")
        pages = scanned = rewritten = 0
        with ThreadPoolExecutor(options["workers"]) as pool:
            while True:
                if options["max_pages"] is not None and pages >= options["max_pages"]:
                    self.stdout.write(f"Stopped after {pages} pages; run again to resume.")
                    break
                page = self.client.scan(
                    TableName=self.table,
                    Limit=PAGE_SIZE,
                    ProjectionExpression="username, leaderboard_partition",
                    **({"ExclusiveStartKey": start} if start else {}),
                )  # a raw Scan page: its LastEvaluatedKey is the checkpoint
                moves = [
                    (
                        item["username"]["S"],
                        leaderboard_partition_for(item["username"]["S"], shards),
                    )
                    for item in page.get("Items", [])
                    if "leaderboard_partition" in item
                ]
                # Each task runs in a copy of this context so the command's meter sees it.
                tasks = [(contextvars.copy_context(), move) for move in moves]
                rewritten += sum(pool.map(lambda t: t[0].run(self.handle_one, *t[1]), tasks))
                scanned += len(page.get("Items", []))
                pages += 1
                start = page.get("LastEvaluatedKey")
                if not start:
                    self.clear_checkpoint()
                    break
                self.save_checkpoint(shards, start)
        self.stdout.write(
            f"{shards} shard{'s' if shards != 1 else ''}: scanned {scanned} items, "
            f"moved {rewritten}. {self.meter.summary()}"
        )

    def handle_one(self, username: str, target: str) -> int:
        """Move one item to its partition; 0 when it is there already or has none."""
        return int(UserStats.move_to_partition(username, target))

    def load_checkpoint(self, shards: int) -> dict[str, Any] | None:
        saved = jobs.read_state(JOB) or self.adopt_legacy_checkpoint()
        if not saved or saved.get("shards") != shards:
            return None
        return saved["position"]

    def adopt_legacy_checkpoint(self) -> dict[str, Any] | None:
        """Move a checkpoint an earlier release kept in user-stats to the jobs table."""
        item = legacy_item(LEGACY_CHECKPOINT_KEY)
        if item is None:
            return None
        saved = None
        if "shards" in item and "position" in item:
            saved = {
                "shards": int(item["shards"]["N"]),
                "position": json.loads(item["position"]["S"]),
            }
            jobs.store_state(JOB, saved)
        forget_legacy_item(LEGACY_CHECKPOINT_KEY)
        return saved

    def save_checkpoint(self, shards: int, position: dict[str, Any]) -> None:
        jobs.store_state(JOB, {"shards": shards, "position": position})

    def clear_checkpoint(self) -> None:
        jobs.forget(JOB)
