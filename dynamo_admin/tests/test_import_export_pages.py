"""The export and import pages under a model's admin URL, as staff use them."""

from __future__ import annotations

import re

from django.core.files.uploadedfile import SimpleUploadedFile
from library.models import Book

from dynamo_admin.models import AdminLog

BOOKS = "/admin/library/book/"
CSV_HEADER = "shelf,isbn,title,genre,copies\n"


def upload(client, text: str, name: str = "books.csv"):
    return client.post(f"{BOOKS}import/", {"file": SimpleUploadedFile(name, text.encode())})


def payload_of(page: str) -> str:
    return re.search(r'name="payload" value="([^"]+)"', page).group(1)


def test_the_listing_links_to_an_export_keeping_its_search(librarian, fiction):
    page = librarian.get(BOOKS, {"q": "F1"}).content.decode()

    assert f'href="{BOOKS}export/?q=F1"' in page
    assert f'href="{BOOKS}import/"' in page


def test_a_csv_export_holds_exactly_the_listed_rows(librarian, fiction):
    Book("F2", "9780000000009", title="Elsewhere", genre="Poetry").save()

    response = librarian.get(f"{BOOKS}export/", {"q": "F1", "format": "csv"})

    text = b"".join(response.streaming_content).decode()
    assert response["Content-Type"] == "text/csv"
    assert text.splitlines() == [
        "shelf,isbn,title,genre,copies",
        "F1,9780140449136,Crime and Punishment,Fiction,2",
        "F1,9780141439518,Pride and Prejudice,Fiction,1",
    ]


def test_the_export_page_says_what_it_reads_before_it_runs(librarian, fiction):
    page = librarian.get(f"{BOOKS}export/", {"q": "F1"}).content.decode()

    assert "read units for a whole read" in page
    assert 'name="q" value="F1"' in page and 'name="format" value="jsonl"' in page


def test_an_import_previews_every_row_and_writes_nothing_before_confirming(librarian, fiction):
    response = upload(
        librarian,
        CSV_HEADER
        + "F1,9780140449136,Crime and Punishment,Fiction,2\n"
        + "F1,9780141439518,Pride and Prejudice,Fiction,3\n"
        + "F1,9780000000001,Emma,Fiction,1\n"
        + "F1,9780000000002,Odd,Cookery,1\n",
    )

    page = response.content.decode()
    assert "1 new, 1 changed, 1 unchanged, 1 refused" in page
    assert "copies: 1 → 3" in page
    assert "genre:" in page and "<td>5</td>" in page  # the refused row's line and message
    assert Book.get_or_none("F1", "9780000000001") is None
    assert Book.get("F1", "9780141439518").copies == 1

    refused = librarian.post(f"{BOOKS}import/", {"payload": payload_of(page)})
    assert "1 refused" in refused.content.decode()  # shown again: nothing written
    assert Book.get_or_none("F1", "9780000000001") is None

    confirmed = librarian.post(
        f"{BOOKS}import/", {"payload": payload_of(page), "skip_refused": "on"}, follow=True
    )

    assert "1 new, 1 changed, 1 unchanged, 1 refused" in confirmed.content.decode()
    assert Book.get("F1", "9780141439518").copies == 3
    assert Book.get("F1", "9780000000001").title == "Emma"
    assert Book.get_or_none("F1", "9780000000002") is None
    assert [e.action for e in AdminLog.history(Book.get("F1", "9780000000001"))] == ["add"]


def test_a_row_changed_after_the_preview_is_reported_and_kept(librarian, fiction):
    page = upload(librarian, CSV_HEADER + "F1,9780141439518,Pride and Prejudice,Fiction,3\n")
    theirs = Book.get("F1", "9780141439518")
    theirs.copies = 7
    theirs.save()

    confirmed = librarian.post(
        f"{BOOKS}import/", {"payload": payload_of(page.content.decode())}, follow=True
    )

    assert "changed by someone else since the preview" in confirmed.content.decode()
    assert Book.get("F1", "9780141439518").copies == 7


def test_an_altered_preview_is_refused(librarian, fiction):
    response = librarian.post(f"{BOOKS}import/", {"payload": "forged"})

    assert response.status_code == 400


def test_a_file_too_big_for_a_page_names_the_command(librarian, fiction, monkeypatch):
    from library.admin import BookAdmin

    monkeypatch.setattr(BookAdmin, "max_import_rows", 1)
    page = upload(librarian, CSV_HEADER + "F1,1,A,Fiction,1\nF1,2,B,Fiction,1\n")

    assert "python manage.py import_items library.Book" in page.content.decode()


def test_a_viewer_sees_no_import_and_is_refused_at_its_url(reader, fiction):
    page = reader.get(BOOKS).content.decode()

    assert f"{BOOKS}import/" not in page
    assert reader.get(f"{BOOKS}import/").status_code == 403
    assert upload(reader, CSV_HEADER).status_code == 403


def test_a_user_who_may_only_change_has_new_rows_refused(db, dynamo, fiction):
    from .conftest import logged_in, staff

    editor = logged_in(staff("ed", "library.view_book", "library.change_book"))

    page = upload(editor, CSV_HEADER + "F1,9780000000001,Emma,Fiction,1\n").content.decode()

    assert "You may not add books." in page


def test_a_user_without_the_view_permission_is_refused_the_export(db, dynamo, fiction):
    from .conftest import logged_in, staff

    stranger = logged_in(staff("sue", "library.view_shelf"))

    assert stranger.get(f"{BOOKS}export/", {"format": "csv"}).status_code == 403
    assert stranger.get(f"{BOOKS}import/").status_code == 403
