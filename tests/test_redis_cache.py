"""project.cache.RedisCache: Django's Redis cache that misses, never raises, while Redis is down."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from dynamo.local import free_port
from project.cache import RedisCache
from tests.servers import RedisServer
from tests.serving import BASE_DIR


def cache_at(url: str) -> RedisCache:
    return RedisCache(url, {"OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0}})


def outage_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "skillboard.cache"]


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as server:
        yield server


def test_entries_are_shared_by_every_cache_on_the_same_redis(redis_server):
    host_a, host_b = cache_at(redis_server.url), cache_at(redis_server.url)

    host_a.set("board", {"rows": [1, 2]}, 30)

    assert host_b.get("board") == {"rows": [1, 2]}
    assert host_b.get_many(["board", "nothing"]) == {"board": {"rows": [1, 2]}}


def test_with_nothing_listening_reads_miss_and_writes_are_dropped_without_raising():
    cache = cache_at(f"redis://127.0.0.1:{free_port()}/0")

    assert cache.get("board", "missed") == "missed"
    assert cache.set("board", 1, 30) is None
    assert cache.add("board", 1, 30) is False
    assert cache.get_many(["a", "b"]) == {}
    assert cache.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert cache.delete("board") is False
    assert cache.has_key("board") is False
    assert cache.get_or_set("board", 7, 30) == 7


def test_an_outage_is_logged_once_and_its_end_once(caplog):
    caplog.set_level(logging.INFO, logger="skillboard.cache")
    with RedisServer() as server:
        server.stop()
        cache = cache_at(server.url)
        for _ in range(5):
            cache.get("board")
            cache.set("board", 1, 30)
        assert len(outage_lines(caplog)) == 1
        assert "cannot be reached" in outage_lines(caplog)[0]

        server.start()
        cache.set("board", 2, 30)

        assert cache_at(server.url).get("board") == 2  # sharing resumed
    assert len(outage_lines(caplog)) == 2
    assert outage_lines(caplog)[1].endswith("answers again")


def test_a_redis_cache_url_selects_it_with_short_timeouts():
    show = "from django.conf import settings; print(settings.CACHES['default'])"
    result = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {show}"],
        cwd=BASE_DIR,
        env={
            "PATH": "/usr/bin:/bin",
            "DJANGO_SETTINGS_MODULE": "project.settings",
            "DJANGO_ENV_FILE": "",
            "DJANGO_DEBUG": "true",
            "DYNAMODB_LOCAL_RUNNING_FILE": "",  # a running `make run` is none of its business
            "CACHE_URL": "redis://cache.internal:6379/1?socket_timeout=0.25",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert result.returncode == 0, result.stderr
    assert "'BACKEND': 'project.cache.RedisCache'" in result.stdout
    assert "'socket_connect_timeout': 1.0" in result.stdout
    assert "'socket_timeout': 0.25" in result.stdout  # the URL's own option wins
