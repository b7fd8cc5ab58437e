"""Sortable headers: every column an index serves sorts by `?o=`, both ways, in few calls."""

from __future__ import annotations

import re

import pytest
from django.test import override_settings

from catalog.models import Skill
from dynamo.batch import batch_put
from stats.models import UserStats
from tests.admin_fixtures import calls, link, listed
from tests.helpers import learners_for, totals_for
from users.models import UserSkill

STATS = "/admin/stats/userstats/"
# UserStatsAdmin.list_display: username, name, xp, streak, efficiency, accuracy, ...
XP, STREAK, EFFICIENCY, ACCURACY = 2, 3, 4, 5


def sortable_headers(response) -> list[str]:
    return re.findall(r'<th scope="col" class="column-(\w+) sortable', response.content.decode())


@pytest.fixture
def board(dynamo) -> list[UserStats]:
    """Seven learners, scores in distinct orders, three tied on the streak."""
    names = [f"user{n}" for n in range(7)]
    learners_for(names)
    stats = [
        UserStats(
            name, xp=n * 10, streak=min(n, 3), **totals_for(50.0 + n, 40.0 if n % 2 else 20.0)
        )
        for n, name in enumerate(names)
    ]
    batch_put(UserStats, stats)
    return stats


def test_the_stats_listing_offers_every_metric_header(admin_client_, board):
    response = admin_client_.get(STATS)

    assert {"xp", "streak", "efficiency", "accuracy"} <= set(sortable_headers(response))


@pytest.mark.parametrize(
    ("order", "key"),
    [
        (f"{XP}", lambda s: (s.xp, s.username)),
        (f"-{XP}", lambda s: (-s.xp, s.username)),
        (f"{EFFICIENCY}", lambda s: (s.efficiency, s.username)),  # ties by username
        (f"-{ACCURACY}", lambda s: (-s.accuracy, s.username)),
    ],
)
def test_a_metric_header_sorts_through_its_leaderboard_index_in_one_call(
    admin_client_, board, order, key
):
    response = admin_client_.get(STATS, {"o": order})

    expected = [s.username for s in sorted(board, key=key)]
    assert listed(response) == expected
    assert calls(response) == 1
    assert "gsi_leaderboard_" in response.content.decode()


def walk(client, url: str) -> list[str]:
    seen = []
    while url:
        response = client.get(url)
        assert response.status_code == 200
        seen += listed(response)
        url = link(response, "next")
    return seen


@pytest.mark.parametrize("shards", [1, 3])
def test_pages_sorted_by_a_tied_metric_show_everyone_once_on_any_shard_count(
    admin_client_, dynamo, monkeypatch, shards
):
    from stats.admin import UserStatsAdmin

    monkeypatch.setattr(UserStatsAdmin, "list_per_page", 3)
    with override_settings(LEADERBOARD_SHARDS=shards):
        names = [f"user{n:02d}" for n in range(10)]
        learners_for(names)
        # Eight learners tied on streak 2: more than a page, so pages must resume inside a tie.
        batch_put(UserStats, [UserStats(n, streak=2 if i < 8 else 5) for i, n in enumerate(names)])
        first = admin_client_.get(STATS, {"o": f"-{STREAK}"})
        assert calls(first) == shards

        seen = walk(admin_client_, f"{STATS}?o=-{STREAK}")

    # Descending: the two with streak 5 first, then the tie by username descending.
    assert seen == ["user09", "user08", *[f"user{n:02d}" for n in range(7, -1, -1)]]


def test_the_sorted_header_toggles_its_direction(admin_client_, board):
    response = admin_client_.get(STATS, {"o": f"-{XP}"})

    page = response.content.decode()
    assert 'class="column-xp sortable sorted descending"' in page
    assert f'href="?o={XP}"' in page


USER_SKILLS = "/admin/users/userskill/"
LEVEL = 3  # UserSkillAdmin.list_display: username, skill_id, skill_name, level, years, ...


@pytest.fixture
def holders(dynamo) -> list[UserSkill]:
    """Python held at four levels (two Experts apart by years), SQL by one more learner."""
    python = Skill("python", name="Python", category="Programming")
    sql = Skill("sql", name="SQL", category="Data")
    batch_put(Skill, [python, sql])
    held = [("ana", "Advanced", 3), ("ben", "Beginner", 1), ("cyd", "Expert", 9)]
    held += [("dee", "Intermediate", 2), ("eve", "Expert", 4)]
    learners_for([name for name, _, _ in held] + ["fay"])
    skills = [UserSkill.for_catalog(n, python, proficiency=p, years=y) for n, p, y in held]
    for skill in [*skills, UserSkill.for_catalog("fay", sql, proficiency="Expert", years=1)]:
        skill.save()
    return skills


def test_within_a_skill_the_level_header_sorts_its_holders_both_ways_in_one_call(
    admin_client_, holders
):
    highest = admin_client_.get(USER_SKILLS, {"skill_name": "Python"})
    lowest = admin_client_.get(USER_SKILLS, {"skill_name": "Python", "o": f"{LEVEL}"})

    by_level = ["ben,python", "dee,python", "ana,python", "eve,python", "cyd,python"]
    assert listed(highest) == by_level[::-1]  # the ordering's -level: the experts first
    assert listed(lowest) == by_level
    assert calls(highest) == calls(lowest) == 1
    page = highest.content.decode()
    assert 'class="column-level sortable sorted descending"' in page
    assert f'href="?o={LEVEL}&amp;skill_name=Python"' in page  # the toggle keeps the filter
    assert "<td>4 (Expert)</td>" in page
    assert f'href="?o=-{LEVEL}&amp;skill_name=Python"' in lowest.content.decode()


def test_the_level_header_is_not_sortable_across_every_skill(admin_client_, holders):
    response = admin_client_.get(USER_SKILLS)

    assert "level" not in sortable_headers(response)
    assert "column-level" in response.content.decode()
