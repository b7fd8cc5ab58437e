"""Every listing complete: paging a changelist to its end shows each matching book once, in order.

With its genres as the partitions of gsi_genre (get_index_partitions), the books' changelist
sorts by title through a merge of every genre's Query. A model of the table (the books written)
says what each listing must show; Hypothesis draws books with few titles and many ties, a page
size and one of the listings: the Scan, every genre by title (both ways), one genre by title,
one shelf by ISBN (both ways) and one shelf narrowed to a genre.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from urllib.parse import urlencode

import pytest
from django.contrib.auth.models import User as StaffUser
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from library.admin import BookAdmin
from library.models import GENRES, Book

from dynamo import tables
from dynamo.batch import batch_delete, batch_put
from dynamo.models import configure

from .budget import examples
from .conftest import calls, logged_in
from .engines import ENGINES, tables_dropped_after

BOOKS = "/admin/library/book/"
ISBN, TITLE = 1, 2  # their places in BookAdmin.list_display: `?o=2` sorts by title
SHELVES = ("A1", "B2")
TITLES = ("Atlas", "Same", "same")  # few titles: most books tie with others


@pytest.fixture
def merged(monkeypatch) -> None:
    """Sort books by title across genres: gsi_genre's partitions are the genres."""
    monkeypatch.setattr(BookAdmin, "get_index_partitions", lambda self, request, index: GENRES)


def listed(response) -> list[str]:
    """Return the object ids (`shelf,isbn`) of the rows a changelist shows, in order."""
    return re.findall(r'name="_selected_action" value="([^"]*)"', response.content.decode())


def link(response, rel: str) -> str | None:
    match = re.search(rf'<a href="([^"]*)" rel="{rel}"', response.content.decode())
    return None if match is None else BOOKS + html.unescape(match.group(1))


def walk(client, params: dict[str, str], most: int) -> list:
    """Follow Next from the first page to the last; return each page's response."""
    responses, url = [], f"{BOOKS}?{urlencode(params)}"
    while url is not None:
        assert len(responses) < most, "Next never ends"
        responses.append(client.get(url))
        assert responses[-1].status_code == 200
        url = link(responses[-1], "next")
    return responses


def expected(books: list[Book], params: dict[str, str]) -> tuple[list[Book], str | None, bool]:
    """Return the books a listing shows, the attribute it lists them by, and whether ascending."""
    shown = [
        b
        for b in books
        if b.shelf == params.get("q", b.shelf) and b.genre == params.get("genre", b.genre)
    ]
    order = params.get("o", "")
    if "q" in params:  # a Query of one shelf: by ISBN, its sort key
        return shown, "isbn", order != f"-{ISBN}"
    if order:
        return shown, "title", order == str(TITLE)
    return shown, None, True  # the Scan


BY_TITLE, BY_ISBN = [str(TITLE), f"-{TITLE}"], [str(ISBN), f"-{ISBN}"]
listings = st.one_of(
    st.just({}),  # the Scan
    st.just({"o": str(TITLE)}),  # every genre merged by title
    st.just({"o": f"-{TITLE}"}),
    st.fixed_dictionaries({"genre": st.sampled_from(GENRES), "o": st.sampled_from(BY_TITLE)}),
    st.fixed_dictionaries({"q": st.sampled_from(SHELVES), "o": st.sampled_from(BY_ISBN)}),
    st.fixed_dictionaries({"q": st.sampled_from(SHELVES), "genre": st.sampled_from(GENRES)}),
)
book = st.tuples(st.sampled_from(SHELVES), st.sampled_from(TITLES), st.sampled_from(GENRES[:2]))
# Up to 60 books (a count drawn first: Hypothesis keeps plain lists short), over 3 titles;
# each book's ISBN is its place in the list.
books_drawn = st.integers(0, 60).flatmap(lambda n: st.lists(book, min_size=n, max_size=n))


