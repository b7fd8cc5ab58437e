"""A search and a list filter, or two filters, together: one Query where the others can narrow
it, else the page says which applies; the sort stays through every filter link."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest

from catalog.models import Skill
from dynamo.batch import batch_put
from dynamo.models import utcnow
from dynamo_admin.filters import SparseIndexFilter
from stats.history.recording import record_session
from stats.models import UserStats, reminder_bucket
from tests.admin_fixtures import calls, link, listed
from tests.helpers import joined_long_ago, learners_for
from users.models import User, UserSkill

STATS = "/admin/stats/userstats/"
XP = 2  # UserStatsAdmin.list_display: username, name, xp, ...


@pytest.fixture
def holdings(dynamo):
    learners_for(["ychen", "zed"])
    for skill_id, name in (("kotlin", "Kotlin"), ("rust", "Rust")):
        skill = Skill(skill_id, name=name, category="Programming")
        skill.save()
        for username in ("ychen", "zed"):
            UserSkill.for_catalog(username, skill, proficiency="Expert", years=2).save()


def test_a_filter_narrows_a_key_search_in_the_same_query(admin_client_, holdings):
    response = admin_client_.get("/admin/users/userskill/", {"q": "ychen", "skill_id": "rust"})

    assert listed(response) == ["ychen,rust"]
    assert calls(response) == 2  # the catalog's name key (no skill "ychen"), the one Query
    meter = response.wsgi_request.dynamo_meter
    assert [c.operation for c in meter.calls if c.table.endswith("user-skills")] == ["Query"]
    assert "The search is narrowed by skill id" in response.content.decode()


def test_the_filters_keep_the_search_and_the_search_keeps_the_filters(admin_client_, holdings):
    page = admin_client_.get("/admin/users/userskill/", {"q": "ychen"}).content.decode()
    filtered = admin_client_.get("/admin/users/userskill/", {"skill_id": "rust"}).content.decode()

    assert '<input type="hidden" name="q" value="ychen">' in page  # the skill id box
    assert '<input type="hidden" name="skill_id" value="rust">' in filtered  # the search box


def test_a_month_narrows_a_learners_sessions(admin_client, dynamo):
    User("ada", name="Ada Lovelace", email="ada@example.com", created_at=joined_long_ago()).save()
    now = utcnow()
    record_session("ada", xp=11, questions=1, correct=1, minutes=3, when=now)
    record_session("ada", xp=22, questions=1, correct=1, minutes=3, when=now - timedelta(days=62))
    month = now.strftime("%Y-%m")

    response = admin_client.get("/admin/stats/studysession/", {"q": "ada", "started_month": month})

    html = response.content.decode()
    assert ">11<" in html and ">22<" not in html
    assert "The search is narrowed by month" in html


def test_a_filter_that_cannot_narrow_a_word_search_is_said_so(admin_client_, dynamo):
    User("kofi", name="Kofi Mensah", email="k@example.com").save()
    User("kofi.b", name="Kofi Boateng", email="kb@example.com").save()
    User.get("kofi.b").soft_delete()

    response = admin_client_.get("/admin/users/user/", {"q": "kofi", "deleted": "yes"})

    assert sorted(listed(response)) == ["kofi", "kofi.b"]  # the search's results alone
    assert "cannot be narrowed by soft-deleted" in response.content.decode()


def test_the_typed_filter_and_the_search_keep_the_sort_and_the_other_filters(
    admin_client_, holdings
):
    page = admin_client_.get(
        "/admin/users/userskill/", {"skill_name": "Rust", "o": "-3"}
    ).content.decode()

    box = re.search(r'<form method="get" class="index-filter">.*?</form>', page, re.S).group(0)
    search = re.search(r'<form id="changelist-search".*?</form>', page, re.S).group(0)
    for form in (box, search):
        assert '<input type="hidden" name="skill_name" value="Rust">' in form
        assert '<input type="hidden" name="o" value="-3">' in form


def remind(usernames: list[str], when) -> str:
    """Schedule these learners' next reminder at `when`; return its hour bucket."""
    for username in usernames:
        UserStats.apply(username, UserStats.next_reminder_actions(when))
    return reminder_bucket(when)


def filter_link(response, label: str, title: str = "") -> str:
    """Return the URL of the sidebar filter choice with this label (in the filter so titled)."""
    page = response.content.decode()
    if title:
        pattern = rf'<details data-filter-title="{re.escape(title)}".*?</details>'
        page = re.search(pattern, page, re.S).group(0)
    match = re.search(rf'<a href="([^"]*)">{re.escape(label)}</a>', page)
    assert match is not None, f"no filter choice {label!r}"
    return response.request["PATH_INFO"] + html.unescape(match.group(1))


