"""Give every admin-log entry written before gsi_object_partition its `object_partition`."""

from __future__ import annotations

import json

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand
from dynamo_admin.models import AdminLog, object_partition_of

# Entries read per Scan page; each page's missing partitions are then written one by one.
PAGE_SIZE = 500


class Command(DynamoCommand):
    help = (
        "Set object_partition on admin-log entries that lack it, so the admin-log's search by "
        "key (gsi_object_partition) finds them. Idempotent: an entry that has one is left "
        "alone. Prints where it is after each page; --after resumes there."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--after",
            metavar="POSITION",
            help="Resume after this position (as printed by an interrupted run).",
        )

    def handle(self, *args, after: str | None = None, **options):
        start = self.position(after)
        missing = AdminLog.object_partition.does_not_exist()
        found = written = 0
        while True:
            page = AdminLog.scan(
                filter_condition=missing, limit=PAGE_SIZE, last_evaluated_key=start
            )
            for entry in page:
                written += self.backfill(entry)
            found += page.total_count
            start = page.last_evaluated_key
            where = json.dumps(start, separators=(",", ":")) if start else "the end"
            self.stdout.write(
                f"{found} entries found without a partition, {written} given one; at {where}"
            )
            if start is None:
                break
        self.stdout.write(self.style.SUCCESS(f"Done: {written} entries given a partition."))

    def backfill(self, entry: AdminLog) -> int:
        """Set the entry's partition unless another run did; return 1 if this one wrote it."""
        stored = AdminLog.apply(
            entry.object_key,
            # An entry without a partition predates the index, so its key is a legacy one.
            [AdminLog.object_partition.set(object_partition_of(entry.object_key, legacy=True))],
            AdminLog.object_key.exists() & AdminLog.object_partition.does_not_exist(),
            range_key=entry.logged_at,
            bump_version=False,  # a copy of the key the system keeps, not an edit
        )
        return 0 if stored is None else 1  # None: set meanwhile, or the entry is gone

    def position(self, after: str | None) -> dict | None:
        """Return the Scan's start from a printed position, refusing one that is not."""
        if after is None:
            return None
        try:
            start = json.loads(after)
        except ValueError as exc:
            raise CommandError(f"--after is not a printed position: {exc}") from exc
        if not isinstance(start, dict) or set(start) != {"object_key", "logged_at"}:
            raise CommandError("--after is not a printed position (object_key and logged_at).")
        return start
