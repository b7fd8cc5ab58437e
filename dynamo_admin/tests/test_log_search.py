"""The log searched by a partition value: every entry about items keyed by it, newest first."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from library.models import Book, Shelf

from dynamo_admin.models import AdminLog

from .conftest import calls

LOG = "/admin/dynamo_admin/adminlog/"


def logged(response) -> list[str]:
    """Return the items the log page lists, as their "Model: name" links read, in order."""
    links = r'<a href="/admin/library/[^"]*/change/">([^<]*: [^<]*)</a>'
    return re.findall(links, response.content.decode())


def test_a_shelfs_key_lists_the_entries_of_the_shelf_and_its_books_newest_first(librarian, fiction):
    [pride, crime] = sorted(Book.query("F1"), key=lambda b: b.title, reverse=True)
    for day, item in enumerate([fiction, pride, crime, Shelf("P7", name="Poetry")], start=1):
        AdminLog.record(
            item, "change", "lena", {"name": ["a", "b"]}, datetime(2026, 5, day, tzinfo=UTC)
        )

    response = librarian.get(LOG, {"q": "F1"})

    assert logged(response) == [f"Book: {crime}", f"Book: {pride}", f"Shelf: {fiction}"]
    assert calls(response) == 1


def test_an_entry_keeps_the_partition_of_a_range_keyed_item(fiction):
    book = next(iter(Book.query("F1")))

    entry = AdminLog.record(book, "add", "lena")

    assert AdminLog.get(entry.object_key, entry.logged_at).object_partition == "F1"
