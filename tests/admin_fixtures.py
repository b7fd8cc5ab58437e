"""Fixtures for the admin tests: named staff users, logged-in clients and a little data."""

from __future__ import annotations

import html
import re

import pytest
from django.contrib.auth.models import Permission
from django.contrib.auth.models import User as StaffUser
from django.test import Client

from catalog.models import Skill
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
