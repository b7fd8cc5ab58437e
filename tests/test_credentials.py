"""Fake `local` keys only for an engine on this machine; any other endpoint signs for real."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from catalog.models import Skill
from dynamo.models import client_for, configure, is_local_endpoint


@pytest.fixture
def pointed_at() -> Iterator:
    """Point the models at an endpoint (no call is made); restore the settings' one after."""
    yield lambda endpoint: configure(endpoint=endpoint, prefix="creds-", region="us-east-1")
    configure()


def signing_key() -> str:
    return client_for(Skill)._request_signer._credentials.access_key


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://127.0.0.1:8000",
        "http://127.3.4.5:8000",
        "http://localhost:8000",
        "http://[::1]:8000",
    ],
)
def test_an_engine_on_this_machine_gets_the_fake_local_keys(pointed_at, endpoint):
    pointed_at(endpoint)

    assert is_local_endpoint(endpoint)
    assert signing_key() == "local"


@pytest.mark.parametrize(
    "endpoint",
    [
        "https://dynamodb.eu-west-1.amazonaws.com",
        "http://10.0.0.7:8000",
        "http://dynamo.internal.example:8000",
        "http://127.0.0.1.example.com:8000",
    ],
)
def test_any_other_endpoint_signs_with_the_standard_credential_chain(
    pointed_at, monkeypatch, endpoint
):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDFROMTHECHAIN")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "secret-from-the-chain")

    pointed_at(endpoint)

    assert not is_local_endpoint(endpoint)
    assert signing_key() == "AKIDFROMTHECHAIN"
