"""With DEBUG off, a 404 and a 500 are styled pages like the 400 and the 503."""

from __future__ import annotations

from django.test import Client, RequestFactory, override_settings
from django.views.defaults import server_error


@override_settings(DEBUG=False)
def test_an_unknown_address_is_the_styled_404_page(db):
    response = Client().get("/no/such/page/")

    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in page
    assert "skillboard" in page and ".css" in page  # the site's stylesheet, not Django's bare page


@override_settings(DEBUG=False)
def test_a_server_error_is_the_styled_500_page():
    response = server_error(RequestFactory().get("/"))

    page = response.content.decode()
    assert response.status_code == 500
    assert "<h1>Server error</h1>" in page and "skillboard" in page


@override_settings(DEBUG=False)
def test_a_form_refused_by_the_csrf_check_is_the_styled_403_page(db):
    client = Client(enforce_csrf_checks=True)

    response = client.post("/admin/login/", {"username": "root", "password": "x"})

    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>Forbidden</h1>" in page and "reload the page" in page
    assert "skillboard" in page and ".css" in page
    assert "CSRF verification failed" not in page  # not Django's bare page


def test_a_permission_the_admin_refuses_is_the_styled_403_page(db):
    from tests.admin_fixtures import client_for, staff

    response = client_for(staff("nia")).get("/admin/catalog/skill/add/")

    assert response.status_code == 403
    assert "<h1>Forbidden</h1>" in response.content.decode()
