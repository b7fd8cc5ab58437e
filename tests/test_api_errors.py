"""Every error the API answers is an RFC 9457 problem; an engine outage is a 503 to retry."""

from __future__ import annotations

import socket

import pytest

from catalog.models import Skill
from dynamo.models import configure
from tests.api_fixtures import problem_of
from tests.conftest import SHARED_PREFIX, configure_endpoint

# Errors answered before or without the engine (404, 405, 400, an engine that is down): moto alone.
pytestmark = pytest.mark.engines("moto")


def test_an_unknown_path_is_a_404_problem(dynamo, api_client):
    body = problem_of(api_client.get("/api/no/such/thing"))
    assert (body["status"], body["type"]) == (404, "about:blank")


def test_an_unsupported_method_is_a_405_problem_naming_the_allowed_ones(dynamo, api_client):
    response = api_client.put("/api/skills", {})
    assert problem_of(response)["status"] == 405
    assert set(response["Allow"].split(", ")) == {"GET", "POST"}


def test_a_body_that_is_not_json_is_a_400_problem_and_writes_nothing(dynamo, api_client):
    response = api_client.generic(
        "POST", "/api/skills", b"{not json", content_type="application/json"
    )
    assert problem_of(response)["status"] == 400
    assert list(Skill.scan()) == []


@pytest.fixture
def unreachable_engine(dynamo):
    """Point every model at a closed port on this machine, then back."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = configure_endpoint()
    configure(endpoint=f"http://127.0.0.1:{port}", prefix=SHARED_PREFIX, region="us-east-1")
    try:
        yield
    finally:
        configure(endpoint=endpoint, prefix=SHARED_PREFIX, region="us-east-1")


@pytest.mark.engines("moto")
def test_an_engine_outage_is_a_503_problem_like_the_pages(unreachable_engine, api_client):
    page = api_client.get("/skills/search/?skill=Python")
    assert page.status_code == 503
    for response in (
        api_client.get("/api/skills/python"),
        api_client.post("/api/skills", {"skill_id": "go", "name": "Go", "category": "Data"}),
        api_client.get("/api/leaderboard/xp"),
    ):
        assert problem_of(response)["status"] == 503
        assert response["Retry-After"] == page["Retry-After"]
