"""Write a model's items as JSON Lines (exactly as stored) or CSV (as the admin shows them)."""

from __future__ import annotations

from functools import reduce
from itertools import chain

from django.core.management.base import CommandError
from pynamodb.attributes import BooleanAttribute

from dynamo.management.base import DynamoCommand
from dynamo.management.progress import Progress
from dynamo_admin.csvfiles import csv_lines
from dynamo_admin.exports import (
    FORMATS,
    csv_row,
    ended,
    export_columns,
    jsonl_line,
    model_admin_named,
    scan_items,
    scan_raw,
)
from dynamo_admin.keys import parse_key_value

BOOLEAN_WORDS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


class Command(DynamoCommand):
    help = (
        "Write MODEL's items (app_label.ModelName) to a file or stdout: JSON Lines, each item "
        "as DynamoDB JSON (the line dump_tables writes), or CSV with the listing's attributes, "
        "the key first, that import_items reads back. Reads the table with a Scan."
    )

    def add_arguments(self, parser):
        parser.add_argument("model", help="app_label.ModelName, as registered in the admin")
        parser.add_argument("--format", choices=FORMATS, default="jsonl")
        parser.add_argument(
            "--where",
            action="append",
            default=[],
            metavar="ATTR=VALUE",
            help="Only items whose attribute equals the value, typed as the attribute "
            "(a Scan filter); repeatable.",
        )
        parser.add_argument(
            "--no-escape-formulas",
            action="store_true",
            help="Write CSV cells that start with =, +, -, @ as they are (by default they "
            "get a leading apostrophe, so a spreadsheet shows them as text; import_items "
            "takes it off).",
        )
        parser.add_argument("-o", "--output", help="The file to write (default: stdout).")

    def handle(self, *args, **options):
        model_admin = model_admin_named(options["model"])
        if model_admin is None:
            raise CommandError(f"No model {options['model']!r} is registered in the admin.")
        model = model_admin.model
        kind = options["format"]
        condition = self.condition(model, options["where"])
        if kind == "jsonl":
            lines = (jsonl_line(model, raw) + "\n" for raw in scan_raw(model, condition))
        else:
            names = export_columns(model_admin)
            rows = (csv_row(item, names) for item in scan_items(model, condition))
            lines = csv_lines(chain([names], rows), escape=not options["no_escape_formulas"])
        lines = ended(lines, kind)
        try:
            if options["output"]:
                with open(options["output"], "w", encoding="utf-8", newline="") as out:
                    total = model.describe_table().get("ItemCount", 0)
                    with Progress(self.stdout, total, "Exporting", "items") as progress:
                        count = self.write_lines(lines, out.write, progress)
                report = self.stdout
            else:
                count = self.write_lines(lines, lambda line: self.stdout.write(line, ending=""))
                report = self.stderr
        except OSError as exc:
            raise CommandError(f"Cannot write {options['output']}: {exc.strerror or exc}") from exc
        except Exception as exc:
            raise CommandError(
                f"The export stopped part-way ({type(exc).__name__}: {exc}); the file ends with "
                "a line saying it is incomplete."
            ) from exc
        count -= kind == "csv"  # the header
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
            attribute = attributes[name]
            if isinstance(attribute, BooleanAttribute):
                if text.lower() not in BOOLEAN_WORDS:
                    raise CommandError(f"--where {where!r}: expected true or false.")
                conditions.append(attribute == BOOLEAN_WORDS[text.lower()])
                continue
            try:
                value = parse_key_value(attribute, text)
            except ValueError as exc:
                raise CommandError(f"--where {where!r}: {exc}") from exc
            conditions.append(attribute == value)
        return reduce(lambda a, b: a & b, conditions) if conditions else None
