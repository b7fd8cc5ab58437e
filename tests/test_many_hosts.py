"""Two gunicorn hosts on the parts production uses: PostgreSQL, Redis and DynamoDB (Local).

Each host runs what `make serve` runs (project/gunicorn.conf.py, DEBUG off, collected static
files, two workers) with DATABASE_URL on a throwaway PostgreSQL cluster and CACHE_URL on a
throwaway redis-server, both on loopback ports of their own (tests/servers.py).
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import timedelta
from email import message_from_string
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import boto3
import psycopg
import pytest

from catalog.models import Skill
from dynamo.batch import batch_put
from dynamo.models import configure, utcnow
from stats.models import UserStats
from tests.conftest import SHARED_PREFIX
from tests.listening import beyond_loopback, listening
from tests.servers import RedisServer, postgresql
from tests.serving import (
    BASE_DIR,
    manage,
    served_environment,
    start_gunicorn,
    stop_gunicorn,
    wait_until_serving,
)
from users.models import User, UserSkill

# Hosts under bursts of requests: run alone, after the main suite (make test), not beside it.
pytestmark = [pytest.mark.engines("local"), pytest.mark.alone]

WORKERS = 2  # `make serve`'s WEB_CONCURRENCY
METRICS = ("xp", "streak", "efficiency", "accuracy")


@dataclass
class Host:
    """One gunicorn host: its URL, its process group and its JSON log."""

    url: str
    process: subprocess.Popen
    log: Path

    def lines(self) -> list[dict]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def kill(self) -> None:
        """Kill the host at once, master and workers, as a machine that dies."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()


@dataclass
class Site:
    """Two hosts sharing one environment, and what they share."""

    a: Host
    b: Host
    env: dict[str, str]
    password: str
    database_url: str
    redis: RedisServer

    def start_host(self, name: str) -> Host:
        url, process = start_gunicorn(self.env, self.log_dir / f"{name}.log", workers=WORKERS)
        wait_until_serving(url, process)
        return Host(url, process, self.log_dir / f"{name}.log")

    @property
    def log_dir(self) -> Path:
        return Path(self.env["HOME"])

    def request_lines(self, prefix: str) -> list[dict]:
        """Return both hosts' request log lines whose request id starts with `prefix`."""
        return [
            line
            for host in (self.a, self.b)
            for line in host.lines()
            if str(line.get("request_id", "")).startswith(prefix)
        ]


