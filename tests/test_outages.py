"""An engine that is down or frozen: every page answers a fast 503 with Retry-After.

The module runs a DynamoDB Local of its own (data on disk, so a killed one comes back on the
same port with its data), so the session's shared engine is never stopped or frozen. The
models get the web's default deadline rather than the test settings' longer one.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from unittest import mock
from urllib.parse import urlencode

import pytest
from botocore.exceptions import ClientError
from django.test import Client, override_settings
from pynamodb.exceptions import PynamoDBException

from catalog.models import Skill
from dynamo import health, local, models, tables
from dynamo.exceptions import outage_cause
from dynamo.models import call_deadline, configure
from dynamo_admin import tables as admin_tables
from stats.models import UserStats
from tests.helpers import clear_caches
from users.models import User, UserSkill

# The defaults of project/settings.py, whatever the test settings say.
WEB_DEADLINE = {
    "DYNAMODB_CONNECT_TIMEOUT": 1.0,
    "DYNAMODB_READ_TIMEOUT": 1.5,
    "DYNAMODB_MAX_ATTEMPTS": 2,
    "DYNAMODB_REQUEST_DEADLINE": 2.0,
}
# Two attempts of 1.5 s fail a frozen engine's call in 3 s; a page answers within 5 s plus
# whatever the busy test machine adds to its usual time.
ENGINE_SECONDS = 3.5
PAGE_SECONDS = 5.0
# One call's worst case under the web's deadline: two attempts of 1 s connect and 1.5 s read,
# and botocore's backoff of up to 1 s between them (dynamo.models.call_deadline). Twenty
# requests at once in one busy test process add their own time to it.
ENGINE_DEADLINE = 6.0
BUSY_MACHINE_SECONDS = 3.0
HEALTHZ_SECONDS = 2.5
PAGES = [
    "/leaderboard/",
    "/skills/search/?skill=Python",
    "/admin/users/user/",
    "/admin/users/user/alice/change/",
]


class OwnEngine:
    """A DynamoDB Local this module may kill, freeze and bring back."""

    def __init__(self, data_dir) -> None:
        self.data_dir = data_dir
        self.engine = local.start(data_dir=data_dir, allow_moto=False, log=lambda _: None)
        self.port = int(self.engine.endpoint.rsplit(":", 1)[1])

    @property
    def pid(self) -> int:
        return self.engine.process.pid

    def ensure_running(self) -> None:
        if self.engine.process.poll() is not None:
            self.engine = local.start(
                data_dir=self.data_dir, port=self.port, allow_moto=False, log=lambda _: None
            )

    def stop(self) -> None:
        if self.engine.process.poll() is None:
            os.kill(self.pid, signal.SIGCONT)  # never leave a frozen process behind
        self.engine.stop()


@pytest.fixture(scope="module")
def own_engine(tmp_path_factory) -> Iterator[OwnEngine]:
    """The module's engine with its tables, a learner and a skill; models pointed at it."""
    own = OwnEngine(tmp_path_factory.mktemp("outage-engine"))
    try:
        prefix = f"outage-{uuid.uuid4().hex[:6]}-"
        configure(endpoint=own.engine.endpoint, prefix=prefix, region="us-east-1")
        for model in tables.all_models():
            tables.create_missing(model)
        python = Skill("python", name="Python", category="Programming")
        python.save()
        User("alice", name="Alice", email="alice@example.com").save()
        UserSkill.for_catalog("alice", python, proficiency="Expert", years=6).save()
        UserStats("alice", xp=120).save()
        with override_settings(**WEB_DEADLINE):
            # New timeouts, new connections: the pages get the web's deadline.
            configure(endpoint=own.engine.endpoint, prefix=prefix, region="us-east-1")
            yield own
    finally:
        own.stop()
        configure()


@contextmanager
def frozen(own: OwnEngine) -> Iterator[OwnEngine]:
    """Stop the engine's process with SIGSTOP: it accepts connections and never answers."""
    os.kill(own.pid, signal.SIGSTOP)
    try:
        yield own
    finally:
        os.kill(own.pid, signal.SIGCONT)


def kill(own: OwnEngine) -> None:
    """Kill the engine's process: nothing listens on its port any more."""
    own.engine.process.kill()
    own.engine.process.wait()


