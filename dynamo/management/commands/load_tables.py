"""Restore a JSON Lines backup written by dump_tables."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator

from django.core.management.base import CommandError

from dynamo import backup, tables
from dynamo.backup import BadLine, Record
from dynamo.batch import BATCH_SIZE
from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo.models import DynamoModel
from dynamo.parallel import Batch, add_threads_argument, write_batches


def batches_of(records: list[Record], kind: str) -> Iterator[Batch]:
    """Group records into per-table batches of 25 put (or delete) requests."""
    by_model: dict[type[DynamoModel], list[Record]] = {}
    for record in records:
        by_model.setdefault(record.model, []).append(record)
    for model, group in by_model.items():
        for start in range(0, len(group), BATCH_SIZE):
            chunk = group[start : start + BATCH_SIZE]
            if kind == "put":
                yield model, [{"PutRequest": {"Item": r.item}} for r in chunk]
            else:
                keys = model.key_attribute_names()
                yield (
                    model,
                    [{"DeleteRequest": {"Key": {n: r.item[n] for n in keys}}} for r in chunk],
                )


class Command(DynamoCommand):
    help = (
        "Load a dump_tables backup (JSON Lines: one item per line, "
        '{"item": {...DynamoDB JSON...}, "table": "<table suffix>"}). The whole input is '
        "checked first: a bad line stops the load before anything is written. Tables must be "
        "empty unless --replace is given: then the backup is written over the tables first and "
        "the items it lacks are deleted after, so the tables are never empty on the way; a run "
        "killed half-way leaves old and restored items side by side and is finished by "
        "running it again."
    )
    stealth_options = ("stdin",)

    def add_arguments(self, parser):
        parser.add_argument(
            "-i",
            "--input",
            default="-",
            help="Backup file to read ('-', the default, reads standard input).",
        )
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Write the backup over the tables, then delete the items it lacks, so the "
            "tables end up holding exactly the backup without ever being empty.",
        )
        add_threads_argument(parser)

    def handle(self, *args, **options):
        records = self.read(options["input"], options.get("stdin"))
        models = tables.all_models()
        missing = [m.Meta.table_name for m in models if tables.describe(m) is None]
        if missing:
            raise CommandError(f"Missing tables: {', '.join(missing)}; run create_tables first.")
        occupied = [m for m in models if next(backup.scan_items(m, page_size=1), None)]
        if occupied and not options["replace"]:
            names = ", ".join(m.Meta.table_name for m in occupied)
            raise CommandError(
                f"These tables hold items: {names}. Pass --replace to empty them first."
            )
        # Write first, remove after: at every moment each table holds the old items, the
        # restored ones, or both, never nothing; running again after a kill finishes the job.
        with Progress(self.stdout, len(records), "Loading") as progress:
            written = write_batches(
                batches_of(records, "put"), threads=options["threads"], on_batch=progress.update
            )
        if occupied:
            removed = self.remove_missing(occupied, records, options["threads"])
            self.stdout.write(f"Removed {removed} items the backup lacks.")
        self.stdout.write(self.style.SUCCESS(f"Loaded {written} items: {self.meter.summary()}."))

    def read(self, path: str, stdin=None) -> list[Record]:
        """Parse and check every line; raise CommandError naming the first bad one."""
        if path == "-":
            return self.parse(stdin or sys.stdin, "standard input")
        try:
            with open(path, encoding="utf-8") as file:
                return self.parse(file, path)
        except OSError as exc:
            raise CommandError(f"Cannot read {path}: {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path} is not UTF-8 text: {exc.reason}") from exc

    def parse(self, lines: Iterable[str], source: str) -> list[Record]:
        models = {model.Meta.table_suffix: model for model in tables.all_models()}
        records: list[Record] = []
        seen: dict[tuple, int] = {}
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                record = backup.parse_line(line, models)
            except BadLine as exc:
                raise CommandError(f"{source}, line {number}: {exc}. Nothing was loaded.") from exc
            first = seen.setdefault(record.key(), number)
            if first != number:
                raise CommandError(
                    f"{source}, line {number}: the same item key as line {first}. "
                    "Nothing was loaded."
                )
            records.append(record)
        return records

    def remove_missing(
        self, models: list[type[DynamoModel]], records: list[Record], threads: int
    ) -> int:
        """Delete the items of these tables whose keys the backup lacks; return how many."""
        wanted = {record.key() for record in records}
        extra = [
            found
            for model in models
            for found in (Record(model, item) for item in backup.scan_items(model))
            if found.key() not in wanted
        ]
        return write_batches(batches_of(extra, "delete"), threads=threads)
