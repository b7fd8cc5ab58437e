"""The home page links to the public pages and the admin without touching DynamoDB."""

from __future__ import annotations

from tests.admin_fixtures import calls


def test_the_home_page_links_to_every_part_of_the_product(client):
    response = client.get("/")

    page = response.content.decode()
    assert response.status_code == 200
    assert 'href="/leaderboard/"' in page
    assert 'href="/skills/search/?skill=Python&amp;level=Expert&amp;min_years=5"' in page
    assert 'href="/admin/"' in page
    assert calls(response) == 0
