"""Import a model's items from JSON Lines or CSV: planned first, each write on a condition."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand, add_dry_run_argument
from dynamo.management.progress import Progress
from dynamo_admin.transfer import (
    CHANGED,
    NEW,
    REFUSED,
    UNCHANGED,
    BadFile,
    model_admin_named,
    plan,
    read_csv,
    read_jsonl,
    run,
)


class Command(DynamoCommand):
    help = (
        "Import FILE into MODEL (app_label.ModelName): JSON Lines of DynamoDB JSON items, or CSV "
        "with a header of attribute names. New items are added only if their key is free, "
        "changed ones only if still as read; a file with a refused row writes nothing unless "
        "--skip-refused. Running it again after an interruption writes only what is left."
    )

    def add_arguments(self, parser):
        parser.add_argument("model", help="app_label.ModelName, as registered in the admin")
        parser.add_argument("file", help="A .jsonl or .csv file")
        parser.add_argument("--format", choices=("jsonl", "csv"), help="Default: by extension.")
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
        kind = options["format"] or ("csv" if path.suffix.lower() == ".csv" else "jsonl")
        model = model_admin.model

        def rows():
            with path.open(encoding="utf-8", newline="") as text:
                records = read_csv(model_admin, text) if kind == "csv" else read_jsonl(model, text)
                yield from plan(model, records)

        try:
            counts = {NEW: 0, CHANGED: 0, UNCHANGED: 0, REFUSED: 0}
            total = 0
            with Progress(self.stdout, self.count_lines(path), "Planning", "rows") as progress:
                for row in rows():
                    counts[row.status] += 1
                    total += 1
                    progress.update(1)
                    if row.status == REFUSED:
                        self.stdout.write(f"line {row.line}: refused: {row.message}")
            if options["dry_run"]:
                self.stdout.write(self.summary("Would import", counts))
                return
            if counts[REFUSED] and not options["skip_refused"]:
                raise CommandError(
                    f"{counts[REFUSED]} rows refused (listed above): nothing written. Fix them "
                    "or run again with --skip-refused."
                )
            with Progress(self.stdout, total, "Importing", "rows") as progress:
                done = run(
                    rows(),
                    options["user"],
                    skip_refused=True,
                    on_row=lambda row, outcome: self.on_row(row, outcome, progress),
                )
        except (BadFile, UnicodeDecodeError) as exc:
            raise CommandError(f"{path}: {exc}") from exc
        lost = f", {done['lost']} changed by someone else meanwhile (not written)"
        self.stdout.write(self.summary("Imported", done) + (lost if done["lost"] else ""))
        if done["lost"]:
            raise CommandError(f"{done['lost']} rows changed meanwhile: run the import again.")

    def on_row(self, row, outcome: str, progress: Progress) -> None:
        progress.update(1)
        if outcome == "lost":
            self.stdout.write(f"line {row.line}: {row.label} changed meanwhile: not written")

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
