"""The example project end to end: on DynamoDB Local, migrate, create_tables, then a shelf
added and listed through Django's admin served by runserver.

Run from examples/library: `python -m pytest tests -p no:django` (Java 17+ needed; the engine
is fetched into var/dynamodb-local there, or $DYNAMODB_LOCAL_HOME).
"""

from __future__ import annotations

import re

from conftest import PASSWORD, Browser


def test_a_shelf_added_through_the_admin_is_listed(served):
    base, created = served
    # The project's two tables and the admin's log: the package makes no table of its own.
    made = {name.split("-", 2)[2] for name in re.findall(r"Creating table (\S+)", created)}
    assert made == {"shelves", "books", "admin-log"}
    browser = Browser(base)
    _page, url = browser.post(
        "/admin/login/?next=/admin/", {"username": "ada", "password": PASSWORD}
    )
    assert url == f"{base}/admin/"

    page, url = browser.post(
        "/admin/library/shelf/add/",
        {
            "code": "R1",
            "name": "Reading room",
            "book-TOTAL_FORMS": "1",
            "book-INITIAL_FORMS": "0",
            "book-MIN_NUM_FORMS": "0",
            "book-MAX_NUM_FORMS": "1000",
            "book-0-isbn": "9780140449136",
            "book-0-title": "Crime and Punishment",
            "book-0-genre": "Fiction",
            "book-0-copies": "2",
        },
    )
    assert url == f"{base}/admin/library/shelf/", re.sub(r"\s+", " ", page)[-1500:]

    shelves = browser.get("/admin/library/shelf/")
    assert "Reading room" in shelves and 'href="/admin/library/shelf/R1/change/"' in shelves
    books = browser.get("/admin/library/book/")
    assert "Crime and Punishment" in books
