"""Who a token may act as: staff create tokens for themselves; only a superuser for others."""

from __future__ import annotations

from django.core.management import load_command_class

from api.models import ApiToken
from tests.admin_fixtures import client_for, staff

ADD = "/admin/api/apitoken/add/"


def test_the_add_page_offers_a_plain_staff_member_only_themselves(db, admin):
    maker = staff("tom", "api.add_apitoken", "api.view_apitoken")
    staff("other")
    form = client_for(maker).get(ADD).context["adminform"].form
    assert list(form.fields["user"].queryset) == [maker]


def test_a_forged_post_naming_another_owner_is_a_form_error(db, admin):
    maker = staff("tom", "api.add_apitoken", "api.view_apitoken")
    response = client_for(maker).post(ADD, {"user": admin.pk, "name": "escalate"})
    # The page comes back with the refusal on the owner field, and nothing is stored.
    assert response.status_code == 200
    assert "only for yourself" in " ".join(response.context["adminform"].form.errors["user"])
    assert not ApiToken.objects.exists()


def test_a_plain_staff_member_creates_a_token_for_themselves(db, admin):
    maker = staff("tom", "api.add_apitoken", "api.view_apitoken")
    response = client_for(maker).post(ADD, {"user": maker.pk, "name": "mine"})
    assert response.status_code == 302
    assert ApiToken.objects.get().user == maker


def test_the_add_page_selects_the_staff_member_adding_the_token_as_its_owner(db, admin):
    other = staff("other")
    page = client_for(admin).get(ADD).content.decode()

    # A superuser is offered every staff member; the one selected is themselves, so a save
    # that changes nothing else makes their own token instead of failing on "---------".
    assert f'<option value="{admin.pk}" selected>' in page
    assert f'<option value="{other.pk}">' in page


def test_a_superuser_may_create_a_token_for_another_staff_member(db, admin):
    other = staff("other")
    assert list(ApiToken.owners_for(admin).order_by("username")) == [admin, other]
    client_for(admin).post(ADD, {"user": other.pk, "name": "theirs"})
    assert ApiToken.objects.get().user == other


def test_create_api_tokens_help_states_the_rule():
    help_text = load_command_class("api", "create_api_token").help
    assert "only for themselves" in help_text and "superuser" in help_text
