"""`/learners/<username>/`: a learner's own page, its JSON, its 404 and its cost."""

from __future__ import annotations

import re
from datetime import timedelta
from urllib.parse import unquote

import pytest
from django.core.cache import cache
from django.test import Client

from catalog.models import Skill
from dynamo import cursors
from dynamo.models import utcnow
from stats.history.recording import record_correction, record_session
from stats.learner_page.page import SESSIONS_PER_PAGE, calendar_start
from tests.admin_fixtures import calls
from tests.helpers import joined_long_ago
from users.models import User, UserSkill

# What the page says and how it draws it are checked on moto alone (ON_MOTO); the order of what
# it reads, its cursors, its calls and its ranks run on both engines.
ON_MOTO = pytest.mark.engines("moto")

NOW = utcnow()


@pytest.fixture
def client() -> Client:
    return Client()


@pytest.fixture
def ada(dynamo) -> User:
    """Ada: two skills added in order, three sessions over three days, and Bob beside her."""
    python = Skill("python", name="Python", category="Programming")
    go = Skill("go", name="Go", category="Programming")
    python.save()
    go.save()
    user = User("ada", name="Ada Lovelace", email="ada@example.com", created_at=joined_long_ago())
    user.save()
    UserSkill.for_catalog("ada", go, proficiency="Advanced", years=4).save()
    UserSkill.for_catalog("ada", python, proficiency="Expert", years=7).save()
    for days_ago, xp in ((2, 30), (1, 50), (0, 20)):
        record_session(
            "ada", xp=xp, questions=10, correct=8, minutes=10, when=NOW - timedelta(days=days_ago)
        )
    User("bob", name="Bob", email="bob@example.com").save()
    record_session("bob", xp=500, questions=10, correct=10, minutes=5)
    return user


def test_it_shows_the_learner_skills_in_order_metrics_ranks_and_sessions(ada, client):
    response = client.get("/learners/ada/")

    assert response.status_code == 200
    html = response.content.decode()
    assert "Ada Lovelace" in html and "@ada" in html
    assert html.index(">Go</a>") < html.index(">Python</a>")  # in the order added
    assert "/skills/search/?skill=Go&amp;level=Advanced" in html
    assert "100 XP" in html and "#2" in html  # Bob has more XP
    assert html.count("<tr><td><time") == 3
    assert "ada@example.com" not in html


def test_the_json_variant_carries_the_same_data(ada, client):
    by_format = client.get("/learners/ada/?format=json")
    by_accept = client.get("/learners/ada/", headers={"accept": "application/json"})

    assert by_format.json() == by_accept.json()
    data = by_format.json()
    assert [s["skill_id"] for s in data["skills"]] == ["go", "python"]
    assert data["metrics"]["xp"] == {
        "value": 100,
        "rank": {"rank": 2, "exact": True, "label": "#2", "lag": ""},
    }
    assert [s["xp"] for s in data["sessions"]] == [20, 50, 30]  # newest first
    assert sum(d["xp"] for d in data["calendar"]["days"]) == 100
    assert data["calendar"]["first_day"] == calendar_start(NOW.date()).isoformat()
    assert set(data) == {
        "username",
        "name",
        "joined",
        "skills",
        "metrics",
        "sessions_recorded",
        "last_active_day",
        "sessions",
        "next",
        "newer",
        "calendar",
    }
    assert "email" not in by_format.content.decode()


@ON_MOTO
def test_its_json_writes_a_session_time_as_the_api_does(ada, client):
    page = client.get("/learners/ada/?format=json").json()
    api = client.get("/api/learner-pages/ada").json()

    newest = page["sessions"][0]["started_at"]
    # ISO 8601 to the second with the UTC offset, the one format of every JSON time.
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00", newest)
    assert newest == NOW.isoformat(timespec="seconds")
    assert api["sessions"][0]["started_at"] == newest


@ON_MOTO
def test_unknown_and_soft_deleted_learners_get_the_same_404(ada, client):
    unknown = client.get("/learners/nobody/")
    User.get("bob").soft_delete()
    deleted = client.get("/learners/bob/")

    assert unknown.status_code == deleted.status_code == 404
    assert unknown.content.replace(b"nobody", b"bob") == deleted.content
    assert client.get("/learners/x/").status_code == 404  # no learner can have that name