def timed_get(client, url: str, **headers):
    started = time.monotonic()
    response = client.get(url, **headers)
    return response, time.monotonic() - started


def tables_pages() -> list[str]:
    """The Tables pages: the list, a Query of the users' table, alice's item (the module's
    prefix is only known once its engine runs)."""
    table = f"/admin/tables/{User.Meta.table_name}/"
    key = urlencode({"key": json.dumps({"username": {"S": "alice"}})})
    return ["/admin/tables/", f"{table}?mode=query&pk=alice", f"{table}item/?{key}"]


def usual_times(client, own: OwnEngine, pages: list[str] = PAGES) -> dict[str, float]:
    """Check every page answers with the engine up; return how long each takes on this machine."""
    own.ensure_running()
    # A restarted engine's first answers (its JIT cold, beside another worker) can outlast the
    # health check's deadline: a few probes, as a load balancer's, before it must say 200.
    for _ in range(5):
        health.forget_checks()
        if client.get("/healthz").status_code == 200:
            break
    else:
        pytest.fail("/healthz never answered 200 with the engine running")
    for url in pages:
        # Once first, unjudged: a new engine's first calls (its JIT cold, beside another
        # worker) can outlast the web's deadline; this test is about the next ones.
        client.get(url)
    clear_caches()
    times = {}
    for url in pages:
        response, times[url] = timed_get(client, url)
        assert response.status_code == 200, url
    clear_caches()  # the leaderboard's cached page would hide the engine from the next reads
    return times


def assert_every_page_answers_a_fast_503(client, usual: dict[str, float]) -> None:
    for url in usual:
        response, seconds = timed_get(client, url)

        assert response.status_code == 503, url
        assert response["Retry-After"] == "5", url
        assert "Service unavailable" in response.content.decode(), url
        # The deadline bounds the engine's share; a busy machine adds the page's usual time.
        engine = response.wsgi_request.dynamo_meter.seconds
        assert engine < ENGINE_SECONDS, f"{url}: DynamoDB took {engine:.1f} s"
        assert seconds < PAGE_SECONDS + usual[url], f"{url} took {seconds:.1f} s"


def assert_healthz_answers_503_in_time_naming_no_endpoint(client, own: OwnEngine) -> None:
    response, seconds = timed_get(client, "/healthz")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert seconds < HEALTHZ_SECONDS, f"/healthz took {seconds:.1f} s"
    assert response.json() == {"status": "unavailable"}
    assert str(own.port) not in response.content.decode()


def test_a_frozen_engine_gets_a_503_from_every_page_within_the_deadline(admin_client_, own_engine):
    usual = usual_times(admin_client_, own_engine)

    with frozen(own_engine):
        assert_healthz_answers_503_in_time_naming_no_endpoint(admin_client_, own_engine)
        assert_every_page_answers_a_fast_503(admin_client_, usual)
        home, seconds = timed_get(admin_client_, "/")  # needs no engine: not held up
        assert home.status_code == 200 and seconds < 1

    # The engine answers again: so do the pages.
    assert admin_client_.get("/admin/users/user/alice/change/").status_code == 200


def test_a_stopped_engine_gets_a_503_from_every_page_at_once(admin_client_, own_engine):
    usual = usual_times(admin_client_, own_engine)

    kill(own_engine)

    assert_healthz_answers_503_in_time_naming_no_endpoint(admin_client_, own_engine)
    assert_every_page_answers_a_fast_503(admin_client_, usual)


def test_a_frozen_engine_gets_a_503_from_the_tables_pages_within_the_deadline(
    admin_client_, own_engine
):
    usual = usual_times(admin_client_, own_engine, tables_pages())

    with frozen(own_engine):
        assert_every_page_answers_a_fast_503(admin_client_, usual)
        # The table's description forgotten (a minute is over): DescribeTable is what waits.
        with mock.patch.dict(admin_tables._described, clear=True):
            response, seconds = timed_get(admin_client_, tables_pages()[1])
        assert response.status_code == 503 and "Service unavailable" in response.content.decode()
        assert seconds < PAGE_SECONDS + max(usual.values())

    assert admin_client_.get(tables_pages()[1]).status_code == 200


def test_a_stopped_engine_gets_a_503_from_the_tables_pages_at_once(admin_client_, own_engine):
    usual = usual_times(admin_client_, own_engine, tables_pages())

    kill(own_engine)

    assert_every_page_answers_a_fast_503(admin_client_, usual)


