"""Django's admin extension points, as a Django engineer would use them on a DynamoDB model."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django import forms
from django.contrib import admin
from django.contrib.admin import site as admin_site
from django.http import HttpResponseRedirect
from pynamodb.attributes import UnicodeSetAttribute

from catalog.models import Skill
from dynamo_admin.filters import IndexFilter
from dynamo_admin.models import AdminLog
from dynamo_admin.writes import write_with_history
from stats.models import UserStats
from tests.admin_fixtures import record_session_action
from users.admin import UserAdmin, UserSkillInline
from users.catalog_admin import SkillAdmin
from users.models import User

# Django's hooks and options on our admin; the writes behind them are tested on both engines
# in test_admin_change and test_admin_delete: moto alone here.
pytestmark = pytest.mark.engines("moto")

SKILLS = "/admin/catalog/skill/"


@admin.display(description="Loud name")
def loud_name(skill):
    return skill.name.upper()


@admin.display(description="Mentor", empty_value="(nobody)")
def mentor(skill):
    return None


def test_the_site_is_titled_skillboard_administration(admin_client_, dynamo):
    page = admin_client_.get("/admin/").content.decode()

    assert "Skillboard administration" in page
    assert "<title>Site administration | Skillboard site admin</title>" in page
    assert "Django administration" not in page


def test_list_display_takes_plain_functions_with_their_descriptions(
    admin_client_, python, monkeypatch
):
    monkeypatch.setattr(SkillAdmin, "list_display", ("skill_id", loud_name, mentor))

    page = admin_client_.get(SKILLS).content.decode()

    assert "Loud name" in page and "<td>PYTHON</td>" in page
    assert "Mentor" in page and "<td>(nobody)</td>" in page


def test_list_display_takes_admin_methods_and_model_methods(admin_client_, python, monkeypatch):
    @admin.display(description="Tag count")
    def tag_count(self, skill):
        return len(skill.tags or ())

    monkeypatch.setattr(SkillAdmin, "tag_count", tag_count, raising=False)
    monkeypatch.setattr(SkillAdmin, "list_display", ("skill_id", "tag_count", "to_display"))

    page = admin_client_.get(SKILLS).content.decode()

    assert "Tag count" in page and "<td>1</td>" in page
    assert "To display" in page and "&quot;name&quot;: &quot;Python&quot;" in page


def test_column_headers_are_humanised(admin_client_, alice):
    users = admin_client_.get("/admin/users/userskill/").content.decode()
    inline = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    assert "Skill name" in users and "skill_name<" not in users
    assert '<th class="column-skill_name">Skill name</th>' in inline


def test_the_users_admin_does_not_import_the_stats_app():
    tree = ast.parse(Path("users/admin.py").read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [
        a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names
    ]

    assert not [name for name in imported if name.split(".")[0] == "stats"]


def test_the_stats_app_attaches_its_inline_to_the_learners_page(admin_client_, alice):
    page = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    assert 'name="userstats-0-next_reminder_at_0"' in page


def test_the_study_session_action_uses_the_stats_form_and_its_rules(admin_client_, alice):
    response = record_session_action(
        admin_client_, ["alice"], xp="30", questions="10", correct="11", minutes="5"
    )

    assert response.status_code == 200
    assert "Cannot exceed the questions answered." in response.content.decode()
    assert UserStats.get("alice").xp == 120


def test_get_form_can_add_a_rule_the_model_does_not_have(admin_client_, python, monkeypatch):
    original = SkillAdmin.get_form

    def get_form(self, request, obj=None, change=False, **kwargs):
        form_class = original(self, request, obj, change, **kwargs)

        class NoCobol(form_class):
            def clean_name(self):
                if self.cleaned_data["name"] == "COBOL":
                    raise forms.ValidationError("No COBOL here.")
                return self.cleaned_data["name"]

        return NoCobol

    monkeypatch.setattr(SkillAdmin, "get_form", get_form)

    response = admin_client_.post(
        f"{SKILLS}python/change/", {"name": "COBOL", "category": "Programming", "_version": "1"}
    )

    assert "No COBOL here." in response.content.decode()
    assert Skill.get("python").name == "Python"


def test_save_model_sets_what_the_form_does_not_edit(admin_client_, python, monkeypatch):
    def save_model(self, request, obj, form, change):
        obj.description = f"Last edited by {request.user.username}"
        super(SkillAdmin, self).save_model(request, obj, form, change)

    monkeypatch.setattr(SkillAdmin, "save_model", save_model, raising=False)

    admin_client_.post(
        f"{SKILLS}python/change/", {"name": "Python 3", "category": "Programming", "_version": "1"}
    )

    stored = Skill.get("python")
    assert (stored.name, stored.description) == ("Python 3", "Last edited by ada")


def test_delete_model_serves_the_delete_page_and_the_bulk_action(admin_client_, alice, monkeypatch):
    def delete_model(self, request, obj):
        obj.soft_delete()  # keep the learner for the gardener instead of deleting it now

    monkeypatch.setattr(UserAdmin, "delete_model", delete_model, raising=False)
    User("bob", name="Bob", email="bob@example.com").save()

    admin_client_.post("/admin/users/user/alice/delete/", {"version": "1"})
    admin_client_.post(
        "/admin/users/user/",
        {
            "action": "delete_selected",
            "_selected_action": ["bob"],
            "_selected_version": ["1"],
            "post": "yes",
        },
    )

    assert User.get("alice").deleted_at is not None
    assert User.get("bob").deleted_at is not None


def test_response_change_and_message_user_can_be_overridden(admin_client_, python, monkeypatch):
    def response_change(self, request, obj):
        self.message_user(request, "Saved; here is its history.", "warning")
        return HttpResponseRedirect(self.url_for("history", "python"))

    monkeypatch.setattr(SkillAdmin, "response_change", response_change, raising=False)

    response = admin_client_.post(
        f"{SKILLS}python/change/",
        {"name": "Python 3", "category": "Programming", "_version": "1"},
        follow=True,
    )

    assert response.redirect_chain == [("/admin/catalog/skill/python/history/", 302)]
    assert '<li class="warning">Saved; here is its history.</li>' in response.content.decode()


def test_response_add_can_send_the_user_elsewhere(admin_client_, dynamo, monkeypatch):
    monkeypatch.setattr(
        SkillAdmin,
        "response_add",
        lambda self, request, obj, post_url_continue=None: HttpResponseRedirect("/admin/"),
        raising=False,
    )

    response = admin_client_.post(
        f"{SKILLS}add/", {"skill_id": "go", "name": "Go", "category": "Programming"}
    )

    assert response["Location"] == "/admin/"
    assert Skill.get("go").name == "Go"


def test_widgets_come_from_attribute_types_overrides_and_formfield_for_dbfield(
    admin_client_, dynamo, monkeypatch
):
    monkeypatch.setattr(
        SkillAdmin,
        "formfield_overrides",
        {UnicodeSetAttribute: {"widget": forms.Textarea(attrs={"rows": 9})}},
    )

    page = admin_client_.get(f"{SKILLS}add/").content.decode()

    assert '<textarea name="tags" cols="40" rows="9"' in page  # the override, by type
    assert '<textarea name="description"' in page  # SkillAdmin.formfield_for_dbfield
    assert '<input type="text" name="name"' in page  # a string attribute by default


def test_an_inline_permission_method_receives_the_parent_item(admin_client_, alice, monkeypatch):
    monkeypatch.setattr(
        UserSkillInline, "has_add_permission", lambda self, request, obj: obj.username != "alice"
    )
    User("bob", name="Bob", email="bob@example.com").save()

    alices = admin_client_.get("/admin/users/user/alice/change/").content.decode()
    bobs = admin_client_.get("/admin/users/user/bob/change/").content.decode()

    assert 'name="userskill-1-skill_id"' not in alices  # no empty row to add one
    assert 'name="userskill-0-skill_id"' in bobs


def test_recent_actions_list_the_users_dynamodb_changes_from_one_query(admin_client_, python):
    admin_client_.post(
        f"{SKILLS}python/change/", {"name": "Python 3", "category": "Programming", "_version": "1"}
    )
    admin_client_.post(f"{SKILLS}add/", {"skill_id": "go", "name": "Go", "category": "Other"})
    write_with_history(Skill("rust", name="Rust", category="Other"), "add", "someone-else")

    response = admin_client_.get("/admin/")

    page = response.content.decode()
    recent = page[page.index('id="recent-actions-module"') :]
    assert recent.index(">go</a>") < recent.index(">python</a>")  # newest first
    assert 'href="/admin/catalog/skill/python/change/"' in recent
    assert "rust" not in recent  # another staff user's change
    assert response.wsgi_request.dynamo_meter.count_of("Query") == 1


class CodeOnly(IndexFilter):
    """A filter written as a Django engineer writes a SimpleListFilter."""

    title = "kind"
    parameter_name = "kind"
    index_name = "gsi_category"

    def lookups(self, request, model_admin):
        return [("Programming", "Code")]

    def source(self, value):
        assert self.value() == value  # value() is a method, as in Django
        return super().source(value)


def test_a_list_filter_uses_djangos_filter_api_and_template(admin_client_, python, monkeypatch):
    Skill("aws", name="AWS", category="Cloud").save()
    monkeypatch.setattr(SkillAdmin, "list_filter", [CodeOnly])

    sidebar = admin_client_.get(SKILLS).content.decode()
    chosen = admin_client_.get(SKILLS, {"kind": "Programming"}).content.decode()

    assert '<details data-filter-title="kind" open>' in sidebar  # Django's admin/filter.html
    assert '<a href="?kind=Programming">Code</a>' in sidebar
    assert ">python</a>" in chosen and ">aws</a>" not in chosen
    assert '<li class="selected">\n    <a href="?kind=Programming">Code</a>' in chosen


def test_the_admin_pages_speak_the_sites_language(admin_client_, python, settings):
    settings.LANGUAGE_CODE = "fr"
    AdminLog.record(python, "add", user="ada")

    listing = admin_client_.get(SKILLS).content.decode()
    history = admin_client_.get(f"{SKILLS}python/history/").content.decode()

    assert "Envoyer" in listing  # Django's "Go" on the action bar
    assert "Select all objects on this page" not in listing
    assert "Date/heure" in history


def test_extra_context_chooses_the_submit_rows_buttons_as_in_django(admin, python, rf):
    request = rf.get(f"{SKILLS}python/change/")
    request.user = admin
    buttons = {"show_save_and_add_another": False, "show_delete": False}

    response = admin_site.get_model_admin(Skill).change_view(
        request, "python", extra_context=buttons
    )

    page = response.render().content.decode()
    assert 'name="_save"' in page and 'name="_continue"' in page
    assert 'name="_addanother"' not in page and "deletelink" not in page


def test_save_on_top_repeats_the_submit_row_above_the_form(admin_client_, python, monkeypatch):
    monkeypatch.setattr(SkillAdmin, "save_on_top", True)

    page = admin_client_.get(f"{SKILLS}python/change/").content.decode()

    assert page.count('<div class="submit-row">') == 2
    assert page.index('<div class="submit-row">') < page.index('<fieldset class="module aligned')


def test_fieldsets_take_lines_of_fields_and_read_only_admin_methods(
    admin_client_, python, monkeypatch
):
    @admin.display(description="Shouted")
    def shout(self, skill):
        return skill.name.upper()

    monkeypatch.setattr(SkillAdmin, "shout", shout, raising=False)
    monkeypatch.setattr(SkillAdmin, "readonly_fields", ("shout",))
    monkeypatch.setattr(
        SkillAdmin, "fieldsets", [(None, {"fields": [("name", "category"), "shout"]})]
    )

    page = admin_client_.get(f"{SKILLS}python/change/").content.decode()
    saved = admin_client_.post(
        f"{SKILLS}python/change/", {"name": "Python 3", "category": "Data", "_version": "1"}
    )

    assert '<div class="flex-container form-multiline">' in page  # Django's line of fields
    assert 'name="name"' in page and 'name="category"' in page
    assert "<label>Shouted:</label>" in page and '<div class="readonly">PYTHON</div>' in page
    assert saved.status_code == 302
    assert (Skill.get("python").name, Skill.get("python").category) == ("Python 3", "Data")


class TagActionForm(admin.helpers.ActionForm):
    """An action form with a field of its own, as Django's admin takes one."""

    tag = forms.CharField(required=False, label="Tag:")


