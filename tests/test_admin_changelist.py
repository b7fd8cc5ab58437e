"""The changelist: one Scan page or one Query, cursor pages, filters, search, safe rendering."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from django.core import signing
from django.utils import timezone

from catalog.models import CATEGORIES, Skill
from dynamo.batch import batch_put
from stats.models import UserStats
from tests.admin_fixtures import calls, link, listed
from tests.helpers import learners_for
from users.models import User, UserSkill

# Cursors refused by their signature and what a page renders are checked on moto alone
# (ON_MOTO); Scans, Queries, indexes and paging run on both engines.
ON_MOTO = pytest.mark.engines("moto")

SKILLS = "/admin/catalog/skill/"


@pytest.fixture
def catalog(dynamo) -> list[Skill]:
    """230 skills spread over every category (per page 50: five pages)."""
    skills = [
        Skill(f"skill-{n:03d}", name=f"Skill {n:03d}", category=CATEGORIES[n % len(CATEGORIES)])
        for n in range(230)
    ]
    batch_put(Skill, skills)
    return skills


@pytest.fixture
def few(dynamo, monkeypatch) -> list[Skill]:
    """Twelve skills, five to a page."""
    from users.catalog_admin import SkillAdmin

    monkeypatch.setattr(SkillAdmin, "list_per_page", 5)
    skills = [Skill(f"few-{n:02d}", name=f"Few {n:02d}", category="Data") for n in range(12)]
    batch_put(Skill, skills)
    return skills


def walk(client, url: str, rel: str) -> tuple[list[list[str]], str]:
    """Follow rel links from url to the end; return each page's ids and the last URL."""
    pages = []
    while True:
        response = client.get(url)
        assert response.status_code == 200
        assert calls(response) <= len(CATEGORIES)  # the catalog by name: a Query per category
        pages.append(listed(response))
        following = link(response, rel)
        if following is None:
            return pages, url
        url = following


def test_paging_forward_then_back_shows_every_item_exactly_once(admin_client_, catalog):
    forward, last = walk(admin_client_, SKILLS, "next")
    backward, first = walk(admin_client_, last, "prev")

    ids = [oid for page in forward for oid in page]
    assert ids == [s.skill_id for s in sorted(catalog, key=lambda s: s.name)]  # by name
    assert len(ids) == len(set(ids)) == 230
    assert [len(page) for page in forward] == [50, 50, 50, 50, 30]
    assert backward == forward[::-1]
    assert "cursor" not in first


def test_paging_a_filtered_listing_returns_what_the_index_query_returns(admin_client_, catalog):
    with_few = {"category": "Programming"}

    pages, _ = walk(admin_client_, f"{SKILLS}?{urlencode(with_few)}", "next")

    expected = [s.skill_id for s in Skill.gsi_category.query("Programming")]
    assert [oid for page in pages for oid in page] == expected


def test_descending_order_reverses_the_index_order(admin_client_, few):
    response = admin_client_.get(SKILLS, {"category": "Data", "o": "desc"})

    expected = [s.skill_id for s in Skill.gsi_category.query("Data", scan_index_forward=False)]
    assert listed(response) == expected[:5] == ["few-11", "few-10", "few-09", "few-08", "few-07"]
    assert calls(response) == 1


def test_a_small_page_size_pages_through_a_query_in_both_directions(admin_client_, few):
    forward, last = walk(admin_client_, f"{SKILLS}?category=Data&o=desc", "next")
    backward, _ = walk(admin_client_, last, "prev")

    expected = [s.skill_id for s in Skill.gsi_category.query("Data", scan_index_forward=False)]
    assert [oid for page in forward for oid in page] == expected
    assert [len(page) for page in forward] == [5, 5, 2]
    assert backward == forward[::-1]


def test_the_catalog_is_listed_by_name_with_one_query_per_category(admin_client_, few):
    Skill("aaa", name="Aardvark", category="Other").save()

    response = admin_client_.get(SKILLS)

    assert calls(response) == len(CATEGORIES)
    assert listed(response) == ["aaa", "few-00", "few-01", "few-02", "few-03"]
    assert "Queries of every partition of the index gsi_category" in response.content.decode()


def test_a_listing_no_index_orders_is_one_limited_scan(admin_client_, holdings):
    response = admin_client_.get("/admin/users/userskill/")

    assert calls(response) == 1
    assert "Scan of the table (one page)" in response.content.decode()


