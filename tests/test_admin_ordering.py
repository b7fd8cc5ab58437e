"""Listings in the declared order where an index serves it, and Django's sortable headers."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest

from catalog.models import Skill
from dynamo.batch import batch_put
from dynamo_admin.sources import EMPTY_MONTHS_ENDING_A_WALK
from tests.admin_fixtures import calls, link, listed
from users.models import User

USERS = "/admin/users/user/"
SKILLS = "/admin/catalog/skill/"


def months_ago(months: int, day: int = 10) -> datetime:
    now = datetime.now(UTC)
    year, month = now.year, now.month - months
    while month < 1:
        year, month = year - 1, month + 12
    return datetime(year, month, min(day, 28), 12, tzinfo=UTC)


@pytest.fixture
def signups(dynamo, monkeypatch) -> list[str]:
    """Six learners over four months (one of them empty), two to a page; newest first."""
    from users.admin import UserAdmin

    monkeypatch.setattr(UserAdmin, "list_per_page", 2)
    when = {
        "fay": datetime.now(UTC) - timedelta(minutes=1),
        "eve": datetime.now(UTC) - timedelta(minutes=2),
        "dan": months_ago(1, 20),
        "cat": months_ago(1, 5),
        "bob": months_ago(3, 9),
        "amy": months_ago(3, 2),
    }
    for username, created in when.items():
        User(username, name=username, email=f"{username}@example.com", created_at=created).save()
    return list(when)


def pages(client, url: str) -> tuple[list[list[str]], list[int]]:
    """Follow the next links from url; return each page's ids and its DynamoDB calls."""
    found, costs = [], []
    while url:
        response = client.get(url)
        assert response.status_code == 200
        found.append(listed(response))
        costs.append(calls(response))
        url = link(response, "next")
    return found, costs


def test_users_are_listed_newest_first_month_by_month(admin_client_, signups):
    found, costs = pages(admin_client_, USERS)

    assert found == [["fay", "eve"], ["dan", "cat"], ["bob", "amy"]]
    # Each page reads its months from where the last one stopped: a few Queries, no Scan;
    # the last one also reads the year of empty months that ends the walk.
    assert max(costs[:-1]) <= 4  # the months a page spans, one of them empty
    assert costs[-1] <= 3 + EMPTY_MONTHS_ENDING_A_WALK


def test_the_users_created_at_header_shows_newest_first_and_offers_no_other_way(
    admin_client_, signups
):
    page = admin_client_.get(USERS).content.decode()

    header = re.search(r'<th scope="col" class="column-created_at[^"]*">.*?</th>', page, re.S)
    assert "sorted descending" in header.group(0)
    assert "href" not in header.group(0)  # the first month with sign-ups is not known


@pytest.fixture
def catalog(dynamo, monkeypatch) -> None:
    from users.catalog_admin import SkillAdmin

    monkeypatch.setattr(SkillAdmin, "list_per_page", 3)
    batch_put(
        Skill,
        [
            Skill("python", name="Python", category="Programming"),
            Skill("aws", name="AWS", category="Cloud"),
            Skill("docker", name="Docker", category="DevOps"),
            Skill("react", name="React", category="Frontend"),
            Skill("go", name="Go", category="Programming"),
        ],
    )


def test_skills_are_listed_by_name_across_categories_both_ways(admin_client_, catalog):
    ascending, _ = pages(admin_client_, SKILLS)
    descending, _ = pages(admin_client_, f"{SKILLS}?o=-1")

    assert ascending == [["aws", "docker", "go"], ["python", "react"]]
    assert descending == [["react", "python", "go"], ["docker", "aws"]]


def test_the_name_header_toggles_the_order_and_an_unindexed_column_has_no_link(
    admin_client_, catalog
):
    page = admin_client_.get(SKILLS).content.decode()

    name = re.search(r'<th scope="col" class="column-name[^"]*">.*?</th>', page, re.S).group(0)
    tags = re.search(r'<th scope="col" class="column-tags[^"]*">.*?</th>', page, re.S).group(0)
    assert "sorted ascending" in name and 'href="?o=-1"' in name
    assert "href" not in tags


def test_a_filtered_listing_sorts_by_its_index_both_ways(admin_client_, catalog):
    response = admin_client_.get(SKILLS, {"category": "Programming", "o": "-1"})

    assert listed(response) == ["python", "go"]
    assert calls(response) == 1
