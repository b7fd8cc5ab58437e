"""docs/api.http runs as written: each example request answers what its comment says."""

from __future__ import annotations

import re
from pathlib import Path

from api.api import api
from catalog.models import Skill
from stats.models import UserStats
from tests.api_fixtures import token_client
from users.models import User

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "api.http"
# The status each example answers, in file order (PASTE-… placeholders are skipped).
EXPECTED = [200, 200, 200, 200, 401, 200, 200, 201, 200, 200, 422, 201, 200, 200, 200, 201, 200]
EXPECTED += [200, 200, 409, 201, 201, 201, 200, 200, 200, 404, 204, 200, 200, 204]


def requests_in(text: str) -> list[tuple[str, str, dict[str, str], str]]:
    """Return (method, path, headers, body) of every request block of an .http file."""
    found = []
    for block in text.split("\n###")[1:]:
        lines = [line for line in block.splitlines()[1:] if not line.startswith("#")]
        while lines and not lines[0].strip():
            lines.pop(0)
        method, url = lines[0].split(" ", 1)
        headers, body, in_body = {}, [], False
        for line in lines[1:]:
            if not in_body and not line.strip():
                in_body = True
            elif in_body:
                body.append(line)
            else:
                name, value = line.split(":", 1)
                headers[name.strip()] = value.strip()
        found.append((method, url.replace("{{host}}", ""), headers, "\n".join(body).strip()))
    return found


def test_every_example_answers_as_documented(dynamo, admin):
    Skill("python", name="Python", category="Programming").save()
    client = token_client(admin)
    token = client.defaults["HTTP_AUTHORIZATION"].split()[1]
    statuses = []
    for method, path, headers, body in requests_in(EXAMPLES.read_text()):
        if "PASTE" in path:
            continue
        headers = {k: v.replace("{{token}}", token) for k, v in headers.items()}
        sender = client if "Authorization" in headers else type(client)()
        headers.pop("Authorization", None)
        content_type = headers.pop("Content-Type", "application/octet-stream")
        response = sender.generic(
            method, path, body.encode(), content_type=content_type, headers=headers
        )
        statuses.append(response.status_code)
    assert statuses == EXPECTED
    assert re.search(r"@token = sb_", EXAMPLES.read_text())
    assert Skill.get_or_none("htmx") is None
    ada = User.get("ada")
    assert ada.name == "Augusta Ada King" and not ada.is_deleted
    assert UserStats.get("ada").sessions == 2  # the retried key recorded nothing more
    assert UserStats.get("ada").xp == 160


def test_every_read_the_api_offers_has_an_example():
    examples = [
        (method, url.split("?")[0]) for method, url, _, _ in requests_in(EXAMPLES.read_text())
    ]
    missing = []
    for template, operations in api.get_openapi_schema()["paths"].items():
        pattern = re.compile(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(template)) + "$")
        if "get" in operations and not any(
            method == "GET" and pattern.match(path) for method, path in examples
        ):
            missing.append(f"GET {template}")
    assert missing == []
