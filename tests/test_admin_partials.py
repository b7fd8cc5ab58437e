"""The DynamoDB pages render through Django's own admin partials, which a project overrides."""

from __future__ import annotations

import copy

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin import helpers as django_helpers
from django.contrib.auth.models import User as StaffUser

from catalog.models import Skill
from dynamo_admin import helpers
from dynamo_admin.forms import item_form_class
from tests.admin_fixtures import client_for, staff
from users.catalog_admin import SkillAdmin
from users.models import User, UserSkill

# Django's partials and templates on our pages: nothing here depends on the engine, so moto alone.
pytestmark = pytest.mark.engines("moto")

PYTHON = "/admin/catalog/skill/python/change/"
ALICE = "/admin/users/user/alice/change/"


@pytest.fixture
def project_templates(settings, tmp_path):
    """A project template directory searched before the apps', as a project's DIRS is."""
    templates = copy.deepcopy(settings.TEMPLATES)
    templates[0]["DIRS"] = [tmp_path, *templates[0]["DIRS"]]
    settings.TEMPLATES = templates

    def write(name: str, text: str) -> None:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    return write


def test_the_change_page_has_djangos_submit_row(admin_client_, python):
    page = admin_client_.get(PYTHON).content.decode()

    assert '<div class="submit-row">' in page
    assert '<input type="submit" value="Save" class="default" name="_save">' in page
    assert '<input type="submit" value="Save and add another" name="_addanother">' in page
    assert '<input type="submit" value="Save and continue editing" name="_continue">' in page
    assert f'<a href="{PYTHON.replace("change", "delete")}" class="deletelink">Delete</a>' in page
    assert "closelink" not in page


def test_a_viewer_gets_djangos_close_link_and_no_save_button(viewer_client, python):
    page = viewer_client.get(PYTHON).content.decode()

    assert '<a href="/admin/catalog/skill/" class="closelink">Close</a>' in page
    assert 'name="_save"' not in page and "deletelink" not in page


def test_the_add_page_offers_save_and_view_to_who_may_add_but_not_change(db, dynamo):
    client = client_for(staff("adam", "catalog.add_skill", "catalog.view_skill"))

    page = client.get("/admin/catalog/skill/add/").content.decode()

    assert '<input type="submit" value="Save and view" name="_continue">' in page
    assert 'name="_addanother"' in page


def test_the_delete_link_of_a_composite_key_names_the_item(admin_client_, dynamo):
    # Django's submit_line.html links `original.pk|admin_urlquote`: quote() must keep the
    # object id (already quoted, comma-joined) whole, as it keeps an integer pk.
    Skill("c-sharp", name="C#", category="Programming").save()
    User("o.brien_x", name="Orla", email="orla@example.com").save()
    UserSkill.for_catalog("o.brien_x", Skill.get("c-sharp"), proficiency="Expert", years=2).save()

    page = admin_client_.get("/admin/users/userskill/o.brien_5Fx,c-sharp/change/").content.decode()

    assert 'href="/admin/users/userskill/o.brien_5Fx,c-sharp/delete/" class="deletelink"' in page


def test_fieldsets_render_through_djangos_fieldset_template(admin_client_, alice):
    page = admin_client_.get(ALICE).content.decode()

    assert '<fieldset class="module aligned " aria-labelledby="fieldset-0-1-heading">' in page
    assert '<h2 id="fieldset-0-1-heading" class="fieldset-heading">Account</h2>' in page
    assert '<label class="required" for="id_name">Name:</label>' in page
    assert "<label>Version:</label>" in page and '<div class="readonly">1</div>' in page


def test_the_read_only_password_hash_stays_masked_in_djangos_fieldset(admin_client_, alice):
    alice.set_password("correct-horse-battery")
    alice.save()
    stored = User.get("alice").password_hash
    algorithm, salt, hashed = stored.split("$")

    page = admin_client_.get(ALICE).content.decode()

    row = page[page.index('<div class="form-row field-password_hash">') :]
    row = row[: row.index("</fieldset>")]
    assert "<label>Password hash:</label>" in row
    assert f'<div class="readonly">algorithm: {algorithm} ' in row
    assert stored not in page and salt not in page and hashed not in page


def test_a_read_only_text_keeps_its_line_breaks_escaped(viewer_client, dynamo):
    Skill("go", name="Go", category="Programming", description="<b>fast</b>\nsimple").save()

    page = viewer_client.get("/admin/catalog/skill/go/change/").content.decode()

    assert '<div class="readonly">&lt;b&gt;fast&lt;/b&gt;<br>simple</div>' in page


