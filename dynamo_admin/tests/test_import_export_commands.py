"""export_items and import_items: items out exactly as stored, in with a plan and conditions."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from library.models import Book, Shelf

from dynamo_admin.imports import LOST, Importer, command_request, stored_digest
from dynamo_admin.models import AdminLog
from dynamo_admin.views import change


@pytest.fixture
def books(dynamo) -> list[Book]:
    Shelf("F1", name="Fiction").save()
    rows = [
        Book("F1", "9780140449136", title="Crime and Punishment", genre="Fiction", copies=2),
        Book("F1", "9780141439518", title="Pride and Prejudice", genre="Fiction", copies=1),
        Book("F1", "9780199535569", title="Persuasion", genre="Fiction", copies=4),
    ]
    for book in rows:
        book.save()
    return rows


def model_admin_of(model):
    from django.contrib import admin

    return admin.site._registry[model]


def raw_items(model) -> list[dict]:
    """Every item of a table as DynamoDB JSON, in key order."""
    client = model._get_connection().connection.client
    items = client.scan(TableName=model.Meta.table_name)["Items"]
    return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def export(tmp_path, *args: str) -> str:
    path = tmp_path / "out"
    call_command("export_items", *args, "-o", str(path), stdout=StringIO())
    return path.read_text()


def without_times(items: list[dict]) -> list[dict]:
    """Items less the times a write stamps (an import adds a new item as the add page does)."""
    return [
        {k: v for k, v in item.items() if k not in ("created_at", "updated_at")} for item in items
    ]


def test_export_then_import_into_an_empty_table_gives_the_same_items(books, tmp_path):
    before = without_times(raw_items(Book))
    (tmp_path / "books.jsonl").write_text(export(tmp_path, "library.Book"))
    for book in Book.scan():
        book.delete()

    out = StringIO()
    call_command("import_items", "library.Book", str(tmp_path / "books.jsonl"), stdout=out)

    assert without_times(raw_items(Book)) == before
    assert "Imported: 3 new, 0 changed, 0 unchanged, 0 refused" in out.getvalue()


def test_export_writes_the_listing_s_columns_as_csv(books, tmp_path):
    text = export(tmp_path, "library.Book", "--format", "csv", "--where", "copies=4")

    assert text.splitlines() == [
        "shelf,isbn,title,genre,copies",
        "F1,9780199535569,Persuasion,Fiction,4",
    ]


def test_a_csv_import_adds_changes_keeps_and_refuses_with_the_line(books, tmp_path):
    path = tmp_path / "books.csv"
    path.write_text(
        "shelf,isbn,title,genre,copies\n"
        "F1,9780140449136,Crime and Punishment,Fiction,2\n"  # unchanged
        "F1,9780141439518,Pride and Prejudice,Fiction,5\n"  # changed
        "F1,9780000000001,Emma,Fiction,1\n"  # new
        "F1,9780000000002,Odd,Cookery,1\n"  # refused: no such genre
    )

    with pytest.raises(CommandError, match="1 rows refused"):
        call_command("import_items", "library.Book", str(path), stdout=StringIO())
    assert Book.get_or_none("F1", "9780000000001") is None  # nothing written

    out = StringIO()
    call_command("import_items", "library.Book", str(path), "--skip-refused", stdout=out)

    assert "line 5: refused: genre:" in out.getvalue()
    assert "Imported: 1 new, 1 changed, 1 unchanged, 1 refused" in out.getvalue()
    assert Book.get("F1", "9780141439518").copies == 5
    assert Book.get("F1", "9780141439518").version == 2
    assert Book.get("F1", "9780000000001").title == "Emma"
    assert Book.get_or_none("F1", "9780000000002") is None
    assert [e.action for e in AdminLog.history(Book.get("F1", "9780141439518"))] == ["change"]


def test_a_dry_run_plans_and_writes_nothing(books, tmp_path):
    path = tmp_path / "books.csv"
    path.write_text("shelf,isbn,title,genre,copies\nF1,9780000000001,Emma,Fiction,1\n")
    out = StringIO()

    call_command("import_items", "library.Book", str(path), "--dry-run", stdout=out)

    assert "Would import: 1 new, 0 changed, 0 unchanged, 0 refused" in out.getvalue()
    assert Book.get_or_none("F1", "9780000000001") is None


def test_an_interrupted_import_run_again_writes_every_row_once(books, tmp_path, monkeypatch):
    path = tmp_path / "books.csv"
    path.write_text(
        "shelf,isbn,title,genre,copies\n"
        + "".join(f"F2,97800000001{n:02d},Book {n},Poetry,1\n" for n in range(6))
    )
    written = []
    real_write = change.write_together

    def dies_on_the_fourth(writes, actor, updates=()):
        if len(written) == 3:
            raise KeyboardInterrupt
        written.append(writes)
        return real_write(writes, actor, updates)

    monkeypatch.setattr(change, "write_together", dies_on_the_fourth)
    with pytest.raises(KeyboardInterrupt):
        call_command("import_items", "library.Book", str(path), stdout=StringIO())
    monkeypatch.setattr(change, "write_together", real_write)

    out = StringIO()
    call_command("import_items", "library.Book", str(path), stdout=out)

    assert "Imported: 3 new, 0 changed, 3 unchanged, 0 refused" in out.getvalue()
    stored = list(Book.query("F2"))
    assert len(stored) == 6 and all(book.version == 1 for book in stored)
    assert all(len(AdminLog.history(book)) == 1 for book in stored)


def test_a_row_changed_by_someone_else_after_the_plan_is_not_written(books):
    importer = Importer(model_admin_of(Book), command_request("ann"))
    records = [(2, {"shelf": "F1", "isbn": "9780140449136", "copies": "9"})]
    [planned] = list(importer.rows(records))
    theirs = Book.get("F1", "9780140449136")
    theirs.copies = 7
    theirs.save()

    [row] = list(importer.rows(records, commit=True, expected={"2": stored_digest(planned.stored)}))

    assert row.status == LOST
    assert Book.get("F1", "9780140449136").copies == 7


def test_a_bad_file_fails_with_one_line(books, tmp_path):
    path = tmp_path / "books.csv"
    path.write_text("shelf,isbn,colour\nF1,1,red\n")

    with pytest.raises(CommandError, match="The header names no attribute of the book: colour"):
        call_command("import_items", "library.Book", str(path), stdout=StringIO())
    with pytest.raises(CommandError, match=r"No model 'library\.Nothing'"):
        call_command("export_items", "library.Nothing", stdout=StringIO())
