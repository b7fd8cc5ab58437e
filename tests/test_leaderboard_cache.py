"""The leaderboard served from Django's cache for LEADERBOARD_CACHE_SECONDS."""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache

from dynamo.batch import batch_put
from stats.boards.cache import cache_key, refill_lock
from stats.boards.ranking import PAGE_SIZE
from stats.models import UserStats
from tests.admin_fixtures import calls
from tests.helpers import clear_caches, totals_for
from users.models import User

LEARNERS = [("alice", 900, 91.5), ("bob", 700, 70.0), ("carol", 500, 99.0)]


@pytest.fixture
def board(dynamo, settings):
    settings.LEADERBOARD_CACHE_SECONDS = 5
    clear_caches()  # what this process kept of earlier tests' boards
    batch_put(User, [User(u, name=u.title(), email=f"{u}@example.com") for u, *_ in LEARNERS])
    batch_put(
        UserStats, [UserStats(u, name=u.title(), xp=x, **totals_for(a)) for u, x, a in LEARNERS]
    )
    yield
    clear_caches()


def usernames(response):
    return [row["username"] for row in response.json()["results"]]


def give_xp(username, xp):
    stats = UserStats.get(username)
    stats.xp = xp
    stats.save()


def test_a_second_request_inside_the_ttl_makes_no_dynamodb_call(client, board):
    first = client.get("/leaderboard/?metric=xp&format=json")
    give_xp("carol", 1000)

    second = client.get("/leaderboard/?metric=xp&format=json")

    assert calls(first) == 1
    assert calls(second) == 0
    assert usernames(second) == usernames(first) == ["alice", "bob", "carol"]
    assert UserStats.get("carol").xp == 1000  # stored; the board shows it after the TTL


def test_after_the_ttl_the_board_is_read_again(client, board, settings, clock):
    settings.LEADERBOARD_CACHE_SECONDS = 1
    client.get("/leaderboard/?metric=xp&format=json")
    give_xp("carol", 1000)
    clock.advance(1.1)

    response = client.get("/leaderboard/?metric=xp&format=json")

    assert calls(response) == 1
    assert usernames(response) == ["carol", "alice", "bob"]


def test_html_and_json_variants_do_not_mix(client, board):
    html = client.get("/leaderboard/?metric=xp")
    by_accept = client.get("/leaderboard/?metric=xp", HTTP_ACCEPT="application/json")
    by_format = client.get("/leaderboard/?metric=xp&format=json")
    html_again = client.get("/leaderboard/?metric=xp", HTTP_ACCEPT="text/html")

    assert html["Content-Type"].startswith("text/html") and 'class="podium"' in html.text
    assert by_accept["Content-Type"] == "application/json" and usernames(by_accept)[0] == "alice"
    assert by_format["Content-Type"] == "application/json" and usernames(by_format)[0] == "alice"
    assert calls(html_again) == 0 and 'class="podium"' in html_again.text
    assert "Accept" in html_again["Vary"]


def test_metrics_users_and_cursors_each_have_their_own_entry(client, board):
    by_xp = client.get("/leaderboard/?metric=xp&format=json")
    by_accuracy = client.get("/leaderboard/?metric=accuracy&format=json")
    around_bob = client.get("/leaderboard/?metric=xp&user=bob&format=json")
    page = client.get("/leaderboard/?metric=xp&format=json&page_size=1")

    assert usernames(by_xp) == ["alice", "bob", "carol"]
    assert usernames(by_accuracy) == ["carol", "alice", "bob"]
    assert around_bob.json()["user_rank"] == 2 and calls(around_bob) != 0
    assert calls(page) == 0  # an unknown parameter cannot bypass the cache


def test_the_next_page_link_keeps_its_own_format_after_a_cached_accept_request(
    client, board, monkeypatch
):
    monkeypatch.setattr("stats.boards.cache.PAGE_SIZE", 2)
    by_accept = client.get("/leaderboard/?metric=xp", HTTP_ACCEPT="application/json").json()

    by_format = client.get("/leaderboard/?metric=xp&format=json").json()
    following = client.get(by_format["next_url"])

    assert "format=json" not in by_accept["next_url"]
    assert "format=json" in by_format["next_url"]
    assert usernames(following) == ["carol"]


