"""Django's permissions on the library's tables: view-only staff read, and writes are refused."""

from __future__ import annotations

from django.test import Client
from library.models import Book, Shelf

from .conftest import logged_in, staff

F1 = "/admin/library/shelf/F1/change/"


def test_a_viewer_gets_a_read_only_page_and_a_403_on_post(reader, fiction):
    page = reader.get(F1)
    posted = reader.post(F1, {"name": "Hacked", "_version": "1"})

    assert page.status_code == 200
    assert b"View shelf" in page.content
    assert b'name="name"' not in page.content and b'name="book-0-title"' not in page.content
    assert b"Crime and Punishment" in page.content  # the books show, read-only
    assert posted.status_code == 403
    stored = Shelf.get("F1")
    assert (stored.name, stored.version) == ("Fiction, ground floor", 1)


def test_a_viewer_may_neither_add_nor_delete(reader, fiction):
    assert reader.get("/admin/library/shelf/add/").status_code == 403
    assert reader.post("/admin/library/shelf/add/", {"code": "X", "name": "Xs"}).status_code == 403
    assert reader.post("/admin/library/shelf/F1/delete/", {"version": "1"}).status_code == 403

    assert Shelf.get_or_none("X") is None
    assert Shelf.get_or_none("F1") is not None


def test_shelf_editors_cannot_write_books_they_may_not_change(db, fiction):
    editor = logged_in(staff("ed", "library.view_shelf", "library.change_shelf"))

    page = editor.get(F1)
    response = editor.post(F1, {"name": "Novels", "_version": "1"})

    assert b'name="name"' in page.content and b'name="book-0-title"' not in page.content
    assert response.status_code == 302, response.content.decode()
    assert Shelf.get("F1").name == "Novels"
    assert Book.get("F1", "9780140449136").version == 1


def test_anonymous_visitors_are_sent_to_the_login_page(db, fiction):
    response = Client().get(F1)

    assert response.status_code == 302
    assert response["Location"] == f"/admin/login/?next={F1}"
