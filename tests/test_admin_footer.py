"""The DynamoDB meter sits once in the footer of every admin page, Django's own included."""

from __future__ import annotations

import re

import pytest

# Where the meter shows: a page makes the same calls on either engine, so moto alone.
pytestmark = pytest.mark.engines("moto")

FOOTER = re.compile(r'<footer id="footer">(.*?)</footer>', re.S)


def footer_of(response) -> str:
    """Return the footer's content, checking the page has the meter exactly once."""
    page = response.content.decode()
    assert response.status_code == 200
    assert page.count('id="dynamodb-meter"') == 1
    assert page.count("admin_footer.css") == 1
    [footer] = FOOTER.findall(page)
    return footer


@pytest.mark.parametrize("url", ["/admin/auth/user/", "/admin/auth/", "/admin/password_change/"])
def test_djangos_own_admin_pages_show_the_meter_in_the_footer(admin_client_, url):
    assert "0 DynamoDB calls, " in footer_of(admin_client_.get(url))


def test_the_index_counts_the_one_query_of_its_recent_actions(admin_client_, dynamo):
    assert "1 DynamoDB call, " in footer_of(admin_client_.get("/admin/"))


def test_the_login_page_shows_no_meter_to_a_visitor(client, db):
    page = client.get("/admin/login/").content.decode()

    assert 'id="dynamodb-meter"' not in page and "DynamoDB call" not in page


@pytest.mark.parametrize(
    "url",
    [
        "/admin/catalog/skill/",
        "/admin/catalog/",
        "/admin/catalog/skill/python/change/",
        "/admin/catalog/skill/python/history/",
        "/admin/catalog/skill/python/delete/",
    ],
)
def test_the_dynamodb_pages_show_the_meter_once(admin_client_, python, url):
    response = admin_client_.get(url)

    assert f"{response['X-DynamoDB-Calls']} DynamoDB call" in footer_of(response)