def test_errors_and_help_texts_show_where_djangos_template_puts_them(admin_client_, python):
    response = admin_client_.post(
        PYTHON, {"name": "", "category": "Programming", "tags": "", "_version": "1"}
    )

    page = response.content.decode()
    assert '<p class="errornote">' in page and "Please correct the error below." in page
    assert '<div class="form-row errors field-name">' in page
    assert '<ul class="errorlist" id="id_name_error"><li>This field is required.</li></ul>' in page
    assert '<div class="help" id="id_tags_helptext">' in page and "One value per line." in page


@pytest.mark.parametrize(
    ("partial", "page"),
    [
        ("admin/submit_line.html", PYTHON),
        ("admin/catalog/skill/submit_line.html", PYTHON),
        ("admin/includes/fieldset.html", PYTHON),
        ("admin/includes/fieldset.html", ALICE),  # the stacked stats inline includes it too
        ("admin/actions.html", "/admin/catalog/skill/"),
    ],
)
def test_a_project_override_of_a_django_partial_shows_on_dynamodb_pages(
    admin_client_, alice, project_templates, partial, page
):
    project_templates(partial, '<p class="ours">{{ opts.verbose_name }}</p>')

    text = admin_client_.get(page).content.decode()

    assert '<p class="ours">' in text
    if partial.endswith("fieldset.html") and page == ALICE:
        # Three fieldsets and the stats inline's row (holding its max_num of one stored row,
        # the inline has no empty row for inlines.js to copy).
        assert text.count('<p class="ours">') == 4


def test_an_override_for_another_model_leaves_this_one_alone(
    admin_client_, python, project_templates
):
    project_templates("admin/users/user/submit_line.html", "<p>not for skills</p>")

    page = admin_client_.get(PYTHON).content.decode()

    assert "not for skills" not in page and '<div class="submit-row">' in page


def test_the_action_bar_is_djangos_with_no_select_across_pages(admin_client_, python):
    page = admin_client_.get("/admin/catalog/skill/").content.decode()

    assert '<label>Action: <select name="action" required>' in page
    assert '<option value="delete_selected">Delete selected skills</option>' in page
    assert '<input type="hidden" name="select_across" value="0" class="select-across">' in page
    assert '<span class="action-counter" data-actions-icnt="1">0 of 1 selected</span>' in page
    assert "Select all" not in page.replace("Select all objects on this page", "")


def test_the_read_only_field_sets_every_attribute_djangos_sets():
    # Django's AdminReadonlyField.__init__ needs a ModelForm's _meta, so ours sets the same
    # attributes itself; a Django release that adds one (read by its templates or methods)
    # fails here first.
    django_form = forms.modelform_factory(StaffUser, fields=["username"])()
    django_admin = admin.site.get_model_admin(StaffUser)
    theirs = django_helpers.AdminReadonlyField(django_form, "email", True, django_admin)
    ours = helpers.AdminReadonlyField(
        item_form_class(Skill, ["name"])(), "category", True, SkillAdmin(Skill, admin.site)
    )

    assert set(vars(theirs)) <= set(vars(ours))
    assert set(theirs.field) == set(ours.field)
    assert ours.label_tag() == "<label>Category:</label>"


def shape(admin_form) -> list:
    """Return what fieldset.html reads of an AdminForm: attributes, field kinds and places."""
    return [
        (
            set(vars(fieldset)) - {"item"},
            [set(vars(line)) - {"item"} for line in fieldset],
            [
                [(type(field), field.field.name, field.is_first) for field in line]
                for line in fieldset
            ],
        )
        for fieldset in admin_form
    ]


def test_our_admin_form_walks_a_form_as_djangos_does():
    # Ours re-implements the __iter__ of Django's AdminForm, Fieldset and Fieldline to reach
    # its read-only field; a Django release that builds them differently fails here first.
    form = forms.modelform_factory(StaffUser, fields=["username", "email", "first_name"])()
    fieldsets = [
        (None, {"fields": [("username", "email")]}),
        ("Name", {"fields": ["first_name"], "classes": ["wide"], "description": "Shown."}),
    ]
    django_admin = admin.site.get_model_admin(StaffUser)

    theirs = django_helpers.AdminForm(form, fieldsets, {}, (), django_admin)
    ours = helpers.AdminForm(form, fieldsets, django_admin)

    assert shape(ours) == shape(theirs)
    assert [(f.name, f.classes, f.description) for f in ours] == [
        (f.name, f.classes, f.description) for f in theirs
    ]