@ON_MOTO
def test_an_unknown_learners_json_is_a_problem(ada, client):
    response = client.get("/learners/nobody/?format=json")

    assert response.status_code == 404
    assert response["Content-Type"] == "application/problem+json"
    assert response.json() == {
        "type": "about:blank",
        "title": "Not Found",
        "status": 404,
        "detail": "No learner called 'nobody'.",
    }
    bad = client.get("/learners/ada/", {"format": "json", "cursor": "garbage"})
    assert bad.status_code == 400 and bad["Content-Type"] == "application/problem+json"


@ON_MOTO
def test_sessions_show_catalog_names_whole_minutes_and_correct_answers(ada, client):
    record_session("ada", xp=5, questions=4, correct=3, minutes=9.33, skill_id="python")
    record_session("ada", xp=5, questions=4, correct=3, minutes=0.2, skill_id="go")

    html = client.get("/learners/ada/").content.decode()

    assert '<th scope="col">Correct</th>' in html and ">Right<" not in html
    assert '<a href="/skills/search/?skill=Python">Python</a>' in html
    assert '<a href="/skills/search/?skill=Go">Go</a>' in html
    assert "<td>9 min</td>" in html and "<td>&lt;1 min</td>" in html and "9.33" not in html
    assert "<td>3/4</td>" in html


@ON_MOTO
def test_a_session_of_a_skill_no_longer_held_shows_the_catalogs_name(ada, client):
    Skill("rust", name="Rust", category="Programming").save()
    record_session("ada", xp=5, questions=4, correct=3, minutes=12, skill_id="rust")

    data = client.get("/learners/ada/?format=json").json()

    assert data["sessions"][0]["skill_name"] == "Rust"
    assert data["sessions"][0]["skill_search_url"] == "/skills/search/?skill=Rust"


@ON_MOTO
def test_the_years_summary_is_in_words_above_the_calendar(ada, client):
    html = client.get("/learners/ada/").content.decode()

    summary = '<p class="calendar-summary">3 sessions on 3 days, 100 XP in all</p>'
    assert summary in html
    assert html.index(summary) < html.index('<div class="calendar"')


REASON = "Duplicate import of a quiz"


def test_a_correction_moves_the_totals_and_chart_but_is_no_session_row(ada, client):
    record_correction("ada", xp=-15, reason=REASON, actor="staff")

    response = client.get("/learners/ada/")
    data = client.get("/learners/ada/", {"format": "json"}).json()

    html = response.content.decode()
    assert "85 XP" in html  # 100 XP of study, 15 taken back
    assert html.count("<tr><td><time") == 3 and ">-15<" not in html
    assert '<p class="calendar-summary">3 sessions on 3 days, 85 XP in all</p>' in html
    assert "best week" in html and "85 XP in all" in html.split('id="chart-svg-desc"')[1]
    assert REASON not in html and "correction" not in html.lower()
    assert data["metrics"]["xp"]["value"] == 85 and data["sessions_recorded"] == 3
    assert [s["xp"] for s in data["sessions"]] == [20, 50, 30]
    assert sum(day["xp"] for day in data["calendar"]["days"]) == 85
    assert REASON not in response.content.decode() + str(data)
    assert "reason" not in str(data) and "source" not in str(data)
    assert client.get("/api/learner-pages/ada").json() == data


