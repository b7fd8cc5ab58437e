"""Fixtures for the admin tests: named staff users, logged-in clients and a little data."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import Permission
from django.contrib.auth.models import User as StaffUser
from django.test import Client

from catalog.models import Skill
from dynamo.batch import batch_put
from stats.models import UserStats
from tests.helpers import joined_long_ago, totals_for
from users.models import User, UserSkill


def client_for(user: StaffUser) -> Client:
    client = Client()
    client.force_login(user)
    return client


def staff(username: str, *perms: str) -> StaffUser:
    """Create a staff user holding these `app_label.codename` permissions."""
    user = StaffUser.objects.create_user(username, f"{username}@example.com", "pw", is_staff=True)
    for perm in perms:
        app_label, codename = perm.split(".")
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label=app_label, codename=codename)
        )
    return user


@pytest.fixture
def admin(db) -> StaffUser:
    """Ada, a superuser."""
    return StaffUser.objects.create_superuser("ada", "ada@example.com", "pw")


@pytest.fixture
def admin_client_(admin) -> Client:
    return client_for(admin)


@pytest.fixture
def viewer_client(db) -> Client:
    """Vic may view skills, users and user-skills, and change nothing."""
    return client_for(staff("vic", "catalog.view_skill", "users.view_user", "users.view_userskill"))


@pytest.fixture
def bare_staff_client(db) -> Client:
    """Sam is staff with no permission at all."""
    return client_for(staff("sam"))


@pytest.fixture
def python(dynamo) -> Skill:
    skill = Skill("python", name="Python", category="Programming", tags={"language"})
    skill.save()
    return skill


@pytest.fixture
def alice(dynamo, python) -> User:
    """Alice, with a Python skill and stats."""
    user = User("alice", name="Alice Liddell", email="alice@example.com")
    user.created_at = joined_long_ago()  # before any back-dated session a test records
    user.save()
    UserSkill.for_catalog("alice", python, proficiency="Expert", years=6).save()
    UserStats("alice", xp=120, streak=3, **totals_for(75.5, 50)).save()
    return user


@pytest.fixture
def bob(dynamo) -> User:
    """Bob Dylan, a learner who joined before any back-dated session a test records."""
    user = User("bob", name="Bob Dylan", email="bob@example.com", created_at=joined_long_ago())
    user.save()
    return user


def alice_change_post(**overrides: str) -> dict[str, str]:
    """Return the POST of alice's change page: her stored values and a blank skill row."""
    data = {
        "username": "alice",
        "name": "Alice Liddell",
        "email": "alice@example.com",
        "deleted_at_0": "",
        "deleted_at_1": "",
        "_version": "1",
        "userskill-TOTAL_FORMS": "2",
        "userskill-INITIAL_FORMS": "1",
        "userskill-MIN_NUM_FORMS": "0",
        "userskill-MAX_NUM_FORMS": "1000",
        "userskill-0-_key": "alice,python",
        "userskill-0-_version": "1",
        "userskill-0-proficiency": "Expert",
        "userskill-0-years": "6",
        "userskill-0-notes": "",
        "userskill-1-skill_id": "",
        "userskill-1-proficiency": "",
        "userskill-1-years": "",
        "userskill-1-notes": "",
        "userstats-TOTAL_FORMS": "1",
        "userstats-INITIAL_FORMS": "1",
        "userstats-MIN_NUM_FORMS": "0",
        "userstats-MAX_NUM_FORMS": "1000",
        "userstats-0-_key": "alice",
        "userstats-0-_version": "1",
        "userstats-0-xp": "120",
        "userstats-0-streak": "3",
        "userstats-0-efficiency": "50",
        "userstats-0-accuracy": "75.5",
        "userstats-0-next_reminder_at_0": "",
        "userstats-0-next_reminder_at_1": "",
    }
    return {**data, **overrides}


# Username, name, XP, streak, efficiency, accuracy: ties on XP, and each metric its own order.
RANKED_LEARNERS = [
    ("alice", "Alice Liddell", 900, 5, 80.0, 91.5),
    ("bob", "Bob Stone", 700, 12, 40.0, 70.0),
    ("carol", "Carol Danvers", 700, 1, 95.5, 88.0),
    ("dave", "Dave Lister", 300, 0, 10.0, 50.0),
    ("erin", "Erin Brook", 100, 3, 60.0, 99.0),
]


@pytest.fixture
def ranked_learners(dynamo, settings) -> None:
    """The five RANKED_LEARNERS with their stats, on a leaderboard of two shards."""
    settings.LEADERBOARD_SHARDS = 2
    batch_put(User, [User(u, name=n, email=f"{u}@example.com") for u, n, *_ in RANKED_LEARNERS])
    stats = [
        UserStats(u, xp=xp, streak=s, **totals_for(a, e)) for u, _, xp, s, e, a in RANKED_LEARNERS
    ]
    batch_put(UserStats, stats)


def record_session_action(client: Client, usernames: list[str], follow: bool = False, **figures):
    """POST the stats listing's study-session action, applied to these learners."""
    data = {"action": "record_study_session", "_selected_action": usernames, "apply": "1"}
    return client.post("/admin/stats/userstats/", {**data, **figures}, follow=follow)


def calls(response) -> int:
    """Return how many DynamoDB calls the response's request made."""
    return response.wsgi_request.dynamo_meter.count  # the X-DynamoDB-Calls figure, for anyone


def link(response, rel: str) -> str | None:
    """Return the URL of the page link with this rel (next, prev) in a changelist, or None."""
    match = re.search(rf'<a href="([^"]*)" rel="{rel}"', response.content.decode())
    if match is None:
        return None
    return response.request["PATH_INFO"] + html.unescape(match.group(1))


def listed(response) -> list[str]:
    """Return the object ids of the rows a changelist shows, in order."""
    return re.findall(r'name="_selected_action" value="([^"]*)"', response.content.decode())
