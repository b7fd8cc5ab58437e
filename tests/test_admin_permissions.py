"""Who may see and do what: Django's login, permissions and CSRF protect every admin view."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User as StaffUser
from django.test import Client

from catalog.models import Skill
from tests.admin_fixtures import client_for

# Who may see and do what is decided before any call reaches the engine: moto alone.
pytestmark = pytest.mark.engines("moto")

URLS = [
    "/admin/catalog/skill/",
    "/admin/catalog/skill/add/",
    "/admin/catalog/skill/python/change/",
    "/admin/catalog/skill/python/delete/",
    "/admin/catalog/skill/python/history/",
    "/admin/catalog/skill/python/raw/",
]


@pytest.mark.parametrize("url", URLS)
def test_anonymous_visitors_are_sent_to_the_login_page(db, python, url):
    response = Client().get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(f"/admin/login/?next={url}")


@pytest.mark.parametrize("url", URLS)
def test_staff_without_the_permission_get_403_on_every_view(bare_staff_client, python, url):
    assert bare_staff_client.get(url).status_code == 403


def test_staff_without_the_permission_cannot_add_change_or_delete_by_post(
    bare_staff_client, python
):
    data = {"skill_id": "go", "name": "Go", "category": "Programming", "_version": "1"}
    assert bare_staff_client.post("/admin/catalog/skill/add/", data).status_code == 403
    assert bare_staff_client.post(URLS[2], {**data, "name": "Hacked"}).status_code == 403
    assert bare_staff_client.post(URLS[3], {"version": "1"}).status_code == 403

    assert Skill.get("python").name == "Python"
    assert Skill.get_or_none("go") is None


def test_a_viewer_sees_items_read_only_and_cannot_change_them(viewer_client, python):
    page = viewer_client.get("/admin/catalog/skill/python/change/")
    posted = viewer_client.post(
        "/admin/catalog/skill/python/change/",
        {"name": "Hacked", "category": "Programming", "_version": "1"},
    )

    assert page.status_code == 200
    assert b'name="name"' not in page.content
    assert b"View skill" in page.content
    assert posted.status_code == 403
    assert viewer_client.get("/admin/catalog/skill/add/").status_code == 403
    assert Skill.get("python").name == "Python"


def test_a_viewer_cannot_run_the_delete_action(viewer_client, python):
    response = viewer_client.post(
        "/admin/catalog/skill/",
        {"action": "delete_selected", "_selected_action": ["python"], "post": "yes"},
    )

    assert response.status_code == 403
    assert Skill.get_or_none("python") is not None


def test_staff_without_the_permission_cannot_run_an_app_action(bare_staff_client, alice):
    response = bare_staff_client.post(
        "/admin/stats/userstats/",
        {"action": "record_study_session", "_selected_action": ["alice"]},
    )

    assert response.status_code == 403


def test_a_group_can_be_allowed_to_view_skills_and_nothing_else(db, python):
    from django.contrib.auth.models import Group, Permission

    group = Group.objects.create(name="catalog readers")
    group.permissions.add(Permission.objects.get(codename="view_skill"))
    reader = StaffUser.objects.create_user("rita", password="pw", is_staff=True)
    reader.groups.add(group)
    client = client_for(reader)

    assert reader.has_perm("catalog.view_skill")
    assert not reader.has_perm("catalog.change_skill")
    assert client.get("/admin/catalog/skill/").status_code == 200
    assert client.get("/admin/users/user/").status_code == 403


def test_every_dynamodb_model_has_its_four_permissions(db):
    from django.contrib.auth.models import Permission

    codenames = set(
        Permission.objects.filter(
            content_type__app_label__in=["catalog", "users", "stats", "dynamo_admin"]
        ).values_list("content_type__app_label", "codename")
    )

    for label, model in [
        ("catalog", "skill"),
        ("users", "user"),
        ("users", "userskill"),
        ("stats", "userstats"),
        ("dynamo_admin", "adminlog"),
    ]:
        for action in ("view", "add", "change", "delete"):
            assert (label, f"{action}_{model}") in codenames


def test_the_index_lists_the_dynamodb_tables_beside_djangos_auth(admin_client_, dynamo):
    page = admin_client_.get("/admin/").content.decode()

    assert 'href="/admin/auth/user/"' in page
    assert 'id="dynamodb-meter"' in page
    for url in [
        "/admin/catalog/skill/",
        "/admin/users/user/",
        "/admin/users/userskill/",
        "/admin/stats/userstats/",
        "/admin/dynamo_admin/adminlog/",
    ]:
        assert f'href="{url}"' in page


def test_the_index_shows_a_viewer_only_what_it_may_view(viewer_client, dynamo):
    page = viewer_client.get("/admin/").content.decode()

    assert 'href="/admin/catalog/skill/"' in page
    assert 'href="/admin/stats/userstats/"' not in page
    assert 'href="/admin/catalog/skill/add/"' not in page


def test_a_post_without_a_csrf_token_is_refused(admin, python):
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin)

    response = client.post(
        "/admin/catalog/skill/python/change/",
        {"name": "Hacked", "category": "Programming", "_version": "1"},
    )

    assert response.status_code == 403
    assert Skill.get("python").name == "Python"