def fetch(url: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """GET a path; return the status and body (a refused connection raises OSError)."""
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read().decode()
    finally:
        connection.close()


class Browser:
    """A browser's cookie jar across hosts behind one name, without following redirects."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}

    def request(self, url: str, path: str, form: dict[str, str] | None = None):
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
        headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in self.cookies.items())}
        body = None
        if form is not None:
            body = urlencode(form)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request("POST" if form is not None else "GET", path, body, headers)
            response = connection.getresponse()
            for header in response.headers.get_all("Set-Cookie") or []:
                for name, morsel in SimpleCookie(header).items():
                    if morsel["max-age"] == "0":
                        self.cookies.pop(name, None)
                    else:
                        self.cookies[name] = morsel.value
            return response.status, response.getheader("Location"), response.read().decode()
        finally:
            connection.close()

    def csrf_token(self, url: str, path: str) -> str:
        _, _, page = self.request(url, path)
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def manage_in_turn(commands: list[tuple[str, ...]], env: dict[str, str]) -> list[str]:
    return [manage(*command, env=env) for command in commands]


@pytest.fixture(scope="module")
def database() -> Iterator[str]:
    """A PostgreSQL cluster of the module's own; its DATABASE_URL."""
    with postgresql() as database_url:
        yield database_url


@pytest.fixture(scope="module")
def site(dynamodb_local, database, tmp_path_factory) -> Iterator[Site]:
    """PostgreSQL, Redis, seeded tables and two hosts on them."""
    tmp = tmp_path_factory.mktemp("many-hosts")
    with RedisServer() as redis:
        env = {
            **served_environment(tmp, dynamodb_local),
            "DATABASE_URL": database,
            "CACHE_URL": redis.url,
            # Long enough that every view of a test falls in one cache window.
            "LEADERBOARD_CACHE_SECONDS": "60",
            # These tests are about hosts, not the engine: a burst of pages on a DynamoDB Local
            # sharing two cores with the suite may spend more than production's 2 s on it
            # (the deadline itself: test_frozen_engine_under_load).
            "DYNAMODB_REQUEST_DEADLINE": "10",
            "EMAIL_URL": f"filemail:///{tmp / 'mail'}",
        }
        # SQL, DynamoDB and static files do not depend on each other: prepared side by side.
        steps = {
            "sql": [
                ("migrate", "--no-input", "-v", "0"),
                ("bootstrap_staff", "--username", "staff"),
            ],
            "tables": [("create_tables",), ("seed", "--users", "12", "--random-seed", "7")],
            "static": [("collectstatic", "--no-input", "-v", "0")],
        }
        with ThreadPoolExecutor() as pool:
            done = {name: pool.submit(manage_in_turn, c, env) for name, c in steps.items()}
            outputs = {name: future.result() for name, future in done.items()}
        password = re.search(r"staff / (\S+)", outputs["sql"][-1]).group(1)
        hosts = [start_gunicorn(env, tmp / f"{name}.log", workers=WORKERS) for name in "ab"]
        try:
            for url, process in hosts:
                wait_until_serving(url, process)
            a, b = (
                Host(url, process, tmp / f"{n}.log")
                for n, (url, process) in zip("ab", hosts, strict=True)
            )
            yield Site(a, b, env, password, database, redis)
        finally:
            for _, process in hosts:
                process.terminate()  # both at once; then each is waited for
            for _, process in hosts:
                stop_gunicorn(process)
            drop_tables(env)


def drop_tables(env: dict[str, str]) -> None:
    """Drop the hosts' tables without waiting (`delete_tables` waits for each, for AWS)."""
    client = boto3.client(
        "dynamodb",
        endpoint_url=env["DYNAMODB_ENDPOINT"],
        region_name="us-east-1",
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    for page in client.get_paginator("list_tables").paginate():
        for name in page["TableNames"]:
            if name.startswith(env["DYNAMODB_TABLE_PREFIX"]):
                client.delete_table(TableName=name)


@pytest.fixture
def on_site_tables(site, engine) -> Iterator[None]:
    """Point this process's models at the hosts' tables for the test."""
    endpoint = site.env["DYNAMODB_ENDPOINT"]
    configure(endpoint=endpoint, prefix=site.env["DYNAMODB_TABLE_PREFIX"], region="us-east-1")
    try:
        yield
    finally:
        configure(endpoint=endpoint, prefix=SHARED_PREFIX, region="us-east-1")


def test_a_login_on_one_host_works_on_the_other_and_a_logout_there_ends_it(engine, site):
    browser = Browser()
    token = browser.csrf_token(site.a.url, "/admin/login/")
    status, location, _ = browser.request(
        site.a.url,
        "/admin/login/?next=/admin/",
        {"username": "staff", "password": site.password, "csrfmiddlewaretoken": token},
    )
    assert (status, location) == (302, "/admin/")
    session = browser.cookies["sessionid"]

    status, _, page = browser.request(site.b.url, "/admin/")
    assert status == 200 and "staff" in page  # host B knows host A's session

    token = browser.csrf_token(site.b.url, "/admin/")
    status, _, page = browser.request(site.b.url, "/admin/logout/", {"csrfmiddlewaretoken": token})
    assert status == 200 and "Logged out" in page

    replay = Browser()
    replay.cookies["sessionid"] = session  # host A sees the old cookie: it must be dead
    status, location, _ = replay.request(site.a.url, "/admin/")
    assert (status, location) == (302, "/admin/login/?next=/admin/")
    with psycopg.connect(site.database_url) as connection:
        stored = connection.execute(
            "SELECT count(*) FROM django_session WHERE session_key = %s", [session]
        ).fetchone()
    assert stored == (0,)


def test_forty_board_views_over_both_hosts_cost_one_dynamodb_read_per_board(engine, site):
    site.redis.client().flushdb()  # a cold cache: each board is read exactly once
    run = f"board-{uuid.uuid4().hex[:8]}"
    statuses = []
    for view in range(40):
        metric = METRICS[view % len(METRICS)]
        host = (site.a, site.b)[view // len(METRICS) % 2]
        query = f"?metric={metric}" + ("&format=json" if view % 3 == 0 else "")
        status, _ = fetch(
            host.url, f"/leaderboard/{query}", {"X-Request-ID": f"{run}-{metric}-{view}"}
        )
        statuses.append(status)

    assert statuses == [200] * 40
    lines = site.request_lines(run)
    assert len(lines) == 40
    reads = Counter()
    for line in lines:
        reads[line["request_id"].split("-")[2]] += line["dynamodb_calls"]
    assert reads == {metric: 1 for metric in METRICS}


def reminder_mails(folder: Path) -> Counter:
    """Count the reminder mails per recipient that the file backends wrote."""
    sent: Counter = Counter()
    for path in folder.glob("*.log") if folder.is_dir() else []:
        for message in path.read_text().split("-" * 79):
            if message.strip():
                sent[message_from_string(message.strip())["To"]] += 1
    return sent


def test_the_schedule_on_both_hosts_at_once_sends_each_reminder_once_and_rewrites_copies_once(
    engine, site, on_site_tables
):
    now = utcnow()
    learners = [User(f"due{n:02d}", name=f"Due {n}", email=f"due{n}@example.com") for n in range(8)]
    batch_put(User, learners)
    stats = []
    for n, learner in enumerate(learners):
        stats.append(UserStats(learner.username, xp=10 + n))
        stats[-1].schedule_reminder(now - timedelta(minutes=5 + 5 * n))
    batch_put(UserStats, stats)
    cobol = Skill("cobol", name="COBOL", category="Programming")
    cobol.save()
    batch_put(UserSkill, [UserSkill.for_catalog(u, cobol, proficiency="Expert") for u in learners])
    cobol.name = "COBOL 2023"
    cobol.save()  # marks it pending: the copies are rewritten by sync_user_skills --pending
    before = {h.username: h.version for h in UserSkill.gsi_skill_id.query("cobol")}
    due = {s.username for s in UserStats.scan() if s.next_reminder_at and s.next_reminder_at <= now}
    emails = {u.username: u.email for u in User.batch_get(list(due))}

    runs = [
        subprocess.Popen(
            [sys.executable, "manage.py", "run_schedule", "--once"],
            cwd=BASE_DIR,
            env=site.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in (site.a, site.b)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]

    assert [run.returncode for run in runs] == [0, 0], outputs
    assert reminder_mails(Path(site.env["HOME"]) / "mail") == {emails[u]: 1 for u in due}
    assert all(UserStats.get(u).last_reminded_at is not None for u in due)
    copies = list(UserSkill.gsi_skill_id.query("cobol"))
    assert {c.skill_name for c in copies} == {"COBOL 2023"}
    assert Skill.get("cobol").pending is None
    lines = [json.loads(line) for out, _ in outputs for line in out.splitlines()]
    syncs = [
        line["message"] for line in lines if line.get("command") == "sync_user_skills --pending"
    ]
    assert len(syncs) == 2 and all(re.search(r"Rewrote \d+ stale copies", s) for s in syncs)
    rewritten = sum(int(re.search(r"Rewrote (\d+)", s).group(1)) for s in syncs)
    # Each copy rewritten once in all: the second run's lease and staleness check keep it off.
    assert rewritten == len(before)
    assert {c.version - before[c.username] for c in copies} == {1}


def test_a_host_killed_under_load_leaves_the_other_answering_every_request(engine, site):
    victim = site.start_host(f"victim-{uuid.uuid4().hex[:6]}")
    paths = ["/leaderboard/", "/skills/search/?skill=Python", "/", "/leaderboard/?metric=streak"]
    results: list[tuple[str, bool, float, int | str]] = []
    killed_at: list[float] = []
    lock = threading.Lock()
    clients, requests_each = 20, 8

    def client(number: int) -> None:
        for i in range(requests_each):
            host = (victim, site.b)[(number + i) % 2]
            try:
                status, _ = fetch(host.url, paths[(number + i) % len(paths)])
                outcome: int | str = status
            except (OSError, http.client.HTTPException) as exc:
                # A host killed mid-response cuts the body short (IncompleteRead), not the socket.
                outcome = type(exc).__name__
            with lock:
                results.append((host.url, host is site.b, time.monotonic(), outcome))
                if len(results) == clients * requests_each // 3 and not killed_at:
                    victim.kill()
                    killed_at.append(time.monotonic())

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    if not killed_at:
        victim.kill()
    assert killed_at, "the load ended before the host was killed"
    survivor = [outcome for _, on_b, _, outcome in results if on_b]
    after = [outcome for _, on_b, at, outcome in results if on_b and at > killed_at[0]]
    victims_failures = [o for _, on_b, _, o in results if not on_b and o != 200]
    assert len(results) == clients * requests_each
    assert survivor == [200] * len(survivor)
    assert after, "host B got no request after host A died"
    assert victims_failures, "the killed host never failed a request: it was not killed"


def test_with_redis_stopped_pages_still_answer_and_sharing_resumes_when_it_is_back(engine, site):
    run = f"outage-{uuid.uuid4().hex[:8]}"
    site.redis.stop()
    try:
        statuses = [
            fetch(host.url, path, {"X-Request-ID": f"{run}-{n}"})[0]
            for n in range(6)
            for host in (site.a, site.b)
            for path in ("/leaderboard/?metric=xp", "/skills/search/?skill=Python", "/")
        ]
    finally:
        site.redis.start()

    assert statuses == [200] * len(statuses)
    outage = [
        line
        for host in (site.a, site.b)
        for line in host.lines()
        if line["logger"] == "skillboard.cache" and "cannot be reached" in line["message"]
    ]
    per_process = Counter(line["pid"] for line in outage)
    assert outage and set(per_process.values()) == {1}  # logged once by each process
    assert len(per_process) <= 2 * WORKERS

    back = f"back-{uuid.uuid4().hex[:8]}"
    # A variant no other test reads (a page of 7), so no process holds it fresh already.
    board = "/api/leaderboard/accuracy?limit=7"
    for n in range(4):  # every worker of host A has the board from the engine, or from Redis
        fetch(site.a.url, board, {"X-Request-ID": f"{back}-a{n}"})
    for n in range(4):
        fetch(site.b.url, board, {"X-Request-ID": f"{back}-b{n}"})

    lines = site.request_lines(back)
    assert sum(line["dynamodb_calls"] for line in lines) == 1  # one read, shared again
    assert all(line["status"] == 200 for line in lines)


def test_nothing_the_suite_starts_listens_beyond_loopback(engine, site):
    ports = {port for _, port in listening([os.getpid()])}

    for url in (site.a.url, site.b.url, site.env["DYNAMODB_ENDPOINT"], site.redis.url):
        assert urlsplit(url).port in ports
    assert urlsplit(site.database_url).port in ports
    assert beyond_loopback([os.getpid()]) == []


def test_djangos_own_tables_pass_their_tests_on_postgresql(engine, database):
    # Auth, sessions, permissions, API tokens and LogEntry: the SQL the project relies on,
    # on moto (the engine is beside the point here), with Django's tables on PostgreSQL.
    modules = [
        "tests/test_bootstrap_staff.py",
        "tests/test_admin_permissions.py",
        "tests/test_api_auth.py",
        "tests/test_django_tables.py",
    ]
    command = [sys.executable, "-m", "pytest", *modules, "--engines=moto", "-q"]
    result = subprocess.run(
        # --reuse-db keeps the test database afterwards: proof that they ran on this cluster.
        [*command, "--reuse-db", "-p", "no:cacheprovider", "-W", "ignore::UserWarning"],
        cwd=BASE_DIR,
        env={**os.environ, "DATABASE_URL": database},
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert result.returncode == 0, result.stdout[-3000:]
    assert re.search(r"\d+ passed", result.stdout)
    with psycopg.connect(database) as connection:
        (tested,) = connection.execute(
            "SELECT count(*) FROM pg_database WHERE datname = 'test_skillboard'"
        ).fetchone()
    assert tested == 1
