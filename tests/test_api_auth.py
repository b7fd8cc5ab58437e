"""API authentication and permissions: bearer tokens, staff sessions with CSRF, Django perms."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User as StaffUser
from django.core.management import CommandError, call_command
from django.test import Client

from api.models import ApiToken, digest_of
from catalog.models import Skill
from tests.admin_fixtures import client_for, staff
from tests.api_fixtures import ApiClient, problem_of, token_client

# Tokens, sessions and permissions live in Django's database, not in DynamoDB: moto alone.
pytestmark = pytest.mark.engines("moto")

NEW_SKILL = {"skill_id": "go", "name": "Go", "category": "Programming"}


def test_it_refuses_a_request_without_credentials(dynamo, anonymous):
    response = anonymous.get("/api/skills")
    assert response.status_code == 401
    assert problem_of(response)["title"] == "Unauthorized"
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_it_refuses_an_unknown_or_revoked_token(dynamo, editor):
    token, secret = ApiToken.issue(editor)
    token.revoke()
    assert ApiClient("sb_not-a-real-token").get("/api/skills").status_code == 401
    assert ApiClient(secret).get("/api/skills").status_code == 401


def test_a_token_of_someone_no_longer_staff_stops_working(dynamo, editor):
    client = token_client(editor)
    editor.is_staff = False
    editor.save()
    assert client.get("/api/skills").status_code == 401


def test_a_token_acts_as_its_owner_with_their_permissions(dynamo, python, reader_client):
    assert reader_client.get("/api/skills/python").status_code == 200
    response = reader_client.post("/api/skills", NEW_SKILL)
    assert response.status_code == 403
    assert "catalog.add_skill" in problem_of(response)["detail"]
    assert Skill.get_or_none("go") is None


def test_a_token_stores_only_a_digest_and_a_prefix(db, editor):
    token, secret = ApiToken.issue(editor)
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.digest == digest_of(secret) != secret
    assert secret.startswith(stored.prefix) and len(stored.prefix) < len(secret) // 3
    assert secret not in str(ApiToken.objects.values_list())


def test_a_token_records_when_it_was_last_used(dynamo, editor):
    token, secret = ApiToken.issue(editor)
    ApiClient(secret).get("/api/skills")
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_staff_session_may_read_without_a_token(dynamo, python, editor):
    response = client_for(editor).get("/api/skills/python")
    assert response.status_code == 200
    assert response.json()["skill_id"] == "python"


def test_a_session_that_is_not_staff_is_refused(dynamo, db):
    user = StaffUser.objects.create_user("nina", "nina@example.com", "pw")
    assert client_for(user).get("/api/skills").status_code == 401


def test_a_session_write_needs_the_csrf_token(dynamo, editor):
    client = Client(enforce_csrf_checks=True)
    client.force_login(editor)
    refused = client.post("/api/skills", NEW_SKILL, content_type="application/json")
    assert refused.status_code == 403
    assert "CSRF" in problem_of(refused)["detail"]
    assert Skill.get_or_none("go") is None

    client.get("/api/docs")  # any page that renders the token sets the cookie
    csrf = client.cookies["csrftoken"].value
    accepted = client.post(
        "/api/skills", NEW_SKILL, content_type="application/json", headers={"X-CSRFToken": csrf}
    )
    assert accepted.status_code == 201
    assert Skill.get("go").name == "Go"


def test_a_token_needs_no_csrf_token(dynamo, editor):
    client = token_client(editor)
    client.handler.enforce_csrf_checks = True
    assert client.post("/api/skills", NEW_SKILL).status_code == 201


def test_create_api_token_prints_only_the_token_once(db, editor, capsys):
    call_command("create_api_token", "eve")
    printed = capsys.readouterr().out
    secret = printed.strip()
    assert printed == f"{secret}\n"
    assert ApiToken.objects.get(digest=digest_of(secret)).user == editor


@pytest.mark.parametrize("username", ["nobody", "plain"])
def test_create_api_token_refuses_an_unknown_or_non_staff_user(db, username):
    StaffUser.objects.create_user("plain", "plain@example.com", "pw")
    with pytest.raises(CommandError, match=username):
        call_command("create_api_token", username)
    assert not ApiToken.objects.exists()


def test_the_admin_creates_a_token_and_shows_its_secret_once(db, admin_client_, editor):
    response = admin_client_.post(
        "/admin/api/apitoken/add/", {"user": editor.pk, "name": "ci"}, follow=True
    )
    token = ApiToken.objects.get()
    shown = [str(m) for m in response.context["messages"]]
    secret = next(word for m in shown for word in m.split() if word.startswith(token.prefix))
    assert token.digest == digest_of(secret) and token.name == "ci"
    listing = admin_client_.get("/admin/api/apitoken/").content.decode()
    assert token.prefix in listing and secret not in listing


def test_the_admin_revokes_tokens(dynamo, admin_client_, editor):
    token, secret = ApiToken.issue(editor)
    admin_client_.post("/admin/api/apitoken/", {"action": "revoke", "_selected_action": [token.pk]})
    token.refresh_from_db()
    assert token.is_revoked
    assert ApiClient(secret).get("/api/skills").status_code == 401


def test_a_user_without_any_permission_is_forbidden_not_unauthenticated(dynamo, db):
    response = token_client(staff("sam")).get("/api/skills")
    assert response.status_code == 403
