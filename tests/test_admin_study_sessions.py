"""The admin's study sessions: a read-only changelist per learner, linked from the learner."""

from __future__ import annotations

from datetime import timedelta

import pytest

from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from dynamo_admin.sources import EMPTY_MONTHS_ENDING_A_WALK
from stats.history.models import StudySession, Totals, history_of, session_id_for
from stats.history.recording import record_session
from stats.models import UserStats
from tests.admin_fixtures import calls, record_session_action
from tests.helpers import joined_long_ago
from users.models import User

CHANGELIST = "/admin/stats/studysession/"


@pytest.fixture
def sessions(dynamo):
    for username in ("ada", "bob"):
        User(
            username,
            name=username.title(),
            email=f"{username}@example.com",
            created_at=joined_long_ago(),
        ).save()
    for days_ago in (3, 1, 2):
        when = utcnow() - timedelta(days=days_ago)
        record_session("ada", xp=days_ago * 10, questions=2, correct=1, minutes=4, when=when)
    record_session("bob", xp=99, questions=2, correct=1, minutes=4)


def test_a_learners_sessions_are_one_query_newest_first(sessions, admin_client):
    response = admin_client.get(CHANGELIST, {"q": "ada"})

    assert response.status_code == 200
    html = response.content.decode()
    assert html.index(">10<") < html.index(">20<") < html.index(">30<")
    assert ">99<" not in html
    meter = response.wsgi_request.dynamo_meter
    session_reads = [c for c in meter.calls if c.table.endswith("study-sessions")]
    assert [c.operation for c in session_reads] == ["Query"]
    assert meter.count_of("Scan") == 0
    assert calls(response) <= 3  # the learner search's Query and BatchGetItem, then theirs


def test_a_learners_name_finds_their_sessions(sessions, admin_client):
    User("adam", name="Adam Smith", email="adam@example.com").save()
    record_session("adam", xp=77, questions=2, correct=1, minutes=4)

    by_name = admin_client.get(CHANGELIST, {"q": "smi"}).content.decode()
    several = admin_client.get(CHANGELIST, {"q": "ad"})

    assert ">77<" in by_name and ">10<" not in by_name  # Adam's session, not Ada's
    assert several.status_code == 400
    assert "Several learners match" in several.content.decode()


def test_sessions_cannot_be_added_changed_or_deleted_in_the_admin(sessions, admin_client):
    [first, *_] = StudySession.query("ada")
    add = admin_client.get(f"{CHANGELIST}add/")
    assert add.status_code == 403
    page = admin_client.get(f"{CHANGELIST}{first.username}/")  # any shape: never a form
    assert page.status_code in (302, 403, 404)
    assert len(history_of("ada")) == 3


def test_the_learners_change_page_links_to_their_sessions_and_their_page(sessions, admin_client):
    html = admin_client.get("/admin/users/user/ada/change/").content.decode()

    assert f'href="{CHANGELIST}?q=ada"' in html
    assert 'href="/learners/ada/"' in html and "View on site" in html


def test_the_record_action_writes_sessions_and_history_for_each_learner(sessions, admin_client):
    response = record_session_action(
        admin_client, ["ada", "bob"], follow=True, xp=5, questions=2, correct=2, minutes=3
    )

    assert "Recorded a study session for 2 learners." in response.content.decode()
    for username in ("ada", "bob"):
        sessions = history_of(username)
        assert sessions[-1].source == "admin" and sessions[-1].xp == 5
        assert Totals.stored_in(UserStats.get(username)) == Totals.of(sessions)
        [entry, *_] = AdminLog.history(UserStats.get(username))
        assert entry.changes["session"][1]["source"] == "admin"


def test_the_record_action_says_learner_for_one(sessions, admin_client):
    response = record_session_action(
        admin_client, ["bob"], follow=True, xp=5, questions=2, correct=2, minutes=3
    )

    assert "Recorded a study session for 1 learner." in response.content.decode()


def test_every_learners_sessions_list_newest_first_through_the_month_index(sessions, admin_client):
    response = admin_client.get(CHANGELIST)

    html = response.content.decode()
    # bob's (now), then ada's 1, 2 and 3 days ago: across learners, newest first.
    assert html.index(">99<") < html.index(">10<") < html.index(">20<") < html.index(">30<")
    assert "gsi_started_month" in html
    meter = response.wsgi_request.dynamo_meter
    # Four sessions: the walk reads back a year of empty months (in few round trips) to end.
    assert meter.count_of("Scan") == 0 and calls(response) <= 2 + EMPTY_MONTHS_ENDING_A_WALK


def test_a_busy_months_first_page_is_one_query(dynamo, admin_client):
    from dynamo.batch import batch_put

    User("ada", name="Ada", email="ada@example.com").save()
    start = utcnow().replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    batch_put(
        StudySession,
        [
            StudySession(
                "ada",
                session_id_for(start + timedelta(seconds=n)),
                started_at=start + timedelta(seconds=n),
                xp=n,
                minutes=1,
                source="seed",
            )
            for n in range(60)
        ],
    )

    response = admin_client.get(CHANGELIST)

    assert calls(response) == 1
    assert 'rel="next"' in response.content.decode()


def test_each_recorded_session_carries_its_utc_month(sessions):
    for session in StudySession.scan():
        assert session.started_month == session.started_at.strftime("%Y-%m")


def test_the_backfill_gives_old_sessions_their_month_once(sessions):
    from io import StringIO

    from django.core.management import call_command

    [old, *_] = StudySession.query("ada")
    old.update(actions=[StudySession.started_month.remove()], add_version_condition=False)
    version = StudySession.get(old.username, old.session_id).version

    first, second = StringIO(), StringIO()
    call_command("backfill_session_months", stdout=first)
    call_command("backfill_session_months", stdout=second)

    stored = StudySession.get(old.username, old.session_id)
    assert stored.started_month == old.started_at.strftime("%Y-%m")
    assert stored.version == version  # a derived key, not an edit
    assert "Backfilled 1 sessions" in first.getvalue()
    assert "Backfilled 0 sessions" in second.getvalue()
