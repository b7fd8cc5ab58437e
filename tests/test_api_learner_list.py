"""`GET /api/learners` (staff, newest first, month by month) and `/api/learner-pages/{u}`."""

from __future__ import annotations

from datetime import timedelta

from dynamo.models import utcnow
from stats.history.recording import record_session
from tests.api_fixtures import problem_of
from users.models import User

NOW = utcnow()


def sign_ups(*days_ago: int) -> None:
    for d in days_ago:
        user = User(f"user{d:03d}", name=f"User {d}", email=f"u{d}@example.com")
        user.created_at = NOW - timedelta(days=d)
        user.save()


def test_staff_list_learners_newest_first_across_months_with_a_cursor(dynamo, api_client):
    sign_ups(0, 40, 75, 400)

    seen, url, pages = [], "/api/learners?limit=2", 0
    while url:
        response = api_client.get(url)
        assert response.status_code == 200
        body = response.json()
        seen += [learner["username"] for learner in body["results"]]
        url = f"/api/learners?limit=2&cursor={body['next']}" if body["next"] else ""
        pages += 1
        assert pages < 20

    assert seen == ["user000", "user040", "user075", "user400"]


def test_listing_learners_needs_the_view_permission(dynamo, anonymous):
    assert anonymous.get("/api/learners").status_code == 401


def test_a_bad_listing_cursor_is_a_400(dynamo, api_client):
    assert problem_of(api_client.get("/api/learners?cursor=nope"))["status"] == 400


def test_the_learner_page_json_is_public_and_the_pages_data(dynamo, client):
    User("ada", name="Ada", email="ada@example.com").save()
    record_session("ada", xp=12, questions=3, correct=2, minutes=4)

    api = client.get("/api/learner-pages/ada")
    page = client.get("/learners/ada/?format=json")

    assert api.status_code == 200 and api.json() == page.json()
    unknown = client.get("/api/learner-pages/nobody")
    as_page = client.get("/learners/nobody/?format=json")
    assert unknown.status_code == as_page.status_code == 404
    assert unknown["Content-Type"] == as_page["Content-Type"] == "application/problem+json"
    assert unknown.json()["detail"] == as_page.json()["detail"] == "No learner called 'nobody'."