def test_search_by_partition_key_is_one_get_item(admin_client_, few):
    response = admin_client_.get(SKILLS, {"q": "few-04"})

    assert listed(response) == ["few-04"]
    assert calls(response) == 1


@pytest.fixture
def holdings(dynamo):
    skills = [Skill(s, name=s.title(), category="Programming") for s in ("python", "pytest", "go")]
    batch_put(Skill, skills)
    users = [User(u, name=u.title(), email=f"{u}@example.com") for u in ("alice", "bob", "carol")]
    batch_put(User, users)
    levels = {"alice": "Intermediate", "bob": "Expert", "carol": "Advanced"}
    rows = [
        UserSkill.for_catalog(user, skill, proficiency=levels[user.username], years=n)
        for n, user in enumerate(users)
        for skill in skills
    ]
    batch_put(UserSkill, rows)
    return rows


def test_search_on_username_and_a_skill_prefix_returns_what_a_query_returns(
    admin_client_, holdings
):
    response = admin_client_.get("/admin/users/userskill/", {"q": "bob py"})

    expected = [
        f"{u.username},{u.skill_id}"
        for u in UserSkill.query("bob", UserSkill.skill_id.startswith("py"))
    ]
    assert listed(response) == expected == ["bob,pytest", "bob,python"]
    assert calls(response) == 2  # the catalog's name key first ("bob py" is no skill's name)


def test_filtering_user_skills_by_skill_is_a_query_on_its_index(admin_client_, holdings):
    response = admin_client_.get("/admin/users/userskill/", {"skill_id": "go"})

    expected = [f"{u.username},{u.skill_id}" for u in UserSkill.gsi_skill_id.query("go")]
    assert listed(response) == expected == ["alice,go", "bob,go", "carol,go"]


def test_filtering_user_skills_by_skill_name_queries_the_skill_level_index(admin_client_, holdings):
    response = admin_client_.get("/admin/users/userskill/", {"skill_name": "Python"})

    expected = [f"{u.username},{u.skill_id}" for u in UserSkill.gsi_skill_level.query("Python")]
    assert sorted(listed(response)) == sorted(expected)
    # Ordered by level (Expert first), not alphabetically by the word.
    assert listed(response) == ["bob,python", "carol,python", "alice,python"]


def test_the_leaderboard_filter_lists_users_by_xp_descending(admin_client_, dynamo):
    learners_for([f"user{n}" for n in range(5)])
    batch_put(UserStats, [UserStats(f"user{n}", xp=n * 10) for n in range(5)])

    response = admin_client_.get("/admin/stats/userstats/", {"leaderboard": "xp@ALL"})

    assert listed(response) == ["user4", "user3", "user2", "user1", "user0"]
    assert calls(response) == 1


def test_the_deleted_filter_scans_only_the_sparse_index(admin_client_, dynamo):
    users = [User(f"user{n}", name=f"User {n}", email=f"u{n}@example.com") for n in range(4)]
    batch_put(User, users)
    User.get("user2").soft_delete()

    response = admin_client_.get("/admin/users/user/", {"deleted": "yes"})

    assert listed(response) == ["user2"]
    assert calls(response) == 1


def test_the_date_hierarchy_queries_one_month_of_sign_ups(admin_client_, dynamo):
    from datetime import UTC, datetime

    for n, month in enumerate([1, 2, 2, 3]):
        user = User(f"user{n}", name="U", email=f"u{n}@example.com")
        user.created_at = datetime(2025, month, 10 + n, tzinfo=UTC)
        user.save()

    response = admin_client_.get("/admin/users/user/", {"created_month": "2025-02"})

    assert sorted(listed(response)) == ["user1", "user2"]
    assert "February 2025" in response.content.decode()


def offered_months(response) -> list[str]:
    """Return the months the date hierarchy links to, in order."""
    return re.findall(r'href="\?created_month=(\d{4}-\d{2})[&"]', response.content.decode())


def test_the_date_hierarchy_offers_no_month_or_year_after_today(admin_client_, dynamo):
    today = timezone.localdate()
    this_year = admin_client_.get("/admin/users/user/")
    last_year = admin_client_.get("/admin/users/user/", {"year": today.year - 1})
    next_year = admin_client_.get("/admin/users/user/", {"year": today.year + 1})

    assert offered_months(this_year) == [f"{today.year}-{m:02d}" for m in range(1, today.month + 1)]
    assert f"year={today.year + 1}" not in this_year.content.decode()
    assert f"?year={today.year - 1}" in this_year.content.decode()
    assert offered_months(last_year) == [f"{today.year - 1}-{m:02d}" for m in range(1, 13)]
    assert f"?year={today.year}" in last_year.content.decode()
    assert offered_months(next_year) == offered_months(this_year)


