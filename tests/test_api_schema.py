"""The OpenAPI schema, property-based: schemathesis generates requests for every operation.

No request gets a 5xx, every response matches the schema, and a refused write leaves every
table as it was. Examples are bounded so the run takes seconds, on each engine.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import ignored_auth, positive_data_acceptance

from api.models import ApiToken
from tests.helpers import snapshot
from users.models import User, UserSkill

EXAMPLES_PER_OPERATION = 6
# The schema gives types only: the models' rules (one place, shared with the admin) answer
# 422 for well-typed values they refuse, so "valid by the schema" need not mean accepted.
# Every case carries Eve's real token, so "auth was ignored" cannot be judged from it: the
# anonymous pass below asserts that instead.
EXCLUDED_CHECKS = [positive_data_acceptance, ignored_auth]
REAL_KEYS = {"skill_id": "python", "username": "alice", "metric": "xp"}


@pytest.fixture
def schema(dynamo, alice, editor):
    """The API's schema as served, with Eve's token on every request."""
    _, secret = ApiToken.issue(editor)
    loaded = schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())
    return loaded, {"Authorization": f"Bearer {secret}"}


def test_the_schema_is_openapi_3_1_with_problem_details(client, db):
    document = client.get("/api/openapi.json").json()
    assert document["openapi"].startswith("3.1")
    skill = document["paths"]["/api/skills/{skill_id}"]
    assert "application/problem+json" in skill["delete"]["responses"]["409"]["content"]
    assert "If-Match" in [p["name"] for p in skill["patch"]["parameters"]]
    assert document["components"]["securitySchemes"]


def operations(loaded):
    return [result.ok() for result in loaded.get_all_operations()]


def test_generated_requests_never_fail_the_server_or_the_schema(schema):
    loaded, headers = schema
    for operation in operations(loaded):
        keys = {name: value for name, value in REAL_KEYS.items() if f"{{{name}}}" in operation.path}
        strategies = [operation.as_strategy(headers=headers)]
        if keys:  # half the cases on items that exist, so writes get past the 404
            strategies.append(operation.as_strategy(headers=headers, path_parameters=keys))
        run_cases(operation, st.one_of(strategies))


def run_cases(operation, strategy) -> None:
    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    def check(case):
        before = snapshot() if case.method.upper() != "GET" else None
        response = case.call()
        case.validate_response(response, excluded_checks=EXCLUDED_CHECKS)
        assert response.status_code < 500, (operation.label, response.text)
        if before is not None and response.status_code >= 400:
            assert snapshot() == before, f"{operation.label} was refused but wrote"

    check()


def test_every_operation_but_the_public_ones_needs_credentials(dynamo, alice, anonymous):
    document = anonymous.get("/api/openapi.json").json()
    for template, methods in document["paths"].items():
        path = template.format(**REAL_KEYS)
        for method, operation in methods.items():
            response = anonymous.generic(method.upper(), path)
            if not operation.get("security"):  # no scheme: public
                assert response.status_code != 401, (method, template)
            else:
                assert response.status_code == 401, (method, template)
    assert UserSkill.get("alice", "python") and User.get("alice").version == alice.version