def test_a_json_client_gets_the_503_as_json(admin_client_, own_engine):
    kill(own_engine)

    for headers, url in [
        ({"HTTP_ACCEPT": "application/json"}, "/admin/users/user/"),
        ({}, "/leaderboard/?format=json"),
    ]:
        response = admin_client_.get(url, **headers)

        assert response.status_code == 503
        assert response["Retry-After"] == "5"
        assert response.json() == {
            "status": 503,
            "detail": "The data store is unavailable right now. Please try again in a moment.",
        }


def concurrently(url: str, count: int) -> list[tuple[int, float, str | None, int]]:
    """GET `url` from `count` anonymous clients at once; each status, time, Retry-After, calls."""
    start = threading.Barrier(count)

    def one(_) -> tuple[int, float, str | None, int]:
        client = Client()
        start.wait()
        response, seconds = timed_get(client, url)
        calls = response.wsgi_request.dynamo_meter.count
        return response.status_code, seconds, response.get("Retry-After"), calls

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


def test_many_requests_for_an_expired_board_on_a_frozen_engine_wait_one_deadline_at_most(
    own_engine, clock
):
    own_engine.ensure_running()
    assert call_deadline() == ENGINE_DEADLINE
    url, count = "/leaderboard/?metric=efficiency", 20
    with override_settings(LEADERBOARD_CACHE_SECONDS=1):
        clear_caches()
        # A DynamoDB Local just brought back by an earlier test is slow on its first reads.
        statuses = [Client().get(url).status_code for _ in range(4)]
        assert statuses[-1] == 200, statuses
        clock.advance(1.1)  # the entry expires; its stale copy stays

        with frozen(own_engine):
            stale = concurrently(url, count)
            clear_caches()
            cold = concurrently(url, count)

    # One request per process tries the frozen engine; the others serve the stale copy at once.
    assert {status for status, *_ in stale} == {200}
    assert max(seconds for _, seconds, *_ in stale) < ENGINE_DEADLINE + BUSY_MACHINE_SECONDS
    # Nothing to serve: each waiter gives up with the refill, none queues behind another.
    assert {(status, retry) for status, _, retry, _ in cold} == {(503, "5")}
    assert max(seconds for _, seconds, *_ in cold) < ENGINE_DEADLINE + BUSY_MACHINE_SECONDS


def test_many_probes_of_a_frozen_engine_share_one_check_and_answer_in_time(own_engine):
    own_engine.ensure_running()
    with override_settings(HEALTHZ_CHECK_SECONDS=1), frozen(own_engine):
        health.forget_checks()
        probes = concurrently("/healthz", 20)

    assert {(status, retry) for status, _, retry, _ in probes} == {(503, "5")}
    assert max(seconds for _, seconds, *_ in probes) < HEALTHZ_SECONDS
    # One check's DescribeTable calls at most (those still hung at the answer are not counted).
    assert sum(calls for *_, calls in probes) <= len(tables.all_models())


def engine_answering(call):
    """Replace the user-stats client's calls to the engine (the AWS boundary) for a block."""
    return mock.patch.object(models.client_for(UserStats), "_make_api_call", call)


def refusing(code: str, status: int):
    def call(operation_name, kwargs):
        error = {"Error": {"Code": code, "Message": "no"}}
        raise ClientError({**error, "ResponseMetadata": {"HTTPStatusCode": status}}, operation_name)

    return call


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("ProvisionedThroughputExceededException", 400),
        ("ThrottlingException", 400),
        ("RequestLimitExceeded", 400),
        ("InternalServerError", 500),
        ("UnrecognizedClientException", 400),
    ],
)
def test_an_engine_throttling_or_failing_past_the_retries_is_a_503(dynamo, client, code, status):
    with engine_answering(refusing(code, status)):
        response = client.get("/leaderboard/")

    assert response.status_code == 503
    assert response["Retry-After"] == "5"


def test_a_request_the_engine_finds_invalid_is_no_outage(dynamo, client):
    refuse = refusing("ValidationException", 400)
    with engine_answering(refuse), pytest.raises(PynamoDBException) as caught:
        client.get("/leaderboard/")

    assert outage_cause(caught.value) is None