@settings(
    max_examples=examples(25),
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(drawn=books_drawn, per_page=st.integers(1, 15), params=listings)
def test_paging_to_the_end_shows_every_matching_book_once_in_order(
    librarian, merged, monkeypatch, drawn, per_page, params
):
    batch_delete(Book, Book.scan())  # each example starts from an empty table
    books = [Book(s, f"{n:03d}", title=t, genre=g) for n, (s, t, g) in enumerate(drawn)]
    batch_put(Book, books)
    monkeypatch.setattr(BookAdmin, "list_per_page", per_page)

    found = [listed(page) for page in walk(librarian, params, most=len(books) + 2)]

    shown = [oid for page in found for oid in page]
    wanted, by, ascending = expected(books, params)
    assert sorted(shown) == sorted(f"{b.shelf},{b.isbn}" for b in wanted)  # each once
    if by is not None:
        values = {f"{b.shelf},{b.isbn}": getattr(b, by) for b in books}
        assert [values[oid] for oid in shown] == sorted(
            (getattr(b, by) for b in wanted), reverse=not ascending
        )
    if "q" in params and "genre" in params:  # a filter expression: a page may show fewer
        assert all(len(page) <= per_page for page in found)
    else:  # every page full but the last, which is empty only when the listing is
        assert all(len(page) == per_page for page in found[:-1])
        assert found[-1] or len(found) == 1


@pytest.fixture(params=ENGINES)
def engine_client(request, db) -> Iterator[Client]:
    """A superuser's client over the library's tables on moto, then on DynamoDB Local."""
    if request.param == "moto":
        request.getfixturevalue("dynamo")
        yield logged_in(StaffUser.objects.create_superuser("lena", "lena@example.com", "pw"))
        return
    engine = request.getfixturevalue("dynamodb_local")
    with tables_dropped_after(engine):
        configure(endpoint=engine.endpoint, region="us-east-1")
        try:
            for model in tables.all_models():
                tables.create_missing(model)
            yield logged_in(StaffUser.objects.create_superuser("lena", "lena@example.com", "pw"))
        finally:
            configure(endpoint=None, region="us-east-1")


@pytest.mark.parametrize("order", [str(TITLE), f"-{TITLE}"])
def test_65_books_of_one_title_over_two_genres_take_7_pages_of_10(
    engine_client, merged, monkeypatch, order
):
    monkeypatch.setattr(BookAdmin, "list_per_page", 10)
    # Each genre on both shelves: the merge breaks the ties by the table's key, across genres.
    books = [
        Book(SHELVES[n // 2 % 2], f"{n:03d}", title="Same", genre=GENRES[n % 2]) for n in range(65)
    ]
    batch_put(Book, books)

    responses = walk(engine_client, {"o": order}, most=10)

    # Reported: 2 pages, 17 books and no Next, the merge stuck on the tied title.
    found = [listed(page) for page in responses]
    assert [len(page) for page in found] == [10] * 6 + [5]
    # One Query a genre on the first page; the two empty ones are not read again.
    assert calls(responses[0]) == 4
    assert all(calls(page) <= 2 for page in responses[1:])
    shown = [oid for page in found for oid in page]
    assert sorted(shown) == sorted(f"{b.shelf},{b.isbn}" for b in books)

    # Previous from the last page shows the same pages again, back to the first.
    response = engine_client.get(BOOKS + f"?o={order}")
    for _ in range(6):
        response = engine_client.get(link(response, "next"))
    back = [listed(response)]
    while (previous := link(response, "prev")) is not None:
        response = engine_client.get(previous)
        back.append(listed(response))
    assert back[::-1] == found


def test_a_deep_link_stays_short_enough_for_a_request_line():
    """Each partition's place makes a merge's keys long: the oldest earlier pages give way."""
    from hashlib import sha256

    from dynamo_admin.pagination import MAX_TOKEN_CHARS, Position, decode, encode

    def key(n: int) -> dict:  # keys that do not compress: each partition's own place
        return {
            f"p{g}": {"M": {"id": {"S": sha256(f"{n}/{g}".encode()).hexdigest()}}} for g in range(4)
        }

    position = Position()
    for n in range(1, 60):
        position = position.next(key(n))
        token = encode(position, "merge-places:test")
        assert len(token) <= MAX_TOKEN_CHARS
        position = decode(token, "merge-places:test")

    assert position.start == key(59)
    assert position.previous().start == key(58)  # the nearest earlier page is kept
