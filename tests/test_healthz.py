"""/healthz answers 200 when the engine answers with every table, 503 otherwise."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.test import Client

from dynamo import health, local, tables
from dynamo.models import configure
from tests.admin_fixtures import calls


@pytest.fixture
def shared_checks(settings):
    settings.HEALTHZ_CHECK_SECONDS = 1
    health.forget_checks()
    yield
    health.forget_checks()


def test_it_answers_200_when_the_engine_and_tables_are_there(dynamo, client):
    response = client.get("/healthz")

    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_it_answers_503_when_a_table_is_missing(bare_engine, client):
    response = client.get("/healthz")

    assert response.status_code == 503
    assert len(response.json()["missing_tables"]) == len(tables.all_models())


def test_it_answers_503_when_the_engine_is_unreachable(client):
    configure(endpoint=f"http://127.0.0.1:{local.free_port()}", prefix="gone-")
    try:
        response = client.get("/healthz")
    finally:
        configure()

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"


def test_a_plain_http_probe_gets_its_answer_rather_than_a_redirect_to_https(dynamo, settings):
    settings.SECURE_SSL_REDIRECT = True  # production's default
    client = Client()  # plain HTTP, no X-Forwarded-Proto: as load balancers probe

    probe = client.get("/healthz")

    assert probe.status_code == 200 and probe.json() == {"status": "ok"}
    assert client.get("/").status_code == 301  # every other page still goes to HTTPS


def test_probes_within_the_interval_share_one_engine_check(dynamo, client, shared_checks):
    probes = [client.get("/healthz") for _ in range(10)]

    assert {probe.status_code for probe in probes} == {200}
    # One DescribeTable per table for the first; nothing for the nine after it.
    assert [calls(probe) for probe in probes] == [len(tables.all_models())] + [0] * 9


def test_concurrent_probes_share_the_check_in_flight(dynamo, shared_checks):
    with ThreadPoolExecutor(max_workers=8) as pool:
        probes = list(pool.map(lambda _: Client().get("/healthz"), range(16)))

    assert {probe.status_code for probe in probes} == {200}
    assert sum(calls(probe) for probe in probes) == len(tables.all_models())


def test_the_engine_is_checked_again_after_the_interval(dynamo, client, shared_checks, clock):
    client.get("/healthz")
    clock.advance(1.1)

    probe = client.get("/healthz")

    assert probe.status_code == 200 and calls(probe) == len(tables.all_models())
