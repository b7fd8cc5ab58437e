"""Admin-log entries show their values only to staff who may view the logged object's model."""

from __future__ import annotations

import pytest
from django.contrib.admin.utils import quote

from dynamo_admin.models import HIDDEN, AdminLog
from dynamo_admin.writes import write_with_history
from tests.admin_fixtures import client_for, staff
from users.models import User

# Which staff see logged values is decided by permissions, not by the engine: moto alone.
pytestmark = pytest.mark.engines("moto")

SECRET_EMAIL = "alice.private@example.com"


def changed_email_entry(alice) -> AdminLog:
    user = User.get("alice")
    user.email = SECRET_EMAIL
    write_with_history(user, "change", "ada", {"email": ["alice@example.com", SECRET_EMAIL]})
    [entry] = AdminLog.history(user)
    return entry


def entry_url(entry: AdminLog, view: str) -> str:
    object_id = ",".join(quote(value) for value in entry.pk)
    return f"/admin/dynamo_admin/adminlog/{object_id}/{view}/"


def test_a_log_reader_without_the_models_view_sees_who_when_and_which_fields_only(db, alice):
    entry = changed_email_entry(alice)
    reader = client_for(staff("lou", "dynamo_admin.view_adminlog"))

    for view in ("change", "raw"):
        page = reader.get(entry_url(entry, view))
        text = page.content.decode()
        assert page.status_code == 200
        assert SECRET_EMAIL not in text and "alice@example.com" not in text
        assert "email" in text and "ada" in text and HIDDEN in text
    # The stored entry keeps its values: only what the page shows is hidden.
    assert AdminLog.history(User("alice"))[0].changes["email"][1] == SECRET_EMAIL


def test_a_log_reader_who_may_view_learners_sees_the_values(db, alice):
    entry = changed_email_entry(alice)
    reader = client_for(staff("lou", "dynamo_admin.view_adminlog", "users.view_user"))

    assert SECRET_EMAIL in reader.get(entry_url(entry, "change")).content.decode()