@ON_MOTO
def test_a_day_holding_only_a_negative_correction_has_no_shade_and_no_negative_bar(dynamo, client):
    User("cyd", name="Cyd", email="cyd@example.com", created_at=joined_long_ago()).save()
    for days_ago in (2, 1):
        when = NOW - timedelta(days=days_ago)
        record_session("cyd", xp=30, questions=3, correct=3, minutes=5, when=when)
    record_correction("cyd", xp=-50, reason=REASON, actor="staff")  # today: the day's XP is -50

    html = client.get("/learners/cyd/").content.decode()
    data = client.get("/learners/cyd/", {"format": "json"}).json()

    today = next(d for d in data["calendar"]["days"] if d["day"] == NOW.date().isoformat())
    assert (today["xp"], today["sessions"], today["minutes"]) == (-50, 0, 0)
    title = f"{NOW:%a %-d %b %Y}: no study, -50 XP corrected"
    assert re.search(rf'class="cal-cell shade-0"[^>]*><title>{title}</title>', html)
    assert not re.search(r'shade--|height="-', html)
    assert '<p class="calendar-summary">2 sessions on 2 days, 10 XP in all</p>' in html
    assert data["metrics"]["xp"]["value"] == 10
    assert [s["xp"] for s in data["sessions"]] == [30, 30]
    assert REASON not in html and REASON not in str(data)


def test_the_years_summary_groups_its_numbers_and_says_one_in_the_singular():
    from stats.learner_page.charts import year_summary

    one = year_summary([{"day": "2026-01-01", "xp": 11530, "sessions": 1, "minutes": 5}])
    assert one == "1 session on 1 day, 11,530 XP in all"
    assert year_summary([]) == "No study in the last 52 weeks."


def test_older_sessions_lead_back_to_newer_ones_and_land_on_the_table(ada, client):
    for minutes_ago in range(2 * SESSIONS_PER_PAGE):
        when = NOW - timedelta(days=3, minutes=minutes_ago)
        record_session("ada", xp=1, questions=1, correct=1, minutes=1, when=when)
    first = client.get("/learners/ada/?format=json").json()
    second = client.get("/learners/ada/", {"format": "json", "cursor": first["next"]}).json()
    third = client.get("/learners/ada/", {"format": "json", "cursor": second["next"]}).json()

    back = client.get("/learners/ada/", {"format": "json", "newer": third["newer"]}).json()
    top = client.get("/learners/ada/", {"format": "json", "newer": back["newer"]}).json()

    assert first["newer"] is None
    assert [s["session_id"] for s in back["sessions"]] == [
        s["session_id"] for s in second["sessions"]
    ]
    scope = "learner-sessions:ada"  # the tokens are signed with a time: compare what they hold
    assert cursors.decode(back["next"], scope) == cursors.decode(second["next"], scope)
    assert [s["session_id"] for s in top["sessions"]] == [
        s["session_id"] for s in first["sessions"]
    ]
    assert top["newer"] is None  # the newest page again: no way further back
    html = client.get("/learners/ada/", {"cursor": first["next"]}).content.decode()
    assert '<section id="sessions"' in html
    newer = re.search(r'rel="prev" href="\?newer=([^"#]+)#sessions">← Newer sessions</a>', html)
    assert re.search(r'rel="next" href="\?cursor=[^"#]+#sessions">Older sessions', html)
    followed = client.get("/learners/ada/", {"newer": unquote(newer.group(1))})
    assert [s["session_id"] for s in followed.context["learner"]["sessions"]] == [
        s["session_id"] for s in first["sessions"]
    ]


def test_the_sessions_page_on_to_older_ones_with_a_cursor(ada, client):
    for minutes_ago in range(SESSIONS_PER_PAGE):
        when = NOW - timedelta(days=3, minutes=minutes_ago)
        record_session("ada", xp=1, questions=1, correct=1, minutes=1, when=when)

    first = client.get("/learners/ada/?format=json").json()
    older = client.get("/learners/ada/", {"format": "json", "cursor": first["next"]}).json()

    assert len(first["sessions"]) == SESSIONS_PER_PAGE
    assert len(older["sessions"]) == 3 and older["next"] is None
    assert first["sessions"][-1]["started_at"] > older["sessions"][0]["started_at"]


@ON_MOTO
def test_a_cursor_of_another_learner_is_a_400(ada, client):
    for _ in range(SESSIONS_PER_PAGE):
        record_session("bob", xp=1, questions=1, correct=1, minutes=1)
    bobs = client.get("/learners/bob/?format=json").json()["next"]

    assert client.get("/learners/ada/", {"cursor": bobs}).status_code == 400
    assert client.get("/learners/ada/", {"cursor": "garbage"}).status_code == 400