def test_an_unknown_learner_is_a_404_from_the_cache_too(client, board):
    first = client.get("/leaderboard/?metric=xp&user=zed&format=json")
    second = client.get("/leaderboard/?metric=xp&user=zed&format=json")

    assert first.status_code == second.status_code == 404
    # The board comes from the cache; only the search by name (one Query on learner-words,
    # one head's page at most) asks DynamoDB whether "zed" is someone's name.
    assert calls(second) == 1
    assert second.wsgi_request.dynamo_meter.calls[0].operation == "Query"
    assert second["Content-Type"] == "application/problem+json"
    assert "zed" in second.json()["detail"]


def test_a_tampered_cursor_is_still_a_400(client, board):
    client.get("/leaderboard/?metric=xp&format=json")
    response = client.get("/leaderboard/?metric=xp&format=json&cursor=forged")

    again = client.get("/leaderboard/?metric=xp&format=json&cursor=forged")

    assert response.status_code == again.status_code == 400


def test_a_zero_ttl_reads_dynamodb_every_time(client, board, settings):
    settings.LEADERBOARD_CACHE_SECONDS = 0
    client.get("/leaderboard/?metric=xp&format=json")

    response = client.get("/leaderboard/?metric=xp&format=json")

    assert calls(response) == 1


def test_each_metric_and_learner_gets_its_own_html_rows(client, board):
    by_xp = client.get("/leaderboard/?metric=xp").text
    by_accuracy = client.get("/leaderboard/?metric=accuracy").text
    around_bob = client.get("/leaderboard/?metric=xp&user=bob").text
    by_xp_again = client.get("/leaderboard/?metric=xp")

    assert by_xp.index("@alice") < by_xp.index("@bob") < by_xp.index("@carol")
    assert by_accuracy.index("@carol") < by_accuracy.index("@alice") < by_accuracy.index("@bob")
    assert 'is <span class="lb-you-rank">#2</span>' in around_bob
    assert calls(by_xp_again) == 0 and board_html(by_xp_again.text) == board_html(by_xp)


def board_html(page):
    return page[page.index('<section class="lb">') : page.index("</section>")]


def test_the_api_and_the_page_share_one_entry_per_board(client, board):
    page = client.get("/leaderboard/?metric=xp&format=json")
    give_xp("carol", 1000)

    api = client.get("/api/leaderboard/xp")
    api_again = client.get("/api/leaderboard/xp")
    smaller = client.get("/api/leaderboard/xp?limit=2")

    assert calls(page) == 1
    assert calls(api) == calls(api_again) == 0
    assert usernames(api) == usernames(page) == ["alice", "bob", "carol"]
    assert calls(smaller) == 1  # another page size is another entry
    assert usernames(smaller) == ["carol", "alice"]


def test_parameters_a_lookup_does_not_use_share_its_entry_and_cost_no_reads(client, board):
    first = client.get("/leaderboard/?metric=xp&user=bob&format=json")

    junk = [
        client.get(f"/leaderboard/?metric=xp&user=bob&format=json&cursor=junk{n}") for n in range(3)
    ]
    api = [client.get(f"/api/leaderboard/xp?user=bob&limit={n}&cursor=x{n}") for n in (1, 7, 100)]

    assert calls(first) > 0
    # A cursor and a page size mean nothing to a lookup: one entry, and no read for any of them.
    assert [calls(response) for response in junk + api] == [0] * 6
    assert {response.json()["user_rank"] for response in junk + api} == {2}
    assert len({cache_key("xp", user="bob", cursor=f"c{n}", limit=n) for n in (1, 50, 99)}) == 1


