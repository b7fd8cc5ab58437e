"""The site's index and footer come with the package: Recent actions and the DynamoDB meter."""

from __future__ import annotations

import re

from .conftest import calls

# The add page's books inline, posted with no rows (Django's management form).
NO_BOOKS = {"book-TOTAL_FORMS": "0", "book-INITIAL_FORMS": "0"}

FOOTER = re.compile(r'<footer id="footer">(.*?)</footer>', re.S)


def test_recent_actions_list_the_users_dynamodb_changes_in_one_query(librarian):
    librarian.post("/admin/library/shelf/add/", {"code": "P7", "name": "Poetry", **NO_BOOKS})

    response = librarian.get("/admin/")

    module = response.content.decode().split('id="recent-actions-module"')[1]
    assert calls(response) == 1  # the admin-log's index by actor and time
    assert '<a href="/admin/library/shelf/P7/change/">' in module
    assert "Shelf" in module


def test_every_admin_page_shows_its_dynamodb_calls_in_the_footer_to_staff(librarian, fiction):
    for url, count in [("/admin/", "1 DynamoDB call, "), ("/admin/auth/user/", "0 DynamoDB calls")]:
        page = librarian.get(url).content.decode()
        [footer] = FOOTER.findall(page)
        assert count in footer
        assert page.count("dynamo_admin/admin_footer.css") == 1
