"""Back up every table as JSON Lines."""

from __future__ import annotations

import os
from pathlib import Path

from django.core.management.base import CommandError

from dynamo import backup, tables
from dynamo.management.base import DynamoCommand
from dynamo.models import DynamoModel


class Command(DynamoCommand):
    help = (
        "Write every item of every table as JSON Lines: one item per line, "
        '{"item": {...}, "table": "<table suffix>"}, the item in DynamoDB JSON ({"S": ...}, '
        '{"N": "1.5"}, sets, maps, lists; binary as base64), so load_tables restores it exactly.'
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "-o",
            "--output",
            default="-",
            help="File to write ('-', the default, writes to standard output). A file is "
            "written under a temporary name and renamed when complete.",
        )

    def handle(self, *args, output: str = "-", **options):
        models = tables.all_models()
        missing = [m.Meta.table_name for m in models if tables.describe(m) is None]
        if missing:
            raise CommandError(f"Missing tables: {', '.join(missing)}; run create_tables first.")
        # Dumping to stdout keeps stdout for the lines alone: the summary goes to stderr.
        report = self.stderr if output == "-" else self.stdout
        if output == "-":
            counts = {model: self.dump_one(model, self.stdout.write) for model in models}
        else:
            counts = self.dump_to_file(Path(output), models)
        for model, count in counts.items():
            report.write(f"{model.Meta.table_suffix}: {count} items")
        report.write(
            f"Dumped {sum(counts.values())} items from {len(counts)} tables: "
            f"{self.meter.summary()}."
        )

    def dump_to_file(self, path: Path, models: list[type[DynamoModel]]) -> dict:
        partial = path.with_name(f".{path.name}.partial")
        try:
            with partial.open("w", encoding="utf-8") as file:
                counts = {
                    model: self.dump_one(model, lambda line: file.write(line + "\n"))
                    for model in models
                }
            os.replace(partial, path)
        except OSError as exc:
            raise CommandError(f"Cannot write {path}: {exc.strerror or exc}") from exc
        finally:
            partial.unlink(missing_ok=True)
        return counts

    def dump_one(self, model: type[DynamoModel], write) -> int:
        """Write one table's items; return how many."""
        count = 0
        for item in backup.scan_items(model):
            write(backup.to_line(model, item))
            count += 1
        return count
