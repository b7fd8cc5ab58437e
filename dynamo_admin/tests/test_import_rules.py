"""An import saves each row as the change page saves it; hostile files are refused in words."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib import admin
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from library.admin import BookAdmin
from library.models import Book
from pynamodb.attributes import BooleanAttribute, UnicodeAttribute
from pynamodb.models import Model

from dynamo_admin.csvfiles import csv_lines, escaped, read_rows, unescaped
from dynamo_admin.exports import ended
from dynamo_admin.forms import DateTimeField
from dynamo_admin.imports import REFUSED, Importer, command_request, csv_records, posted
from dynamo_admin.management.commands.export_items import Command as ExportCommand
from dynamo_admin.models import AdminLog

from .budget import examples

HOSTILE_FILES = {
    "ragged.csv": "shelf,isbn,title\nF1,1\nF1,2,T,extra\n",
    "nul.csv": "shelf,isbn,title\nF1,9780140449136,Cr\x00me\n",
    "bom.csv": "\ufeffshelf,isbn,copies\nF1,9780140449136,2\n",
    "deep.jsonl": "[" * 2000 + "]" * 2000 + "\n",
    "scalars.jsonl": '1\n"text"\nnull\n[]\n{"shelf": "F1"}\n',
    "types.jsonl": '{"shelf": {"N": "1"}, "isbn": {"S": "1"}, "copies": {"S": "many"}}\n',
    "bad_key.csv": "shelf,isbn,copies\nF1,,1\n",
    "not_utf8.csv": None,
}


def book_admin(**options):
    return type("Admin", (BookAdmin,), options)(Book, admin.site)


def test_an_import_never_writes_a_field_the_admin_shows_read_only(fiction):
    importer = Importer(book_admin(readonly_fields=("copies",)), command_request("ann"))
    records = csv_records(Book, StringIO("shelf,isbn,copies\nF1,9780140449136,99\n"))

    [row] = list(importer.rows(records, commit=True))

    assert row.status == REFUSED and row.message.startswith("copies: read-only here")
    assert Book.get("F1", "9780140449136").copies == 2


def test_a_read_only_field_as_exported_imports_unchanged(fiction, tmp_path):
    path = tmp_path / "books.csv"
    call_command(
        "export_items", "library.Book", "--format", "csv", "-o", str(path), stdout=StringIO()
    )
    importer = Importer(book_admin(readonly_fields=("copies",)), command_request("ann"))

    rows = list(importer.rows(csv_records(Book, path.open(newline="")), commit=True))

    assert [row.status for row in rows] == ["unchanged", "unchanged"]


@pytest.mark.parametrize("name", sorted(HOSTILE_FILES))
def test_a_hostile_file_is_refused_in_words_and_writes_nothing(fiction, librarian, tmp_path, name):
    text = HOSTILE_FILES[name]
    data = b"\xff\xfe bad" if text is None else text.encode()
    path = tmp_path / name
    path.write_bytes(data)
    before = sorted(json.dumps(b.serialize(), sort_keys=True) for b in Book.scan())

    try:
        call_command("import_items", "library.Book", str(path), stdout=StringIO())
    except CommandError as exc:
        assert "\n" not in str(exc)  # one line, never a traceback
    from django.core.files.uploadedfile import SimpleUploadedFile

    page = librarian.post("/admin/library/book/import/", {"file": SimpleUploadedFile(name, data)})

    assert page.status_code == 200
    assert sorted(json.dumps(b.serialize(), sort_keys=True) for b in Book.scan()) == before


def test_a_unicode_line_separator_stays_inside_its_cell(fiction):
    rows = list(read_rows(StringIO("a,b\nx\u2028y,z\n", newline="")))

    assert rows == [(1, ["a", "b"]), (2, ["x\u2028y", "z"])]


@given(st.text(max_size=20))
@settings(max_examples=examples(200), deadline=None)
def test_a_cell_escaped_for_spreadsheets_reads_back_as_it_was(cell):
    assert unescaped(escaped(cell)) == cell
    if escaped(cell)[:1] in ("=", "+", "@", "\t", "\r"):
        pytest.fail(f"{cell!r} would run as a formula")


def test_a_formula_is_written_as_text_unless_asked(fiction):
    row = ['=HYPERLINK("http://x")', "-12", "-x", "@me", "plain"]

    assert list(csv_lines([row])) == ['"\'=HYPERLINK(""http://x"")",-12,\'-x,\'@me,plain\r\n']
    assert next(csv_lines([row], escape=False)).startswith('"=HYPERLINK')


def test_a_time_with_an_offset_is_taken_as_written(settings):
    settings.TIME_ZONE = "Europe/Paris"
    field = DateTimeField(required=False)

    value = field.clean(list(posted(field, "when", "2025-07-14T10:00:00+05:00").values()))

    assert value.isoformat() == "2025-07-14T05:00:00+00:00"


def test_a_where_is_typed_by_its_attribute():
    class Paper(Model):
        class Meta:
            table_name = "papers"

        title = UnicodeAttribute(hash_key=True)
        in_publication = BooleanAttribute(null=True)

    condition = ExportCommand().condition(Paper, ["in_publication=false"])
    names, values = {}, {}
    condition.serialize(names, values)

    assert list(values.values()) == [{"BOOL": False}]
    with pytest.raises(CommandError, match="expected true or false"):
        ExportCommand().condition(Paper, ["in_publication=nope"])


def test_an_export_that_fails_part_way_says_so_in_its_last_line():
    def lines():
        yield "a\n"
        raise ConnectionError("engine gone")

    out = []
    with pytest.raises(ConnectionError):
        for line in ended(lines(), "jsonl"):
            out.append(line)

    assert out[0] == "a\n" and "EXPORT INCOMPLETE" in json.loads(out[1])["error"]


def test_an_undeclared_attribute_is_never_reported_changed_nor_written(fiction, tmp_path):
    path = tmp_path / "books.jsonl"
    book = Book.get("F1", "9780140449136").serialize()
    path.write_text(json.dumps({**{k: v for k, v in book.items()}, "note": {"S": "hello"}}) + "\n")
    version = Book.get("F1", "9780140449136").version

    with pytest.raises(CommandError, match="1 rows refused"):
        call_command("import_items", "library.Book", str(path), stdout=(out := StringIO()))

    assert "note: not an attribute of the model" in out.getvalue()
    assert Book.get("F1", "9780140449136").version == version
    assert AdminLog.history(Book.get("F1", "9780140449136")) == []


def test_a_preview_expires_and_is_bound_to_its_user(fiction, librarian, settings):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from .conftest import logged_in, staff

    file = SimpleUploadedFile("b.csv", b"shelf,isbn,copies\nF1,9780140449136,5\n")
    page = librarian.post("/admin/library/book/import/", {"file": file}).content.decode()
    payload = page.split('name="payload" value="')[1].split('"')[0]
    other = logged_in(staff("olga", "library.change_book", "library.view_book"))

    assert other.post("/admin/library/book/import/", {"payload": payload}).status_code == 400
    settings.DYNAMO_ADMIN_IMPORT_PREVIEW_SECONDS = -1
    assert librarian.post("/admin/library/book/import/", {"payload": payload}).status_code == 400
    assert Book.get("F1", "9780140449136").copies == 2


@settings(
    max_examples=examples(30),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(st.text(alphabet=st.characters(codec="utf-8"), max_size=8), min_size=1, max_size=6))
def test_generated_csv_rows_never_raise_past_the_importer(fiction, cells):
    importer = Importer(book_admin(), command_request("ann"))
    text = "shelf,isbn,copies\n" + ",".join(json.dumps(c) for c in cells) + "\n"

    try:
        rows = list(importer.rows(csv_records(Book, StringIO(text, newline=""))))
    except ValueError as exc:  # BadFile: the whole file, in words
        assert str(exc)
    else:
        assert all(row.status in ("new", "changed", "unchanged", "refused") for row in rows)


def test_a_row_this_user_may_not_write_is_not_written_when_the_others_are(db, fiction):
    """--skip-refused writes the rows the user may write, never the refused one."""
    from .conftest import logged_in, staff

    editor = logged_in(staff("ed", "library.view_book", "library.change_book"))
    text = (
        "shelf,isbn,title,genre,copies\n"
        "F1,9780140449136,Crime and Punishment,Fiction,5\n"
        "F1,9780000000001,Emma,Fiction,1\n"
    )
    file = SimpleUploadedFile("b.csv", text.encode())
    page = editor.post("/admin/library/book/import/", {"file": file}).content.decode()
    payload = page.split('name="payload" value="')[1].split('"')[0]

    editor.post("/admin/library/book/import/", {"payload": payload, "skip_refused": "on"})

    assert Book.get("F1", "9780140449136").copies == 5
    assert Book.get_or_none("F1", "9780000000001") is None
