"""The sidebar's app list reads as Django's does, each staff member seeing what they may."""

from __future__ import annotations

import re

import pytest
from django.template import engines

from tests.admin_fixtures import client_for, staff

# The sidebar's rendering and permissions: nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")

DJANGOS = "{% include 'admin/app_list.html' with app_list=available_apps show_changelinks=False %}"


def sidebar(response) -> str:
    page = response.content.decode()
    return re.search(r'<nav class="sticky" id="nav-sidebar".*?</nav>', page, re.S).group(0)


def djangos_sidebar(response) -> str:
    """Render the page's app list with Django's own include, as Django's nav_sidebar does."""
    context = dict(response.context_data)
    return engines["django"].from_string(DJANGOS).render(context, response.wsgi_request)


@pytest.mark.parametrize(
    "url",
    ["/admin/catalog/skill/", "/admin/users/user/add/", "/admin/auth/group/", "/admin/auth/user/"],
)
def test_the_sidebar_is_djangos_own_rendering(admin_client_, dynamo, url):
    response = admin_client_.get(url)

    assert response.status_code == 200
    assert djangos_sidebar(response).strip() in sidebar(response)


def test_each_page_marks_its_own_model(admin_client_, dynamo):
    skills = sidebar(admin_client_.get("/admin/catalog/skill/"))
    learners = sidebar(admin_client_.get("/admin/users/user/"))

    assert 'class="model-skill current-model"' in skills
    assert 'class="model-user current-model"' in learners
    assert 'class="model-skill current-model"' not in learners


def test_a_staff_member_sees_only_what_they_may_after_a_superuser_rendered_it(
    admin_client_, dynamo
):
    everything = sidebar(admin_client_.get("/admin/catalog/skill/"))
    viewer = client_for(staff("vic", "catalog.view_skill"))

    theirs = sidebar(viewer.get("/admin/catalog/skill/"))

    assert "/admin/users/user/" in everything and "/admin/catalog/skill/add/" in everything
    assert "/admin/users/user/" not in theirs and "/admin/catalog/skill/add/" not in theirs
    assert 'href="/admin/catalog/skill/"' in theirs