def test_the_page_costs_eight_calls(ada, client):
    response = client.get("/learners/ada/")

    assert response.status_code == 200
    # Learner, stats and the four tier pointers (one BatchGetItem), skills, sessions and days;
    # then one read per board: here a COUNT, as the board has no tiers yet.
    assert calls(response) == 8
    meter = response.wsgi_request.dynamo_meter
    assert meter.count_of("Scan") == 0 and meter.read_units <= 60


def test_a_missing_learners_page_ends_after_its_first_call(ada, client):
    response = client.get("/learners/nobody/")

    assert response.status_code == 404
    assert calls(response) == 1  # the BatchGetItem that finds no learner


@ON_MOTO
def test_the_calendar_and_chart_are_labelled_svg_without_inline_style(ada, client):
    html = client.get("/learners/ada/").content.decode()

    assert html.count('role="img"') == 2 and "<desc" in html
    assert 'class="cal-cell shade-4"' in html  # the busiest day
    assert "3 sessions on 3 days" in html
    assert "style=" not in html and "<script" not in html


def test_it_is_served_from_the_cache_within_its_lifetime(ada, client, settings):
    settings.LEADERBOARD_CACHE_SECONDS = 30
    cache.clear()
    client.get("/learners/ada/")
    record_session("ada", xp=5, questions=1, correct=1, minutes=1)

    cached = client.get("/learners/ada/?format=json")

    assert calls(cached) == 0
    assert cached.json()["metrics"]["xp"]["value"] == 100
    cache.clear()
    assert client.get("/learners/ada/?format=json").json()["metrics"]["xp"]["value"] == 105


def test_a_learner_without_sessions_has_a_page_with_no_ranks(dynamo, client):
    User("new", name="New One", email="new@example.com").save()

    data = client.get("/learners/new/?format=json").json()

    assert data["metrics"]["xp"] == {"value": 0, "rank": None}
    assert data["sessions"] == [] and data["calendar"]["days"] == []
    assert "not on the board" in client.get("/learners/new/").content.decode()


@ON_MOTO
def test_the_admin_view_on_site_link_is_the_learners_page(ada):
    assert ada.get_absolute_url() == "/learners/ada/"


@pytest.fixture
def board_of_400(dynamo):
    """400 learners on the board, the score tiers built, and one learner with sessions."""
    from io import StringIO

    from django.core.management import call_command

    from tests.helpers import stored_board

    items = stored_board(400, 1)
    python = Skill("python", name="Python", category="Programming")
    python.save()
    for username in ("user000", "user200", "user399"):
        UserSkill.for_catalog(username, python, proficiency="Expert", years=3).save()
        record_session(username, xp=10, questions=4, correct=3, minutes=7, skill_id="python")
    call_command("rebuild_rank_tiers", stdout=StringIO())
    cache.clear()
    return items


def test_the_page_costs_at_most_ten_calls_cold_with_tiers_built_and_every_rank_is_exact(
    board_of_400, client
):
    from stats.boards.ranking import rank_sorted
    from stats.models import METRICS, UserStats
    from tests.helpers import clear_caches

    board = [s for s in UserStats.scan() if s.leaderboard_partition]
    # One board of 400 for the three learners (the best, the middle, the last): it takes
    # seconds to store, and nothing here writes. Each page is asked for cold, every cache
    # emptied as between two tests.
    for username in ("user000", "user200", "user399"):
        clear_caches()
        response = client.get(f"/learners/{username}/", {"format": "json"})

        assert response.status_code == 200, username
        assert calls(response) <= 10, username
        assert response.wsgi_request.dynamo_meter.count_of("Scan") == 0, username
        ranks = response.json()["metrics"]
        for metric in METRICS:
            expected = {row.username: row.rank for row in rank_sorted(board, metric)}[username]
            assert ranks[metric]["rank"] == {
                "rank": expected,
                "exact": True,
                "label": f"#{expected:,}",
                "lag": "",
            }, (username, metric)
        html = client.get(f"/learners/{username}/").content.decode()
        assert "≈" not in html, username
