"""/healthz answers 200 when the engine answers with every table, 503 otherwise."""

from __future__ import annotations

from dynamo import local, tables
from dynamo.models import configure


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
