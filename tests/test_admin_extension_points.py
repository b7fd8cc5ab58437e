"""Django's admin extension points, as a Django engineer would use them on a DynamoDB model."""

from __future__ import annotations

import ast
from pathlib import Path

from django.contrib import admin

from catalog.admin import SkillAdmin
from stats.models import UserStats

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

    assert 'name="userstats-0-xp"' in page


def test_the_study_session_action_uses_the_stats_form_and_its_rules(admin_client_, alice):
    response = admin_client_.post(
        "/admin/stats/userstats/",
        {
            "action": "record_study_session",
            "_selected_action": ["alice"],
            "apply": "1",
            "xp": "30",
            "questions": "10",
            "correct": "11",
            "minutes": "5",
        },
    )

    assert response.status_code == 200
    assert "Cannot exceed the questions answered." in response.content.decode()
    assert UserStats.get("alice").xp == 120
