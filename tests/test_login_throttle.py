"""The admin's login is throttled per username from one address and per client address
(django-axes), and failed API tokens per address: a styled 429 page or problem, a cool-off,
an unlock, and a word at the next login about the failures since the last."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.models import User as StaffUser
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from api.models import ApiToken
from tests.admin_fixtures import client_for
from tests.api_fixtures import ApiClient, problem_of
from tests.servers import RedisServer

# Login throttling lives in Django's database and cache, not in DynamoDB: moto alone.
pytestmark = pytest.mark.engines("moto")

LOGIN = "/admin/login/"
PASSWORD = "the-right-password-42"


@pytest.fixture
def root(db) -> StaffUser:
    return StaffUser.objects.create_superuser("root", "root@example.com", PASSWORD)


@pytest.fixture
def ann(db) -> StaffUser:
    return StaffUser.objects.create_user("ann", "ann@example.com", PASSWORD, is_staff=True)


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def log_in(client: Client, username: str, password: str = PASSWORD):
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})


def logged_in(response) -> bool:
    return response.status_code == 302 and "_auth_user_id" in response.wsgi_request.session


def fail(client: Client, username: str, times: int | None = None) -> None:
    """Post wrong passwords: the form's error, and at the limit-th the lockout."""
    for _ in range(times or settings.AXES_FAILURE_LIMIT):
        assert log_in(client, username, "wrong").status_code in (200, 429)


def test_after_the_limit_the_right_password_gets_the_styled_lockout_page(root):
    client = from_address("203.0.113.7")
    fail(client, "root")

    response = log_in(client, "root")

    page = response.content.decode()
    assert response.status_code == 429 and not logged_in(response)
    assert int(response["Retry-After"]) == settings.AXES_COOLOFF_TIME.total_seconds()
    assert "Too many failed logins" in page and "axes_reset_username" in page
    assert "admin/css/base.css" in page  # the admin's own look, not a bare text


def test_six_wrong_passwords_for_root_lock_that_address_and_not_root_elsewhere(root):
    guesser = from_address("203.0.113.8")
    fail(guesser, "root", times=6)

    assert log_in(guesser, "root").status_code == 429
    assert logged_in(log_in(from_address("192.0.2.1"), "root"))
    # The pair stays locked after root's own login elsewhere: a success clears nothing.
    assert log_in(guesser, "root").status_code == 429


def test_behind_the_trusted_proxy_the_forwarded_address_is_what_gets_locked(root, settings):
    settings.CLIENT_IP_PROXY_COUNT = 1

    def via_proxy(address: str) -> Client:
        return Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=address)

    fail(via_proxy("198.51.100.40"), "root", times=6)

    assert log_in(via_proxy("198.51.100.40"), "root").status_code == 429
    assert logged_in(log_in(via_proxy("192.0.2.41"), "root"))


def test_failures_for_one_username_from_many_addresses_lock_none_of_them(root):
    for n in range(settings.AXES_FAILURE_LIMIT * 2):
        fail(from_address(f"198.51.100.{n}"), "root", times=1)

    assert logged_in(log_in(from_address("192.0.2.1"), "root"))


def test_an_address_spraying_usernames_is_locked_for_every_username_and_others_are_not(root, ann):
    guesser = from_address("203.0.113.9")
    # Each username stays under its own limit; the address's total reaches the address's.
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        fail(guesser, f"nobody{n % 5}", times=1)

    assert log_in(guesser, "ann").status_code == 429
    assert logged_in(log_in(from_address("192.0.2.2"), "ann"))


def test_an_address_under_its_limit_may_still_log_in_to_another_account(root, ann):
    guesser = from_address("203.0.113.16")
    fail(guesser, "root", times=settings.AXES_FAILURE_LIMIT)

    assert log_in(guesser, "root").status_code == 429
    assert logged_in(log_in(guesser, "ann"))


def test_the_next_login_says_how_many_failures_there_were_since_the_last(root, dynamo):
    # The admin index the login leads to lists Recent actions from DynamoDB: hence `dynamo`.
    assert logged_in(log_in(from_address("192.0.2.50"), "root"))
    fail(from_address("203.0.113.51"), "root", times=3)
    client = from_address("192.0.2.50")

    index = client.post(
        LOGIN, {"username": "root", "password": PASSWORD, "next": "/admin/"}, follow=True
    )
    again = from_address("192.0.2.50").post(
        LOGIN, {"username": "root", "password": PASSWORD, "next": "/admin/"}, follow=True
    )

    page = index.content.decode()
    assert index.request["PATH_INFO"] == "/admin/"
    assert "There were 3 failed logins to your account since your last login" in page
    assert "203.0.113.51" in page
    # Told once: the login after it had no failures before it.
    assert "failed login" not in again.content.decode()


