"""The changelist over the library: one DynamoDB call a page, cursor links, key search, filters."""

from __future__ import annotations

import html
import re

import pytest
from library.admin import BookAdmin
from library.models import Book

from dynamo.batch import batch_put

from .conftest import calls

BOOKS = "/admin/library/book/"


@pytest.fixture
def stacks(dynamo, monkeypatch) -> list[Book]:
    """Seven books on two shelves, three to a changelist page."""
    monkeypatch.setattr(BookAdmin, "list_per_page", 3)
    books = [
        Book("A1", f"isbn-{n}", title=f"Atlas {n}", genre="Science" if n % 2 else "History")
        for n in range(4)
    ] + [Book("B2", f"isbn-{n}", title=f"Ballads {n}", genre="Poetry") for n in range(3)]
    batch_put(Book, books)
    return books


def listed(response) -> list[str]:
    """Return the object ids of the rows a changelist shows, in order."""
    return re.findall(r'name="_selected_action" value="([^"]*)"', response.content.decode())


def next_link(response) -> str | None:
    match = re.search(r'<a href="([^"]*)" rel="next"', response.content.decode())
    return None if match is None else BOOKS + html.unescape(match.group(1))


def test_paging_through_the_table_takes_one_call_a_page_and_shows_every_book_once(
    librarian, stacks
):
    pages, url = [], BOOKS
    while url is not None:
        response = librarian.get(url)
        assert response.status_code == 200
        assert calls(response) == 1  # one limited Scan, whatever the page
        pages.append(listed(response))
        url = next_link(response)

    shown = [oid for page in pages for oid in page]
    assert [len(page) for page in pages] == [3, 3, 1]
    assert sorted(shown) == sorted(f"{b.shelf},{b.isbn}" for b in stacks)
    assert "cursor=" in next_link(librarian.get(BOOKS))


def test_searching_by_the_hash_key_lists_that_shelf_in_one_query(librarian, stacks):
    response = librarian.get(BOOKS, {"q": "B2"})

    assert listed(response) == ["B2,isbn-0", "B2,isbn-1", "B2,isbn-2"]
    assert response.wsgi_request.dynamo_meter.count_of("Query") == calls(response) == 1


def test_searching_shelves_by_code_is_one_get_item(librarian, fiction):
    response = librarian.get("/admin/library/shelf/", {"q": "F1"})

    assert listed(response) == ["F1"]
    assert response.wsgi_request.dynamo_meter.count_of("GetItem") == calls(response) == 1


def test_the_genre_filter_is_one_query_on_its_index_in_title_order(librarian, stacks):
    response = librarian.get(BOOKS, {"genre": "Science"})

    assert listed(response) == ["A1,isbn-1", "A1,isbn-3"]  # Atlas 1, Atlas 3
    assert response.wsgi_request.dynamo_meter.count_of("Query") == calls(response) == 1


def test_the_search_help_says_in_words_what_a_search_finds(librarian, fiction):
    page = librarian.get("/admin/library/book/").content.decode()

    assert "Finds by the exact shelf or the start of the isbn." in page
    assert "=shelf" not in page
