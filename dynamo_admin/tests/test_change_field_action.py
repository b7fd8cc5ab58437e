"""The action "Change a field of the selected rows": choose, preview, confirm, each row saved
as its change page saves it, on the values the preview showed."""

from __future__ import annotations

from library.models import Book

from dynamo_admin.models import AdminLog

BOOKS = "/admin/library/book/"
SELECTED = ["F1,9780140449136", "F1,9780141439518"]


def step(client, step: str, follow: bool = False, **data):
    return client.post(
        BOOKS,
        {"action": "change_field", "_selected_action": SELECTED, "step": step, **data},
        follow=follow,
    )


def confirm(client, page: str, **data):
    """Confirm the change the preview page showed, posting back its rows' states."""
    return step(client, "confirm", _state=states_of(page), **data, follow=True)


def states_of(page: str) -> list[str]:
    import html
    import re

    return [html.unescape(s) for s in re.findall(r'name="_state" value="([^"]+)"', page)]


def test_a_field_of_the_selected_rows_is_changed_after_a_preview(librarian, fiction):
    chosen = step(librarian, "choose", field="genre")
    assert 'name="value-genre"' in chosen.content.decode()

    preview = step(librarian, "preview", field="genre", **{"value-genre": "Poetry"})
    page = preview.content.decode()
    assert "2 items will be set to “Poetry”" in page
    assert Book.get("F1", "9780140449136").genre == "Fiction"  # nothing written yet

    confirmed = confirm(librarian, page, field="genre", **{"value-genre": "Poetry"})

    assert "Changed 2, unchanged 0, refused 0." in confirmed.content.decode()
    book = Book.get("F1", "9780140449136")
    assert (book.genre, book.version) == ("Poetry", 2)
    [entry] = AdminLog.history(book)
    assert entry.changes == {"genre": ["Fiction", "Poetry"]}


def test_a_value_the_field_refuses_is_shown_on_the_page(librarian, fiction):
    page = step(librarian, "preview", field="copies", **{"value-copies": "many"})

    assert "Enter a number." in page.content.decode()
    assert Book.get("F1", "9780140449136").copies == 2


def test_a_row_changed_after_the_preview_is_refused_and_kept(librarian, fiction):
    page = step(librarian, "preview", field="genre", **{"value-genre": "Poetry"}).content.decode()
    theirs = Book.get("F1", "9780141439518")
    theirs.title = "Pride and Prejudice (annotated)"
    theirs.save()

    confirmed = confirm(librarian, page, field="genre", **{"value-genre": "Poetry"})

    assert "Changed 1, unchanged 0, refused 1." in confirmed.content.decode()
    kept = Book.get("F1", "9780141439518")
    assert (kept.genre, kept.title) == ("Fiction", "Pride and Prejudice (annotated)")


def test_a_viewer_is_not_offered_the_action(reader, fiction):
    page = reader.get(BOOKS).content.decode()

    assert "change_field" not in page
    response = step(reader, "choose", field="genre")
    assert response.status_code == 403
    assert Book.get("F1", "9780140449136").genre == "Fiction"
