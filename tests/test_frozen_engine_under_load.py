"""A frozen engine under load: 32 public requests at once each get their 503 within the deadline.

A request's deadline runs from its arrival (dynamo.deadline); no request waits for threads
another holds. Served as `make serve` serves it (gunicorn, two workers, DEBUG off) on an
engine of the module's own, frozen with SIGSTOP and thawed after; loopback only.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from urllib.parse import urlsplit

import pytest

from dynamo import local
from tests.serving import (
    manage,
    served_environment,
    start_gunicorn,
    stop_gunicorn,
    wait_until_serving,
)

# A timed burst: run alone, after the main suite (make test), not beside another worker.
pytestmark = [pytest.mark.engines("local"), pytest.mark.alone]

CLIENTS = 32
# The bound: 3 s from arrival, and half a second for a busy test machine.
ANSWER_SECONDS = 3.5
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[tuple[str, int, str]]:
    """Gunicorn over a seeded engine of the module's own; its URL, the engine's pid, a learner."""
    tmp = tmp_path_factory.mktemp("frozen-under-load")
    engine = local.start(data_dir=tmp / "engine", allow_moto=False, log=lambda _: None)
    env = {
        **served_environment(tmp, engine.endpoint),
        "LEADERBOARD_CACHE_SECONDS": "0",  # every board request reads the engine
    }
    url = process = None
    try:
        with ThreadPoolExecutor() as pool:
            steps = [
                pool.submit(manage, "migrate", "--no-input", "-v", "0", env=env),
                pool.submit(manage, "collectstatic", "--no-input", "-v", "0", env=env),
            ]
            manage("create_tables", env=env)
            manage("seed", "--users", "12", "--random-seed", "7", env=env)
            for step in steps:
                step.result()
        url, process = start_gunicorn(env, tmp / "gunicorn.log", workers=2)
        wait_until_serving(url, process)
        status, _, body = fetch(url, "/leaderboard/?format=json")
        assert status == 200, body
        yield url, engine.process.pid, json.loads(body)["results"][0]["username"]
    finally:
        if process is not None:
            stop_gunicorn(process)
        if engine.process.poll() is None:
            os.kill(engine.process.pid, signal.SIGCONT)  # never leave a frozen process behind
        engine.stop()


def fetch(url: str, path: str) -> tuple[int, str, str]:
    """GET a path; return the status, the Content-Type and the body."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=15)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read().decode()
    finally:
        connection.close()


@contextmanager
def frozen(pid: int) -> Iterator[None]:
    """Stop the engine with SIGSTOP: it accepts connections and never answers; thaw it after."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def test_32_concurrent_public_requests_all_get_a_503_within_the_deadline(served):
    url, pid, learner = served
    paths = [
        f"/learners/{learner}/",
        "/leaderboard/?metric=xp",
        f"/learners/{learner}/?format=json",
        "/leaderboard/?metric=streak&format=json",
        "/skills/search/?skill=Python",
        f"/api/learner-pages/{learner}",
        "/api/leaderboard/xp",
        "/api/search?skill=Python",
    ]
    for path in paths:  # with the engine up, each is a real page
        assert fetch(url, path)[0] == 200, path
    requests = [paths[n % len(paths)] for n in range(CLIENTS)]
    start = threading.Barrier(CLIENTS)

    def timed(path: str) -> tuple[str, int, str, float]:
        start.wait()
        started = time.monotonic()
        status, content_type, _ = fetch(url, path)
        return path, status, content_type, time.monotonic() - started

    with frozen(pid), ThreadPoolExecutor(CLIENTS) as pool:
        answers = list(pool.map(timed, requests))

    slow = [(path, status, round(seconds, 2)) for path, status, _, seconds in answers]
    assert all(status == 503 for _, status, _, _ in answers), slow
    assert max(seconds for *_, seconds in answers) < ANSWER_SECONDS, slow
    api = [content_type for path, _, content_type, _ in answers if path.startswith("/api/")]
    assert api and all(content_type == PROBLEM for content_type in api), api
    # Thawed, the engine answers again: so do the pages.
    assert fetch(url, f"/learners/{learner}/")[0] == 200
