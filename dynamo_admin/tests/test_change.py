"""Adding, changing and deleting through the admin's forms: versions, inlines, history."""

from __future__ import annotations

from library.models import Book, Shelf

from dynamo_admin.models import AdminLog

from .conftest import calls

# The add page's books inline, posted with no rows (Django's management form).
NO_BOOKS = {"book-TOTAL_FORMS": "0", "book-INITIAL_FORMS": "0"}

F1 = "/admin/library/shelf/F1/change/"


def shelf_page(**overrides) -> dict[str, str]:
    """Shelf F1's change form as the page posts it: its two books and one blank row."""
    return {
        "name": "Fiction, ground floor",
        "_version": "1",
        "book-TOTAL_FORMS": "3",
        "book-INITIAL_FORMS": "2",
        "book-MIN_NUM_FORMS": "0",
        "book-MAX_NUM_FORMS": "1000",
        "book-0-_key": "F1,9780140449136",
        "book-0-_version": "1",
        "book-0-title": "Crime and Punishment",
        "book-0-genre": "Fiction",
        "book-0-copies": "2",
        "book-1-_key": "F1,9780141439518",
        "book-1-_version": "1",
        "book-1-title": "Pride and Prejudice",
        "book-1-genre": "Fiction",
        "book-1-copies": "1",
        "book-2-isbn": "",
        "book-2-title": "",
        "book-2-genre": "",
        "book-2-copies": "",
        **overrides,
    }


def test_adding_a_shelf_stores_it_and_logs_the_addition(librarian):
    response = librarian.post(
        "/admin/library/shelf/add/", {"code": "P7", "name": "Poetry", **NO_BOOKS}
    )

    assert response.status_code == 302
    assert response["Location"] == "/admin/library/shelf/"
    stored = Shelf.get("P7")
    assert (stored.name, stored.version) == ("Poetry", 1)
    [entry] = AdminLog.history(stored)
    assert (entry.action, entry.user, entry.changes["name"]) == ("add", "lena", [None, "Poetry"])


def test_the_change_page_shows_the_shelf_and_its_books_in_two_calls(librarian, fiction):
    response = librarian.get(F1)

    page = response.content.decode()
    assert calls(response) == 2  # the shelf's GetItem, its books' Query
    assert 'name="name"' in page and 'name="code"' not in page  # the key is fixed after adding
    assert 'name="book-0-title"' in page and "Crime and Punishment" in page


def test_changing_a_shelf_saves_on_the_version_shown_and_logs_old_and_new(librarian, fiction):
    response = librarian.post(F1, shelf_page(name="Novels"))

    assert response.status_code == 302, response.content.decode()
    stored = Shelf.get("F1")
    assert (stored.name, stored.version) == ("Novels", 2)
    [entry] = AdminLog.history(stored)
    assert (entry.action, entry.user) == ("change", "lena")
    assert entry.changes == {"name": ["Fiction, ground floor", "Novels"]}
    history = librarian.get("/admin/library/shelf/F1/history/").content.decode()
    assert "<td>lena</td>" in history and "Novels" in history


def test_a_stale_save_is_refused_and_changes_nothing(librarian, fiction):
    fiction.name = "Renamed meanwhile"
    fiction.save()  # version 2: the page below was shown at version 1

    response = librarian.post(F1, shelf_page(name="Mine", **{"book-0-copies": "9"}))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Nothing was saved." in page and "Renamed meanwhile" in page
    stored = Shelf.get("F1")
    assert (stored.name, stored.version) == ("Renamed meanwhile", 2)
    assert Book.get("F1", "9780140449136").copies == 2
    assert AdminLog.history(stored) == []


def test_the_shelf_and_its_books_are_written_in_one_transaction(librarian, fiction):
    response = librarian.post(
        F1,
        shelf_page(
            name="Novels",
            **{
                "book-0-copies": "3",
                "book-1-DELETE": "on",
                "book-2-isbn": "9780199535569",
                "book-2-title": "Persuasion",
                "book-2-genre": "Fiction",
                "book-2-copies": "1",
            },
        ),
    )

    assert response.status_code == 302, response.content.decode()
    meter = response.wsgi_request.dynamo_meter
    assert meter.count_of("TransactWriteItems") == 1
    assert meter.count_of("PutItem") == meter.count_of("DeleteItem") == 0
    assert Shelf.get("F1").name == "Novels"
    assert Book.get("F1", "9780140449136").copies == 3
    assert Book.get_or_none("F1", "9780141439518") is None
    assert Book.get("F1", "9780199535569").title == "Persuasion"
    assert [e.action for e in AdminLog.history(Book("F1", "9780199535569"))] == ["add"]


def test_a_bad_book_row_refuses_the_whole_page(librarian, fiction):
    response = librarian.post(F1, shelf_page(name="Novels", **{"book-0-copies": "-1"}))

    assert response.status_code == 200
    assert "Must be between 0 and 1000." in response.content.decode()
    assert Shelf.get("F1").name == "Fiction, ground floor"
    assert Book.get("F1", "9780140449136").copies == 2


def test_a_book_is_edited_at_its_composite_key(librarian, fiction):
    url = "/admin/library/book/F1,9780141439518/change/"
    listing = librarian.get("/admin/library/book/").content.decode()

    response = librarian.post(
        url, {"title": "Pride and Prejudice", "genre": "Fiction", "copies": "4", "_version": "1"}
    )

    assert f'href="{url}"' in listing
    assert response.status_code == 302, response.content.decode()
    assert Book.get("F1", "9780141439518").copies == 4


def test_deleting_a_shelf_deletes_its_books_with_it_and_logs_each(librarian, fiction):
    confirmation = librarian.get("/admin/library/shelf/F1/delete/").content.decode()

    response = librarian.post("/admin/library/shelf/F1/delete/", {"version": "1"})

    assert "Book: F1 / 9780141439518" in confirmation
    assert response.status_code == 302
    assert response.wsgi_request.dynamo_meter.count_of("TransactWriteItems") == 1
    assert Shelf.get_or_none("F1") is None
    assert list(Book.query("F1")) == []
    [entry] = AdminLog.history(Shelf("F1"))
    assert (entry.action, entry.user) == ("delete", "lena")
    assert [e.action for e in AdminLog.history(Book("F1", "9780141439518"))] == ["delete"]
