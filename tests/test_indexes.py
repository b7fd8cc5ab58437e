"""Paging through every table and index with small limits returns every item exactly once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from catalog.models import CATEGORIES, Skill
from dynamo.batch import batch_put
from stats.models import METRICS, UserStats
from tests.helpers import totals_for
from users.models import PROFICIENCIES, User, UserSkill

START = datetime(2026, 1, 1, 9, tzinfo=UTC)


@pytest.fixture
def population(dynamo):
    """A small population with ties on every metric and several partitions per index."""
    skills = [
        Skill(f"skill-{i}", name=f"Skill {i % 4}", category=CATEGORIES[i % 3]) for i in range(9)
    ]
    batch_put(Skill, skills)
    users = []
    for i in range(23):
        user = User(f"user{i:02d}", name=f"User {i}", email=f"user{i}@example.com")
        user.created_at = START + timedelta(days=11 * i)
        if i % 5 == 0:
            user.deleted_at = START + timedelta(days=i, hours=i)
        users.append(user)
    batch_put(User, users)
    holdings = [
        UserSkill.for_catalog(
            user.username,
            skill,
            proficiency=PROFICIENCIES[(i + j) % 4],
            years=(i * j) % 7,
        )
        for i, user in enumerate(users)
        for j, skill in enumerate(skills)
        if (i + j) % 3 == 0
    ]
    for n, holding in enumerate(holdings):
        holding.created_at = START + timedelta(hours=n)
    batch_put(UserSkill, holdings)
    stats = []
    for i, user in enumerate(users):
        item = UserStats(
            user.username,
            xp=(i % 6) * 100,
            streak=i % 4,
            **totals_for(round(100 - (i % 7) * 3.3, 1), (i % 5) * 12.5),
        )
        item.schedule_reminder(START + timedelta(minutes=17 * i))
        # Made while every learner was live: new stats for a soft-deleted one are refused.
        item.learner = User(user.username, name=user.name)
        stats.append(item)
    batch_put(UserStats, stats)
    return {"skills": skills, "users": users, "holdings": holdings, "stats": stats}


def page_through(run, limit):
    """Call run(last_evaluated_key) page by page; return every item and the page count."""
    seen, key, pages = [], None, 0
    while True:
        results = run(key, limit)
        page = list(results)
        pages += 1
        seen += page
        key = results.last_evaluated_key
        if key is None:
            return seen, pages
        assert pages < 500, "paging does not end"


def keys(items):
    return sorted(item.pk for item in items)


@pytest.mark.parametrize("limit", [1, 3, 7])
def test_scanning_each_table_page_by_page_returns_every_item_once(population, limit):
    for model, expected in (
        (Skill, population["skills"]),
        (User, population["users"]),
        (UserSkill, population["holdings"]),
        (UserStats, population["stats"]),
    ):
        seen, _ = page_through(
            lambda key, n, model=model: model.scan(limit=n, last_evaluated_key=key), limit
        )
        assert keys(seen) == keys(expected)


@pytest.mark.parametrize("limit", [2, 5])
def test_every_index_pages_through_each_partition_exactly_once(population, limit):
    cases = [
        (Skill.gsi_category, "category", population["skills"]),
        (User.gsi_created_month, "created_month", population["users"]),
        (UserSkill.gsi_skill_id, "skill_id", population["holdings"]),
        (UserSkill.gsi_user_created_at, "username", population["holdings"]),
        (UserSkill.gsi_skill_level, "listed_skill_name", population["holdings"]),
        (UserStats.gsi_user_stats_reminders, "next_reminder_bucket", population["stats"]),
        *[
            (UserStats.leaderboard_index(metric), "leaderboard_partition", population["stats"])
            for metric in METRICS
        ],
    ]
    for index, partition_attribute, items in cases:
        # A sparse index: items without the partition attribute are in no partition.
        for value in {getattr(item, partition_attribute) for item in items} - {None}:
            for forward in (True, False):
                seen, _ = page_through(
                    lambda key, n, index=index, value=value, forward=forward: index.query(
                        value, scan_index_forward=forward, limit=n, last_evaluated_key=key
                    ),
                    limit,
                )
                expected = [i for i in items if getattr(i, partition_attribute) == value]
                assert keys(seen) == keys(expected), (index.Meta.index_name, value)
                assert len(seen) == len(expected)


def test_the_sparse_deleted_index_holds_only_soft_deleted_users(population):
    seen, _ = page_through(
        lambda key, n: User.gsi_deleted_at.scan(limit=n, last_evaluated_key=key), 2
    )

    assert keys(seen) == keys(u for u in population["users"] if u.deleted_at is not None)


def test_a_multi_attribute_sort_key_orders_by_each_attribute_in_turn(population):
    ranked = list(UserStats.gsi_leaderboard_xp.query("ALL", scan_index_forward=False))

    pairs = [(item.xp, item.username) for item in ranked]
    assert pairs == sorted(pairs, reverse=True)


def test_talent_search_uses_equality_then_a_range_on_the_sort_attributes(population):
    found = list(UserSkill.search("Skill 1", "Expert", 3))

    expected = [
        h
        for h in population["holdings"]
        if h.skill_name == "Skill 1"
        and h.proficiency == "Expert"
        and h.years >= 3
        and not User.get(h.username).is_deleted
    ]
    assert expected
    assert keys(found) == keys(expected)
    assert all(item.years >= 3 for item in found)


def test_a_cursor_taken_mid_page_carries_every_index_key_attribute(population):
    results = UserStats.gsi_leaderboard_accuracy.query("ALL", scan_index_forward=False)
    next(results)

    assert set(results.last_evaluated_key) == {"username", "leaderboard_partition", "accuracy"}
