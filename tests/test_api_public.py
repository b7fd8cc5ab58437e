"""`/api/leaderboard/{metric}` and `/api/search`: public, and answering what the pages answer."""

from __future__ import annotations

import pytest

from catalog.choices import skill_names
from catalog.models import Skill
from dynamo.batch import batch_put
from tests.admin_fixtures import calls
from tests.api_fixtures import problem_of
from users.models import User, UserSkill

# Problems for bad parameters and the spelling a search accepts are checked on moto alone
# (ON_MOTO); rankings, searches and their cursors run on both engines.
ON_MOTO = pytest.mark.engines("moto")


def follow(client, url: str) -> list[dict]:
    """Return every page's rows, following the Link headers."""
    rows = []
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.content
        rows += response.json()["results"]
        link = response.get("Link")
        assert (link is None) == (response.json()["next"] is None)
        url = link[1 : link.index(">")] if link else None
    return rows


def test_the_leaderboard_needs_no_credentials_and_ranks_as_the_page(ranked_learners, anonymous):
    response = anonymous.get("/api/leaderboard/xp")
    assert response.status_code == 200
    page = anonymous.get("/leaderboard/?metric=xp&format=json").json()
    assert response.json()["results"] == page["results"]
    assert [(r["rank"], r["username"]) for r in response.json()["results"][:3]] == [
        (1, "alice"),
        (2, "carol"),
        (2, "bob"),
    ]
    assert calls(response) == 2  # one Query per shard


def test_the_leaderboard_pages_by_cursor_to_the_end(ranked_learners, anonymous):
    rows = follow(anonymous, "/api/leaderboard/accuracy?limit=2")
    assert [r["username"] for r in rows] == ["erin", "alice", "carol", "bob", "dave"]
    assert [r["rank"] for r in rows] == [1, 2, 3, 4, 5]


def test_a_learners_rank_comes_with_their_neighbours(ranked_learners, anonymous):
    body = anonymous.get("/api/leaderboard/streak?user=carol").json()
    assert (body["user"], body["user_rank"]) == ("carol", 4)
    # Five learners fit in the top tier (or, with no tiers yet, are all counted): exact.
    assert (body["user_rank_exact"], body["user_rank_label"], body["ranks_exact"]) == (
        True,
        "4",
        True,
    )
    assert "carol" in [r["username"] for r in body["results"]]


@ON_MOTO
def test_the_leaderboards_errors_are_problems(ranked_learners, anonymous):
    assert problem_of(anonymous.get("/api/leaderboard/karma"))["status"] == 404
    assert problem_of(anonymous.get("/api/leaderboard/xp?user=nobody"))["status"] == 404
    bad = anonymous.get("/api/leaderboard/xp?cursor=forged")
    assert bad.status_code == 400 and "invalid" in problem_of(bad)["detail"]


@pytest.fixture
def holders(dynamo):
    """Python holders at several levels and years."""
    python = Skill("python", name="Python", category="Programming")
    python.save()
    rows = [
        ("alice", "Expert", 9),
        ("bob", "Expert", 5),
        ("carol", "Expert", 4),
        ("dave", "Advanced", 7),
        ("erin", "Beginner", 1),
    ]
    batch_put(User, [User(u, name=u.title(), email=f"{u}@example.com") for u, *_ in rows])
    batch_put(
        UserSkill,
        [UserSkill.for_catalog(u, python, proficiency=p, years=y) for u, p, y in rows],
    )


def test_the_search_needs_no_credentials_and_finds_what_the_page_finds(holders, anonymous):
    query = "skill=Python&level=Expert&min_years=5"
    skill_names()  # the catalog's names, cached as the page's form reads them
    response = anonymous.get(f"/api/search?{query}")
    assert response.status_code == 200
    found = [h["username"] for h in response.json()["results"]]
    page = anonymous.get(f"/skills/search/?{query}")
    assert found == [h.username for h in page.context["holders"]] == ["alice", "bob"]
    assert response.json()["results"][0] == {
        "username": "alice",
        "name": "Alice",
        "skill_id": "python",
        "skill_name": "Python",
        "category": "Programming",
        "proficiency": "Expert",
        "years": 9,
    }
    assert calls(response) == 2  # the Query, then the names in one BatchGetItem


@ON_MOTO
@pytest.mark.parametrize("typed", ["python", "PYTHON", " pýthon "])
def test_the_search_finds_a_skill_whatever_its_case_as_the_page_does(holders, anonymous, typed):
    exact = anonymous.get("/api/search?skill=Python").json()["results"]
    found = anonymous.get("/api/search", {"skill": typed}).json()["results"]
    page = anonymous.get("/skills/search/", {"skill": typed})

    assert found == exact and len(found) == 5
    assert [h["username"] for h in found] == [h.username for h in page.context["holders"]]
    assert {h["skill_name"] for h in found} == {"Python"}


def test_the_search_finds_a_level_or_better_best_first(holders, anonymous):
    rows = follow(anonymous, "/api/search?skill=Python&min_level=Advanced&min_years=5&limit=2")
    assert [r["username"] for r in rows] == ["alice", "bob", "dave"]


def test_the_search_pages_by_cursor(holders, anonymous):
    rows = follow(anonymous, "/api/search?skill=Python&limit=2")
    assert sorted(r["username"] for r in rows) == ["alice", "bob", "carol", "dave", "erin"]


@ON_MOTO
def test_a_bad_search_names_the_fields_with_the_forms_messages(holders, anonymous):
    response = anonymous.get("/api/search?skill=P&level=Guru")
    assert response.status_code == 422
    assert {e["field"] for e in problem_of(response)["errors"]} == {"skill", "level"}
    assert problem_of(anonymous.get("/api/search"))["status"] == 422
    bad = anonymous.get("/api/search?skill=Python&cursor=forged")
    assert bad.status_code == 400