def test_the_default_page_size_and_no_page_size_are_one_entry(client, board):
    client.get("/api/leaderboard/xp")

    explicit = client.get(f"/api/leaderboard/xp?limit={PAGE_SIZE}")

    assert calls(explicit) == 0


def test_an_expired_board_another_process_is_refilling_is_served_stale_at_once(
    client, board, settings, clock
):
    settings.LEADERBOARD_CACHE_SECONDS = 1
    client.get("/leaderboard/?metric=xp&format=json")
    give_xp("carol", 1000)
    clock.advance(1.1)
    # Another process (or host, with a shared cache) holds the refill lock.
    assert cache.add(refill_lock(cache_key("xp")), "another-process", 30)

    response = client.get("/leaderboard/?metric=xp&format=json")

    assert response.status_code == 200
    assert calls(response) == 0
    assert usernames(response) == ["alice", "bob", "carol"]


def test_with_nothing_cached_a_request_waits_for_another_refill_one_engine_deadline_at_most(
    client, board, settings
):
    settings.DYNAMODB_CONNECT_TIMEOUT, settings.DYNAMODB_READ_TIMEOUT = 0.2, 0.3
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    assert cache.add(refill_lock(cache_key("xp")), "another-process", 30)

    started = time.monotonic()
    response = client.get("/leaderboard/?metric=xp")
    waited = time.monotonic() - started

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert calls(response) == 0
    assert 0.5 <= waited < 1.5  # the 0.5 s deadline, and whatever a busy machine adds


def test_a_refill_lock_left_by_a_dead_process_expires(client, board, settings, clock):
    settings.DYNAMODB_CONNECT_TIMEOUT, settings.DYNAMODB_READ_TIMEOUT = 0.2, 0.3
    settings.DYNAMODB_MAX_ATTEMPTS = 1
    # What a process killed mid-refill leaves: a lock that outlives nobody's deadline.
    assert cache.add(refill_lock(cache_key("xp")), "a-killed-process", 1)
    clock.advance(1.1)

    response = client.get("/leaderboard/?metric=xp&format=json")

    assert response.status_code == 200 and calls(response) == 1


def test_a_staff_board_is_private_and_an_anonymous_one_public_as_long_as_the_server_keeps_it(
    client, admin_client_, board
):
    anonymous = [
        client.get("/leaderboard/?metric=xp"),
        client.get("/leaderboard/?metric=xp&format=json"),
    ]
    staff = [
        admin_client_.get("/leaderboard/?metric=xp"),
        admin_client_.get("/leaderboard/?metric=xp&format=json"),
    ]

    for response in anonymous:
        assert response["Cache-Control"] == "public, max-age=5"  # LEADERBOARD_CACHE_SECONDS
        assert {"Accept", "Cookie"} <= {v.strip() for v in response["Vary"].split(",")}
        assert "X-DynamoDB-Calls" not in response
    for response in staff:
        # It carries the meter's headers (and footer): no shared cache may keep it.
        assert "X-DynamoDB-Calls" in response
        assert response["Cache-Control"] == "private"


def test_the_board_is_rendered_once_per_entry_and_the_staff_footer_per_request(
    client, admin_client_, board
):
    first = client.get("/leaderboard/?metric=xp")
    again = client.get("/leaderboard/?metric=xp")
    staff = admin_client_.get("/leaderboard/?metric=xp")

    def rendered(response):
        return [t.name for t in response.templates]

    assert "stats/leaderboard.html" in rendered(first)
    assert "stats/leaderboard.html" not in rendered(again) + rendered(staff)
    assert board_html(again.text) == board_html(staff.text) == board_html(first.text)
    assert '<footer class="meter">' in staff.text and "meter" not in again.text


def test_a_fresh_entry_this_process_holds_is_served_without_a_cache_read(client, board):
    client.get("/leaderboard/?metric=xp&format=json")
    cache.clear()  # as if the shared cache lost it: the process's own fresh copy still serves

    response = client.get("/leaderboard/?metric=xp&format=json")

    assert calls(response) == 0 and usernames(response) == ["alice", "bob", "carol"]
