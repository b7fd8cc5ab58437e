"""Import a model's items from JSON Lines or CSV: each row saved as its change page saves it."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.management.progress import Progress
from dynamo_admin.csvfiles import BadFile
from dynamo_admin.exports import model_admin_named
from dynamo_admin.imports import (
    CHANGED,
    LOST,
    NEW,
    REFUSED,
    UNCHANGED,
    Importer,
    command_request,
    file_format,
    records_of,
)


class Command(DynamoCommand):
    help = (
        "Import FILE into MODEL (app_label.ModelName): JSON Lines of DynamoDB JSON items (as "
        "export_items and dump_tables write them), or CSV with a header of attribute names. "
        "Each row is saved as the admin's change page saves it: its rules, its read-only "
        "fields, its History. New items are added only if their key is free, changed ones only "
        "if still as read; a file with a refused row writes nothing unless --skip-refused. "
        "Running it again after an interruption writes only what is left."
    )

    def add_arguments(self, parser):
        parser.add_argument("model", help="app_label.ModelName, as registered in the admin")
        parser.add_argument("file", help="A .jsonl or .csv file")
        parser.add_argument(
            "--format",
            choices=("jsonl", "csv"),
            help="Default: by extension (.csv, .jsonl), else JSON Lines if the file starts with {.",
        )
        add_dry_run_argument(parser, "Plan and report; write nothing.")
        parser.add_argument(
            "--skip-refused",
            action="store_true",
            help="Write the other rows of a file with refused ones.",
        )
        parser.add_argument("--user", default="import_items", help="Who the history names.")

    def handle(self, *args, **options):
        model_admin = model_admin_named(options["model"])
        if model_admin is None:
            raise CommandError(f"No model {options['model']!r} is registered in the admin.")
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        with path.open(encoding="utf-8", errors="replace") as start:
            kind = options["format"] or file_format(path.name, start.read(1024))
        importer = Importer(model_admin, command_request(options["user"]))

        def rows(commit: bool):
            with path.open(encoding="utf-8", newline="") as text:
                yield from importer.rows(records_of(model_admin.model, kind, text), commit)

        try:
            counts = self.count(rows(commit=False), self.count_lines(path), "Planning")
            if options["dry_run"]:
                self.stdout.write(self.summary("Would import", counts))
                return
            if counts[REFUSED] and not options["skip_refused"]:
                raise CommandError(
                    f"{counts[REFUSED]} rows refused (listed above): nothing written. Fix them "
                    "or run again with --skip-refused."
                )
            done = self.count(rows(commit=True), sum(counts.values()), "Importing")
        except (BadFile, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        lost = f", {done[LOST]} changed by someone else meanwhile (not written)"
        self.stdout.write(self.summary("Imported", done) + (lost if done[LOST] else ""))
        if done[LOST]:
            raise CommandError(f"{done[LOST]} rows changed meanwhile: run the import again.")
        if done[REFUSED] > counts[REFUSED]:
            raise CommandError(
                f"{done[REFUSED] - counts[REFUSED]} rows became refused after the plan (listed "
                "above): not written."
            )

    def count(self, rows, total: int, verb: str) -> dict[str, int]:
        """Go through the rows, saying each refused or lost one; return counts by outcome."""
        counts = {NEW: 0, CHANGED: 0, UNCHANGED: 0, REFUSED: 0, LOST: 0}
        with Progress(self.stdout, total, verb, "rows") as progress:
            for row in rows:
                counts[row.status] += 1
                progress.update(1)
                if row.status in (REFUSED, LOST):
                    label = f" ({row.label})" if row.label else ""
                    self.stdout.write(f"line {row.line}{label}: {row.status}: {row.message}")
        return counts

    def summary(self, verb: str, counts: dict[str, int]) -> str:
        cost = f"{self.meter.read_units:g} RCU, {self.meter.write_units:g} WCU"
        return (
            f"{verb}: {counts[NEW]} new, {counts[CHANGED]} changed, {counts[UNCHANGED]} "
            f"unchanged, {counts[REFUSED]} refused ({cost})."
        )

    @staticmethod
    def count_lines(path: Path) -> int:
        with path.open("rb") as raw:
            return sum(1 for _ in raw)
