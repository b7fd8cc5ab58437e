"""Django's own tables through the admin: a change to a group is logged and listed (LogEntry)."""

from __future__ import annotations

import pytest
from django.contrib.admin.models import ADDITION, LogEntry
from django.contrib.auth.models import Group

# Django's own tables through the admin: moto alone.
pytestmark = pytest.mark.engines("moto")


def test_a_group_added_in_the_admin_is_logged_and_listed_in_recent_actions(
    admin_client_, admin, dynamo
):
    response = admin_client_.post("/admin/auth/group/add/", {"name": "editors"})

    assert response.status_code == 302
    group = Group.objects.get(name="editors")
    entry = LogEntry.objects.get(user=admin)
    assert (entry.action_flag, entry.object_id, entry.object_repr) == (
        ADDITION,
        str(group.pk),
        "editors",
    )
    index = admin_client_.get("/admin/").content.decode()
    recent = index[index.index('id="recent-actions-module"') :]
    assert f'href="/admin/auth/group/{group.pk}/change/"' in recent
