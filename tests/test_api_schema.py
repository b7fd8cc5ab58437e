"""The OpenAPI schema, property-based: schemathesis generates requests for every operation.

No request gets a 5xx, every response matches the schema, and a refused write leaves every
table as it was; generated bodies with a lone surrogate in a string are a 422 naming it, and
with 3 MB in one a 413. Examples are bounded so the run takes seconds, on each engine.
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
REAL_KEYS = {
    "skill_id": "python",
    "username": "alice",
    "metric": "xp",
    "session_id": "2026-01-01T00:00:00.000Z#00000000",
}
LONE_SURROGATES = ["\ud800", "a\ud800b", "\udfff"]
SPOILED_EXAMPLES_PER_OPERATION = 3
THREE_MB = "x" * (3 * 1024 * 1024)


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
            assert snapshot() == before, f"{case.operation.label} was refused but wrote"

    check()


def written_operations(loaded):
    return [op for op in operations(loaded) if op.method.upper() in ("POST", "PUT", "PATCH")]


def string_fields(body) -> list[str]:
    """Return the body's top-level fields holding text or a list of text."""
    if not isinstance(body, dict):
        return []
    return [
        name
        for name, value in body.items()
        if isinstance(value, str)
        or (isinstance(value, list) and value and all(isinstance(v, str) for v in value))
    ]


@pytest.mark.parametrize("spoil", ["lone surrogate", "3 MB"])
def test_a_generated_write_with_a_lone_surrogate_or_3_mb_in_a_string_is_refused_cleanly(
    schema, spoil
):
    loaded, headers = schema
    for operation in written_operations(loaded):
        keys = {name: value for name, value in REAL_KEYS.items() if f"{{{name}}}" in operation.path}

        @given(case=operation.as_strategy(headers=headers, path_parameters=keys), data=st.data())
        @settings(
            max_examples=SPOILED_EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        def check(case, data):
            fields = string_fields(case.body)
            if not fields:  # a body of numbers only, or none (restore): nothing to spoil
                return
            field = data.draw(st.sampled_from(fields))
            bad = data.draw(st.sampled_from(LONE_SURROGATES)) if spoil != "3 MB" else THREE_MB
            value = case.body[field]
            case.body = {**case.body, field: [bad] if isinstance(value, list) else bad}
            before = snapshot()
            response = case.call()
            if spoil == "3 MB":
                assert response.status_code == 413, (case.operation.label, response.text[:300])
            else:
                assert response.status_code == 422, (case.operation.label, response.text[:300])
                named = [error["field"] for error in response.json()["errors"]]
                assert field in named, (case.operation.label, named)
            content_type = {k.lower(): v for k, v in response.headers.items()}["content-type"]
            assert "application/problem+json" in content_type  # one header value, or a list
            assert snapshot() == before, f"{case.operation.label} was refused but wrote"

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


def test_no_request_body_takes_a_total(client, db):
    # Totals are the study history's sums: the only write near them is a session's own XP.
    document = client.get("/api/openapi.json").json()
    schemas = document["components"]["schemas"]
    totals = {"streak", "efficiency", "accuracy", "sessions", "minutes_studied"}
    taking = {}
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body is None:
                continue
            name = body["schema"]["$ref"].rsplit("/", 1)[-1]
            fields = set(schemas[name].get("properties", {}))
            if fields & (totals | {"xp"}):
                taking[f"{method.upper()} {path}"] = sorted(fields & (totals | {"xp"}))

    assert taking == {"POST /api/learners/{username}/sessions": ["xp"]}
