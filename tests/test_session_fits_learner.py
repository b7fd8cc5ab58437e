"""A session must fit its learner: not before they joined, not beyond the clock skew ahead."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ValidationError

from dynamo.models import utcnow
from stats.history.recording import record_session
from stats.models import UserStats
from tests.admin_fixtures import record_session_action
from tests.api_fixtures import problem_of
from tests.helpers import snapshot
from users.models import User

JOINED = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)
SESSION = {"xp": 50, "questions": 10, "correct": 8, "minutes": 5}


@pytest.fixture
def joined_2025(dynamo, monkeypatch) -> User:
    """Jo (jomarch) joined on 1 March 2025; "now" is June 2025, so a year back reaches 2024."""
    now = datetime(2025, 6, 1, 12, 0, tzinfo=UTC)
    monkeypatch.setattr("stats.history.recording.utcnow", lambda: now)
    user = User("jomarch", name="Jo March", email="jo@example.com", created_at=JOINED)
    user.save()
    return user


def test_a_session_before_the_learner_joined_is_refused_and_writes_nothing(joined_2025):
    before = snapshot()

    with pytest.raises(ValidationError) as caught:
        record_session("jomarch", **SESSION, when=JOINED - timedelta(days=3))

    assert caught.value.message_dict["when"] == [
        "Cannot be before the learner joined (2025-03-01 09:30 UTC)."
    ]
    assert snapshot() == before


def test_a_session_just_after_joining_is_recorded(joined_2025):
    stats = record_session("jomarch", **SESSION, when=JOINED + timedelta(minutes=1))

    assert stats.sessions == 1


def test_the_api_answers_a_session_dated_2001_with_a_422_and_writes_nothing(dynamo, api_client):
    User("jomarch", name="Jo March", email="jo@example.com").save()  # joins now
    before = snapshot()

    response = api_client.post(
        "/api/learners/jomarch/sessions", {**SESSION, "when": "2001-05-04T10:00:00Z"}
    )

    assert response.status_code == 422
    problem = problem_of(response)
    assert [e["field"] for e in problem["errors"]] == ["when"]
    assert snapshot() == before


def test_the_api_refuses_a_session_beyond_the_clock_skew_ahead(dynamo, api_client):
    User("jomarch", name="Jo March", email="jo@example.com").save()
    ahead = (utcnow() + timedelta(hours=1)).isoformat()
    before = snapshot()

    response = api_client.post("/api/learners/jomarch/sessions", {**SESSION, "when": ahead})

    assert response.status_code == 422 and problem_of(response)["errors"][0]["field"] == "when"
    assert snapshot() == before


def test_the_admin_action_says_it_on_the_form_for_one_learner(dynamo, admin_client):
    User("jomarch", name="Jo March", email="jo@example.com").save()
    UserStats("jomarch").save()  # listed on the stats page, with no session yet
    before = snapshot()

    a_month_ago = (utcnow() - timedelta(days=30)).strftime("%Y-%m-%d 10:00:00")
    response = record_session_action(admin_client, ["jomarch"], **SESSION, when=a_month_ago)

    page = response.content.decode()
    assert response.status_code == 200
    assert 'id="record-session-form"' in page
    assert "Cannot be before the learner joined" in page
    assert snapshot() == before
