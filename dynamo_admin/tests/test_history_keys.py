"""History keys: no key value can make one item's History another's, and legacy keys still read.

Tables made elsewhere hold '/' in keys, so ("A/B", "C") and ("A", "B/C") are two books whose
values, '/'-joined as the log once wrote them, made one key.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta, timezone
from io import StringIO

import pytest
from django.contrib.admin.utils import quote
from django.core.management import call_command
from django.urls import reverse
from library.models import Book, Shelf

from dynamo_admin.keys import object_id
from dynamo_admin.models import (
    AdminLog,
    item_keyed_by,
    legacy_object_key_for,
    object_key_for,
    object_partition_of,
)

from .conftest import calls
from .samples.styles import Reading

AB_C, A_BC = ("A/B", "C"), ("A", "B/C")
ODD_KEYS = ["a:b", "x/y", 'say "hi"', "l'été/ü", "50%", "100%2F", "%25/%", "/", "1/2/3"]


def book(shelf: str, isbn: str) -> Book:
    stored = Book(shelf, isbn, title=f"{shelf} {isbn}", genre="Fiction")
    stored.save()
    return stored


def history_url(item) -> str:
    return f"/admin/library/{type(item).__name__.lower()}/{object_id(item)}/history/"


def logged_legacy(item, user: str, changes: dict, partition: bool = True) -> AdminLog:
    """Write an entry as the log wrote it before values were escaped (without a partition
    when it predates gsi_object_partition)."""
    entry = AdminLog.entry_for(item, "change", user, changes)
    entry.object_key = legacy_object_key_for(item)
    if not partition:
        entry.object_partition = None
    entry.save()
    return entry


def test_two_books_whose_values_join_alike_each_have_their_own_history(librarian):
    ab_c, a_bc = book(*AB_C), book(*A_BC)
    AdminLog.record(ab_c, "change", "ann", {"title": ["x", "y"]})
    AdminLog.record(a_bc, "change", "bob", {"title": ["p", "q"]})

    first = librarian.get(history_url(ab_c)).content.decode()
    second = librarian.get(history_url(a_bc)).content.decode()

    assert object_key_for(ab_c) != object_key_for(a_bc)
    assert [e.user for e in AdminLog.history(ab_c)] == ["ann"]
    assert [e.user for e in AdminLog.history(a_bc)] == ["bob"]
    assert "<td>ann</td>" in first and "<td>bob</td>" not in first
    assert "<td>bob</td>" in second and "<td>ann</td>" not in second


def test_deleting_one_book_leaves_the_other_books_logged_values(librarian):
    ab_c, a_bc = book(*AB_C), book(*A_BC)
    AdminLog.record(ab_c, "change", "ann", {"title": ["x", "y"]})
    AdminLog.record(a_bc, "change", "bob", {"title": ["p", "q"]})

    response = librarian.post(f"/admin/library/book/{object_id(a_bc)}/delete/", {"version": "1"})

    assert response.status_code == 302
    assert Book.get_or_none(*A_BC) is None
    # The deleted book's values are forgotten; the other book's, under a key that was once
    # the same, are not.
    assert AdminLog.history(ab_c)[0].changes == {"title": ["x", "y"]}
    [change] = [e for e in AdminLog.history(Book(*A_BC)) if e.action == "change"]
    assert change.changes == {"title": [None, None]}


def test_an_entry_logged_before_values_were_escaped_stays_on_its_items_history(librarian):
    ab_c, a_bc = book(*AB_C), book(*A_BC)
    logged_legacy(ab_c, "old-ann", {"title": ["x", "y"]})
    logged_legacy(a_bc, "old-bob", {"title": ["p", "q"]})
    AdminLog.record(ab_c, "change", "ann", {"title": ["y", "z"]})

    response = librarian.get(history_url(ab_c))

    page = response.content.decode()
    assert page.index("<td>ann</td>") < page.index("<td>old-ann</td>")
    # Both legacy entries share one key: the partition each kept says whose it is.
    assert "old-bob" not in page
    assert [e.user for e in AdminLog.history(a_bc)] == ["old-bob"]
    assert calls(response) == 2  # the item's key, then its legacy key


def test_forgetting_a_book_blanks_its_legacy_entries_and_not_the_others(dynamo):
    ab_c, a_bc = book(*AB_C), book(*A_BC)
    logged_legacy(ab_c, "old-ann", {"title": ["x", "y"]})
    logged_legacy(a_bc, "old-bob", {"title": ["p", "q"]})

    AdminLog.forget(object_key_for(a_bc))

    assert AdminLog.history(ab_c)[0].changes == {"title": ["x", "y"]}
    assert AdminLog.history(a_bc)[0].changes == {"title": [None, None]}


def test_a_shelfs_legacy_entry_is_its_own_not_a_books(librarian):
    shelf = Shelf("S/1", name="Slashed")
    shelf.save()
    logged_legacy(shelf, "old-ann", {"name": ["Old", "Slashed"]}, partition=False)

    page = librarian.get(history_url(shelf)).content.decode()

    assert "<td>old-ann</td>" in page
    assert '<td class="action-change">Changed name.</td>' in page  # not a book row's words


def test_an_item_whose_key_reads_the_same_both_ways_costs_one_query(librarian, fiction):
    logged_legacy(fiction, "old-ann", {"name": ["Old", "Fiction"]})

    response = librarian.get(history_url(fiction))

    assert "<td>old-ann</td>" in response.content.decode()
    assert object_key_for(fiction) == legacy_object_key_for(fiction) == "library.shelf:F1"
    assert calls(response) == 1 + 1  # its key, and its books' entries on gsi_object_partition


@pytest.mark.parametrize("value", ODD_KEYS)
def test_odd_key_values_come_back_from_their_log_key(value):
    shelf, range_keyed = Shelf(value), Book(value, value)

    assert pk(item_keyed_by(object_key_for(shelf))) == (value,)
    assert pk(item_keyed_by(object_key_for(range_keyed))) == (value, value)


def test_no_two_odd_keys_share_a_log_key():
    books = [Book(shelf, isbn) for shelf in ODD_KEYS for isbn in ODD_KEYS]

    assert len({object_key_for(b) for b in books}) == len(books)


def pk(item) -> tuple:
    return (item.code,) if isinstance(item, Shelf) else (item.shelf, item.isbn)


def test_a_number_and_a_date_key_are_logged_as_stored_whatever_their_type_or_zone():
    taken = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    paris = taken.astimezone(timezone(timedelta(hours=1)))

    key = object_key_for(Reading(4.25, taken))

    assert key == "samples.reading:4.25/2026-03-01T09:30:00.000000+0000"
    assert object_key_for(Reading(2.0, paris)) == object_key_for(Reading(2, taken))
    assert object_key_for(Reading(1e-7, taken)).startswith("samples.reading:0.0000001/")
    entry = AdminLog.entry_for(Reading(4.25, taken), "change", "ann")
    assert entry.get_admin_url() == (
        f"/admin/samples/reading/{quote('4.25')},{quote(Reading.taken.serialize(taken))}/change/"
    )


def test_a_legacy_date_key_still_links_to_its_change_page():
    taken = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
    entry = AdminLog.entry_for(Reading(4.25, taken), "change", "ann")
    entry.object_key = legacy_object_key_for(Reading(4.25, taken))

    assert entry.object_key == "samples.reading:4.25/2026-03-01 09:30:00+00:00"
    assert entry.get_admin_url() == (
        f"/admin/samples/reading/{quote('4.25')},{quote(Reading.taken.serialize(taken))}/change/"
    )


def change_links(page: str) -> list[str]:
    links = re.findall(r'<a href="(/admin/library/book/[^"]*/change/)">', page)
    return [html.unescape(link) for link in links]


def change_url(item: Book) -> str:
    return reverse("admin:library_book_change", args=[object_id(item)])


def test_recent_actions_link_to_books_whose_keys_hold_slashes_colons_and_quotes(librarian):
    books = [book(*AB_C), book(*A_BC), book('a:"b"', "c'd/é")]
    for item in books:
        AdminLog.record(item, "change", "lena", {"title": ["x", "y"]})

    page = librarian.get("/admin/").content.decode()

    module = page.split('id="recent-actions-module"')[1]
    links = change_links(module)
    assert sorted(links) == sorted(change_url(b) for b in books)
    for link, item in zip(links, books[::-1], strict=True):  # newest first
        assert html.escape(item.title) in librarian.get(link).content.decode()


def test_the_log_links_legacy_and_escaped_entries_to_their_books(librarian):
    ab_c, a_bc = book(*AB_C), book(*A_BC)
    logged_legacy(ab_c, "old-ann", {"title": ["x", "y"]})
    logged_legacy(a_bc, "old-bob", {"title": ["p", "q"]})
    escaped = AdminLog.record(a_bc, "change", "bob", {"title": ["q", "r"]})

    listing = librarian.get("/admin/dynamo_admin/adminlog/", {"q": "library.book:A/B/C"})
    entry = librarian.get(
        f"/admin/dynamo_admin/adminlog/{quote(escaped.object_key)},{quote(escaped.logged_at)}/change/"
    )

    assert sorted(change_links(listing.content.decode())) == [
        f"/admin/library/book/{object_id(a_bc)}/change/",
        f"/admin/library/book/{object_id(ab_c)}/change/",
    ]
    assert change_links(entry.content.decode()) == [
        f"/admin/library/book/{object_id(a_bc)}/change/"
    ]


def test_an_escaped_key_that_is_another_items_legacy_key_links_by_its_partition():
    # A shelf once coded "a%2Fb" (as written) logged "library.shelf:a%2Fb", today the key of "a/b".
    entry = AdminLog.entry_for(Shelf("a%2Fb"), "change", "ann")
    entry.object_key = legacy_object_key_for(Shelf("a%2Fb"))

    assert entry.object_key == object_key_for(Shelf("a/b"))
    assert entry.get_admin_url() == f"/admin/library/shelf/{quote('a%2Fb')}/change/"


def test_backfilled_partitions_read_keys_as_written_before_values_were_escaped(dynamo):
    # Read as an escaped key, "library.book:50%2F/9" would name the book ("50/", "9").
    legacy = logged_legacy(Book("50%2F", "9"), "ann", {}, partition=False)

    call_command("backfill_log_partitions", stdout=StringIO())

    assert AdminLog.get(legacy.object_key, legacy.logged_at).object_partition == "50%2F"
    assert object_partition_of(object_key_for(Book("50/", "9"))) == "50/"
