"""Write a model's items as JSON Lines (exactly as stored) or CSV (as the listing shows them)."""

from __future__ import annotations

from functools import reduce
from itertools import chain

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo_admin.keys import parse_key_value
from dynamo_admin.transfer import (
    FORMATS,
    csv_cells,
    csv_lines,
    export_columns,
    jsonl_line,
    model_admin_named,
    scan_items,
    scan_raw,
)


class Command(DynamoCommand):
    help = (
        "Write MODEL's items (app_label.ModelName) to a file or stdout: JSON Lines, each item "
        "as DynamoDB JSON, or CSV with the listing's columns. Reads the table with a Scan."
    )

    def add_arguments(self, parser):
        parser.add_argument("model", help="app_label.ModelName, as registered in the admin")
        parser.add_argument("--format", choices=FORMATS, default="jsonl")
        parser.add_argument(
            "--where",
            action="append",
            default=[],
            metavar="ATTR=VALUE",
            help="Only items whose attribute equals the value (a Scan filter); repeatable.",
        )
        parser.add_argument("-o", "--output", help="The file to write (default: stdout).")

    def handle(self, *args, **options):
        model_admin = model_admin_named(options["model"])
        if model_admin is None:
            raise CommandError(f"No model {options['model']!r} is registered in the admin.")
        model = model_admin.model
        condition = self.condition(model, options["where"])
        if options["format"] == "jsonl":
            lines = (jsonl_line(raw) + "\n" for raw in scan_raw(model, condition))
        else:
            names, header = export_columns(model_admin)
            items = scan_items(model, condition)
            rows = (csv_cells(model_admin, item, names) for item in items)
            lines = csv_lines(chain([header], rows))
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8", newline="") as out:
                total = model.describe_table().get("ItemCount", 0)
                with Progress(self.stdout, total, "Exporting", "items") as progress:
                    count = self.write_lines(lines, out.write, progress)
            report = self.stdout
        else:
            count = self.write_lines(lines, lambda line: self.stdout.write(line, ending=""))
            report = self.stderr
        count -= options["format"] == "csv"  # the header
        report.write(f"Exported {count} items ({self.meter.read_units:g} RCU read).")

    def write_lines(self, lines, write, progress=None) -> int:
        count = 0
        for line in lines:
            write(line)
            count += 1
            if progress is not None:
                progress.update(1)
        return count

    def condition(self, model, wheres: list[str]):
        conditions = []
        attributes = model.get_attributes()
        for where in wheres:
            name, sep, text = where.partition("=")
            if not sep or name not in attributes:
                raise CommandError(f"--where {where!r}: expected ATTR=VALUE with an attribute.")
            try:
                value = parse_key_value(attributes[name], text)
            except ValueError as exc:
                raise CommandError(f"--where {where!r}: {exc}") from exc
            conditions.append(attributes[name] == value)
        return reduce(lambda a, b: a & b, conditions) if conditions else None
