"""Fixtures for the API tests: token-holding clients with named staff behind them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from api.models import ApiToken
from tests.admin_fixtures import staff

EVERY_PERMISSION = (
    "catalog.view_skill",
    "catalog.add_skill",
    "catalog.change_skill",
    "catalog.delete_skill",
    "users.view_user",
    "users.add_user",
    "users.change_user",
    "users.delete_user",
    "users.view_userskill",
    "users.add_userskill",
    "users.change_userskill",
    "users.delete_userskill",
    "stats.view_userstats",
    "stats.change_userstats",
)


class ApiClient(Client):
    """A test client that sends JSON bodies and, when given one, a bearer token."""

    def __init__(self, token: str | None = None, **defaults: Any) -> None:
        if token:
            defaults["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        super().__init__(**defaults)

    def _send(self, method: str, path: str, data: Any = None, **headers: str):
        extra = {"headers": headers} if headers else {}
        if data is None:
            return getattr(super(), method)(path, **extra)
        return getattr(super(), method)(
            path, json.dumps(data), content_type="application/json", **extra
        )

    def post(self, path, data=None, **headers):
        return self._send("post", path, data, **headers)

    def put(self, path, data=None, **headers):
        return self._send("put", path, data, **headers)

    def patch(self, path, data=None, **headers):
        return self._send("patch", path, data, **headers)

    def delete(self, path, data=None, **headers):
        return self._send("delete", path, data, **headers)


def token_client(user) -> ApiClient:
    """Return a client authenticating with a new token of the user."""
    _, secret = ApiToken.issue(user, name="tests")
    return ApiClient(secret)


@pytest.fixture
def editor(db):
    """Eve: staff holding every permission the API checks."""
    return staff("eve", *EVERY_PERMISSION)


@pytest.fixture
def api_client(editor) -> ApiClient:
    """Eve's token client."""
    return token_client(editor)


@pytest.fixture
def reader_client(db) -> ApiClient:
    """Rob's token client: he may view skills, users and user-skills, and change nothing."""
    return token_client(
        staff("rob", "catalog.view_skill", "users.view_user", "users.view_userskill")
    )


@pytest.fixture
def anonymous(db) -> ApiClient:
    return ApiClient()


def problem_of(response) -> dict[str, Any]:
    """Return a problem+json body, checking its media type and required members."""
    assert response["Content-Type"] == "application/problem+json", response.content
    body = response.json()
    assert body["status"] == response.status_code
    assert body["title"] and body["detail"] and body["type"]
    return body