@ON_MOTO
@pytest.mark.parametrize("cursor", ["garbage", "eyJrIjp7fX0:1t:bad-signature", "a" * 40, "%00"])
def test_a_tampered_or_malformed_cursor_gives_a_400_page(admin_client_, dynamo, cursor):
    response = admin_client_.get(SKILLS, {"cursor": cursor})

    assert response.status_code == 400
    assert b"invalid or has been tampered with" in response.content


@ON_MOTO
def test_a_cursor_made_for_another_listing_gives_a_400_page(admin_client_, few):
    next_url = link(admin_client_.get(SKILLS), "next")
    token = parse_qs(urlsplit(next_url).query)["cursor"][0]

    response = admin_client_.get(SKILLS, {"cursor": token, "category": "Cloud"})

    assert response.status_code == 400
    assert b"belongs to another listing" in response.content


def test_a_re_signed_cursor_with_a_malformed_key_gives_a_400_page(admin_client_, dynamo):
    token = signing.dumps(
        {"s": "catalog.skill|scan", "k": {"skill_id": "x"}, "t": []},
        salt="dynamo_admin.changelist",
        compress=True,
    )

    response = admin_client_.get(SKILLS, {"cursor": token})

    assert response.status_code == 400


def test_columns_render_sets_exact_numbers_and_empty_values(admin_client_, dynamo):
    Skill("rust", name="Rust", category="Programming", tags={"systems", "fast"}).save()
    # Stored as an older release or another tool could have: rendering, not rules, is tested.
    odd = UserStats("alice", xp=12345678901, efficiency=33.333333333333336, accuracy=0.1)
    odd.leaderboard_partition = "ALL"  # on the board, which the listing opens with (by XP)
    odd.version = 1
    batch_put(UserStats, [odd], prepare=False)

    skills = admin_client_.get(SKILLS).content.decode()
    stats = admin_client_.get("/admin/stats/userstats/").content.decode()

    assert "<td>fast, systems</td>" in skills
    assert "<td>12345678901</td>" in stats
    assert "<td>33.333333333333336</td>" in stats
    assert "<td>0.1</td>" in stats
    assert "<td>-</td>" in stats  # no reminder scheduled


@ON_MOTO
def test_html_in_stored_values_is_escaped_on_the_changelist(admin_client_, dynamo):
    Skill("xss", name="<script>alert(1)</script>", category="Other").save()

    page = admin_client_.get(SKILLS).content.decode()

    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@ON_MOTO
def test_the_footer_shows_the_pages_dynamodb_calls(admin_client_, few):
    page = admin_client_.get(SKILLS).content.decode()

    assert 'id="dynamodb-meter"' in page
    assert f"{len(CATEGORIES)} DynamoDB calls, " in page
    assert "RCU" in page and "WCU" in page


def test_a_skill_name_in_any_case_lists_its_holders_in_two_calls(admin_client_, dynamo):
    skills = [
        Skill("python", name="Python", category="Programming"),
        Skill("go", name="Go", category="Programming"),
    ]
    for skill in skills:
        skill.save()
    learners_for(["ann", "ben", "cyd"])
    for username, skill in [("ann", skills[0]), ("ben", skills[1]), ("cyd", skills[0])]:
        UserSkill.for_catalog(username, skill, proficiency="Beginner", years=1).save()

    response = admin_client_.get("/admin/users/userskill/", {"q": "PYTHON"})

    assert listed(response) == ["ann,python", "cyd,python"]
    assert calls(response) == 2  # the catalog's name key, then the skill's holders


def test_a_username_and_a_caret_prefix_still_find_a_learners_skills(admin_client_, dynamo):
    Skill("kotlin", name="Kotlin", category="Programming").save()
    Skill("rust", name="Rust", category="Programming").save()
    learners_for(["ychen"])
    for skill_id in ("kotlin", "rust"):
        UserSkill.for_catalog("ychen", Skill.get(skill_id), proficiency="Expert", years=2).save()

    response = admin_client_.get("/admin/users/userskill/", {"q": "ychen ^k"})

    assert listed(response) == ["ychen,kotlin"]
