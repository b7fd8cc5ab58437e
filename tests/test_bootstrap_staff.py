"""bootstrap_staff: the first superuser, with a random password printed once."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import RequestFactory

pytestmark = pytest.mark.django_db


def logs_in(username: str, password: str):
    """Authenticate as the login page does: django-axes checks every attempt's request."""
    request = RequestFactory().post("/admin/login/")
    return authenticate(request, username=username, password=password)


def bootstrap(**options) -> str:
    out = StringIO()
    call_command("bootstrap_staff", stdout=out, **options)
    return out.getvalue()


def test_it_creates_an_admin_whose_printed_password_logs_in():
    output = bootstrap()

    match = re.fullmatch(
        r"Staff login: admin / (\S+)  \(http://127\.0\.0\.1:8000/admin/\)\n", output
    )
    assert match
    admin = User.objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff
    assert logs_in("admin", match.group(1)) == admin
    assert len(match.group(1)) >= 20


def test_it_takes_another_username():
    output = bootstrap(username="root")

    assert output.startswith("Staff login: root / ")
    assert User.objects.get(username="root").is_superuser


def test_with_a_superuser_it_changes_nothing_and_says_how_to_reset():
    User.objects.create_superuser("boss", password="kept-as-is-123")

    output = bootstrap()

    assert "A superuser exists already (boss)" in output
    assert "manage.py changepassword boss" in output
    assert list(User.objects.values_list("username", flat=True)) == ["boss"]
    assert logs_in("boss", "kept-as-is-123") is not None


def test_running_it_twice_prints_the_password_only_once():
    first = bootstrap()

    second = bootstrap()

    password = first.split(" / ")[1].split()[0]
    assert password not in second
    assert User.objects.count() == 1


def test_a_plain_user_with_the_name_is_a_command_error():
    User.objects.create_user("admin", password="not-staff-123")

    with pytest.raises(CommandError, match="exists but is not a superuser"):
        bootstrap()

    assert not User.objects.get(username="admin").is_superuser
