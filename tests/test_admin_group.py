"""Groups on the admin: a permission id no row can have is the form's error, not a 500."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission

ADD = "/admin/auth/group/add/"


@pytest.mark.parametrize("key", ["99999999999999999999", "-99999999999999999999", "2147483648"])
def test_a_permission_id_beyond_any_row_is_a_form_error(admin_client_, key):
    response = admin_client_.post(ADD, {"name": "Editors", "permissions": [key]})

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert "permissions" in errors and key in errors["permissions"][0], errors
    assert not Group.objects.filter(name="Editors").exists()


def test_real_permissions_still_make_a_group(admin_client_):
    view_token = Permission.objects.get(codename="view_apitoken")

    response = admin_client_.post(ADD, {"name": "Readers", "permissions": [view_token.pk]})

    assert response.status_code == 302
    assert list(Group.objects.get(name="Readers").permissions.all()) == [view_token]