def test_successful_logins_are_not_counted(root):
    for _ in range(settings.AXES_FAILURE_LIMIT * 2):
        assert logged_in(log_in(from_address("192.0.2.3"), "root"))
    assert not AccessAttempt.objects.exists()


def test_a_lockout_ends_after_the_cool_off(root):
    client = from_address("203.0.113.10")
    fail(client, "root")
    assert log_in(client, "root").status_code == 429

    # As if the cool-off had passed since every attempt.
    AccessAttempt.objects.update(
        attempt_time=timezone.now() - settings.AXES_COOLOFF_TIME - timedelta(seconds=1)
    )

    assert logged_in(log_in(client, "root"))


def test_a_superuser_unlocks_a_username_with_axes_reset_username(root):
    client = from_address("203.0.113.11")
    fail(client, "root")

    call_command("axes_reset_username", "root", stdout=StringIO())

    assert logged_in(log_in(client, "root"))


def test_a_superuser_unlocks_from_the_admins_access_attempts(root, ann):
    client = from_address("203.0.113.12")
    fail(client, "ann")
    [attempt] = AccessAttempt.objects.all()
    admin = client_for(root)
    assert admin.get("/admin/axes/accessattempt/").status_code == 200

    admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})

    assert not AccessAttempt.objects.exists()
    assert logged_in(log_in(client, "ann"))


def test_failed_api_tokens_from_one_address_are_throttled_with_retry_after(root):
    _, secret = ApiToken.issue(root)
    guesser = ApiClient("sb_guess", REMOTE_ADDR="203.0.113.20")
    limit = int(settings.API_TOKEN_FAILURE_RATE.split("/")[0])
    for _ in range(limit):
        assert guesser.get("/api/skills").status_code == 401

    refused = guesser.get("/api/skills")
    # Even the right token is refused from that address until the window passes.
    right_from_there = ApiClient(secret, REMOTE_ADDR="203.0.113.20").get("/api/skills")

    assert refused.status_code == right_from_there.status_code == 429
    assert problem_of(refused)["status"] == 429 and int(refused["Retry-After"]) >= 1
    assert ApiClient(secret, REMOTE_ADDR="192.0.2.30").get("/api/skills").status_code != 429


def test_failed_api_tokens_are_still_throttled_while_redis_is_down(root, settings):
    with RedisServer() as redis:
        settings.CACHES = {
            **settings.CACHES,
            "default": {"BACKEND": "project.cache.RedisCache", "LOCATION": redis.url},
        }
        guesser = ApiClient("sb_guess", REMOTE_ADDR="203.0.113.21")
        limit = int(settings.API_TOKEN_FAILURE_RATE.split("/")[0])
        assert guesser.get("/api/skills").status_code == 401  # counted in Redis too
        redis.stop()

        for _ in range(limit - 1):
            assert guesser.get("/api/skills").status_code == 401
        refused = guesser.get("/api/skills")

    # The host's own count holds the line the shared one can no longer hold.
    assert refused.status_code == 429
    assert problem_of(refused)["status"] == 429 and int(refused["Retry-After"]) >= 1


def test_fewer_failures_than_the_limit_leave_the_login_open(root):
    client = from_address("203.0.113.13")
    fail(client, "root", times=settings.AXES_FAILURE_LIMIT - 1)

    assert logged_in(log_in(client, "root"))


def test_a_forwarded_address_counts_only_from_a_trusted_proxy(root, ann, settings):
    # No proxy trusted (the default): a client's X-Forwarded-For changes nothing.
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        client = Client(REMOTE_ADDR="203.0.113.14", HTTP_X_FORWARDED_FOR=f"10.9.9.{n}")
        fail(client, f"nobody{n}", times=1)
    assert log_in(from_address("203.0.113.14"), "ann").status_code == 429

    # Behind one trusted proxy, the address it appended is the client's; what came before is not.
    settings.CLIENT_IP_PROXY_COUNT = 1
    proxy = "10.0.0.1"
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT):
        client = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"6.6.6.{n}, 198.51.100.77")
        fail(client, f"other{n}", times=1)
    spoofing = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="192.0.2.99, 198.51.100.77")
    assert log_in(spoofing, "ann").status_code == 429
    assert logged_in(log_in(Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="192.0.2.5"), "ann"))


def test_logging_in_to_ones_own_account_does_not_reset_guesses_at_another(root, ann):
    guesser = from_address("203.0.113.15")
    fail(guesser, "root", times=settings.AXES_FAILURE_LIMIT - 1)
    assert logged_in(log_in(guesser, "ann"))

    fail(guesser, "root", times=1)

    assert log_in(guesser, "root").status_code == 429