def test_a_leaderboard_and_a_reminder_hour_list_exactly_the_learners_in_both(
    admin_client_, ranked_learners
):
    # Shard ALL#0 holds bob, dave and erin; ALL#1 alice and carol (two shards).
    bucket = remind(["bob", "carol", "erin"], utcnow() + timedelta(days=2))
    stored = [UserStats.get(u) for u in ("alice", "bob", "carol", "dave", "erin")]
    both = {s.username for s in stored if s.leaderboard_partition == "ALL#0"} & {
        s.username for s in stored if s.next_reminder_bucket == bucket
    }
    assert both == {"bob", "erin"}

    response = admin_client_.get(STATS, {"leaderboard": "xp@ALL#0", "next_reminder_bucket": bucket})

    assert listed(response) == ["bob", "erin"]  # by XP, highest first, as the board lists them
    # One Query of the shard, the reminder hour its filter expression: no Scan, one call.
    meter = response.wsgi_request.dynamo_meter
    assert [(c.operation, c.table.endswith("user-stats")) for c in meter.calls] == [("Query", True)]
    assert "gsi_leaderboard_xp, narrowed by reminder hour (UTC)" in response.content.decode()
    assert "applies here" not in response.content.decode()


def test_the_sort_and_each_filter_stay_through_the_filter_links(admin_client_, ranked_learners):
    bucket = remind(["bob", "carol", "erin"], utcnow() + timedelta(hours=2, minutes=30))
    sorted_by_xp = admin_client_.get(STATS, {"o": str(XP)})  # lowest XP first

    by_shard = admin_client_.get(filter_link(sorted_by_xp, "By xp (ALL#0)"))
    assert listed(by_shard) == ["erin", "dave", "bob"]  # still lowest first

    both = admin_client_.get(filter_link(by_shard, bucket))
    assert listed(both) == ["erin", "bob"]
    assert f"o={XP}" in both.request["QUERY_STRING"]

    # "All" of one filter keeps the other and the sort.
    shard_again = admin_client_.get(filter_link(both, "All", title="reminder hour (UTC)"))
    assert listed(shard_again) == ["erin", "dave", "bob"]


def test_a_month_and_the_soft_deleted_filter_list_that_months_soft_deleted_learners(
    admin_client_, dynamo
):
    now = utcnow()
    joined = {"ann": now, "ben": now, "cai": now - timedelta(days=62)}
    batch_put(
        User,
        [
            User(u, name=u.title(), email=f"{u}@example.com", created_at=t)
            for u, t in joined.items()
        ],
    )
    for username in ("ben", "cai"):
        User.get(username).soft_delete()

    response = admin_client_.get(
        "/admin/users/user/", {"created_month": now.strftime("%Y-%m"), "deleted": "yes"}
    )

    assert listed(response) == ["ben"]  # this month's sign-ups that are soft-deleted
    assert calls(response) == 1  # the month's Query, the soft delete its filter expression


class StreakBreaksFilter(SparseIndexFilter):
    title = "streak breaks"
    parameter_name = "breaks"
    index_name = "gsi_streak_expires_on"


class RemindedFilter(SparseIndexFilter):
    title = "reminded"
    parameter_name = "reminded"
    index_name = "gsi_user_stats_reminders"


def test_a_filter_that_cannot_narrow_the_others_read_is_said_so(
    admin_client_, ranked_learners, monkeypatch
):
    from stats.admin import UserStatsAdmin

    # Two sparse indexes, each read by a Scan: neither read can take the other as a condition.
    monkeypatch.setattr(UserStatsAdmin, "list_filter", [StreakBreaksFilter, RemindedFilter])
    for username in ("alice", "bob"):
        UserStats.apply(username, [UserStats.streak_expires_on.set("2030-01-02")])
    remind(["alice", "carol"], utcnow() + timedelta(days=1))

    response = admin_client_.get(STATS, {"breaks": "yes", "reminded": "yes"})

    assert sorted(listed(response)) == ["alice", "bob"]  # the streak filter's alone
    page = html.unescape(response.content.decode())
    assert "Only the streak breaks filter applies here" in page
    assert "not filtered by reminded" in page


def test_a_narrowed_query_reads_a_bounded_number_of_calls_a_page_and_pages_on(
    admin_client_, dynamo, monkeypatch
):
    from stats.admin import UserStatsAdmin

    monkeypatch.setattr(UserStatsAdmin, "list_per_page", 2)
    names = [f"user{n:02d}" for n in range(12)]
    learners_for(names)
    batch_put(UserStats, [UserStats(name, xp=n) for n, name in enumerate(names)])
    # Three of the twelve on one shard, far apart in XP order: a filter expression matches few.
    bucket = remind(["user00", "user05", "user11"], utcnow() + timedelta(days=1))

    seen, per_page = [], []
    url = f"{STATS}?leaderboard=xp%40ALL&next_reminder_bucket={bucket}"
    while url:
        response = admin_client_.get(url)
        assert response.status_code == 200
        seen += listed(response)
        per_page.append(calls(response))
        url = link(response, "next")

    assert seen == ["user11", "user05", "user00"]
    assert max(per_page) <= 3  # never a walk of the whole shard for one page


def test_an_export_refuses_a_filter_the_listing_cannot_apply(
    admin_client_, ranked_learners, monkeypatch
):
    from stats.admin import UserStatsAdmin

    monkeypatch.setattr(UserStatsAdmin, "list_filter", [StreakBreaksFilter, RemindedFilter])

    response = admin_client_.get(
        f"{STATS}export/", {"breaks": "yes", "reminded": "yes", "format": "csv"}
    )

    assert response.status_code == 400
    assert "only the streak breaks filter applies" in html.unescape(response.content.decode())