def test_the_action_bar_takes_djangos_options_and_action_form(admin_client_, python, monkeypatch):
    monkeypatch.setattr(SkillAdmin, "action_form", TagActionForm)
    monkeypatch.setattr(SkillAdmin, "actions_on_top", False)
    monkeypatch.setattr(SkillAdmin, "actions_on_bottom", True)
    monkeypatch.setattr(SkillAdmin, "actions_selection_counter", False)

    page = admin_client_.get(SKILLS).content.decode()

    assert page.count('<div class="actions">') == 1
    assert page.index('id="result_list"') < page.index('<div class="actions">')
    assert '<label>Tag: <input type="text" name="tag">' in page
    assert "action-counter" not in page


def test_get_object_can_be_overridden_for_the_change_page_and_its_save(
    admin_client_, python, monkeypatch
):
    asked = []

    def get_object(self, request, object_id):
        asked.append(object_id)
        return None if object_id == "python" else Skill.get_or_none(object_id)

    monkeypatch.setattr(SkillAdmin, "get_object", get_object, raising=False)
    page = admin_client_.get(f"{SKILLS}python/change/")
    save = admin_client_.post(f"{SKILLS}python/change/", {"name": "Mine", "_version": "1"})

    assert asked == ["python", "python"]
    assert page.status_code == save.status_code == 302  # the hook hid it: "doesn't exist"
    assert Skill.get("python").name == "Python"
