"""Staff move data in and out through the admin in headless Chromium: export what the listing
shows, import a file after its preview, change a field of selected rows."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from catalog.models import Skill
from tests.browser_fixtures import staff_and_skills, staff_page
from users.models import User, UserSkill

pytestmark = [pytest.mark.browser, pytest.mark.engines("local")]


@pytest.fixture
def site(dynamo, live_server, transactional_db):
    """Skills and learners on DynamoDB Local, and a superuser."""
    staff_and_skills()
    for username, name in [("alice", "Alice Liddell"), ("alina", "Alina Zagitova")]:
        User(username, name=name, email=f"{username}@example.com").save()
    User("bob", name="Bob Marley", email="bob@example.com").save()
    UserSkill.for_catalog("alice", Skill.get("go"), proficiency="Expert", years=3).save()
    return live_server.url


@pytest.fixture
def page(browser, site):
    with staff_page(browser, site, accept_downloads=True) as (page, problems):
        yield page
    assert problems == []


def test_staff_export_the_learners_a_search_lists_as_csv(page, site):
    page.goto(f"{site}/admin/users/user/?q=ali")
    listed = page.locator("input.action-select").evaluate_all("boxes => boxes.map(b => b.value)")
    page.click("a.export-link")
    with page.expect_download() as download:
        page.click("button[value=csv]")

    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    assert rows[0][0] == "username"
    assert sorted(row[0] for row in rows[1:]) == sorted(listed) == ["alice", "alina"]


def test_staff_import_skills_after_a_preview(page, site, tmp_path):
    path = tmp_path / "skills.csv"
    path.write_text(
        "skill_id,name,category\n"
        "python,Python,Programming\n"  # unchanged
        "go,Go,Backend\n"  # changed
        "rust,Rust,Programming\n"  # new
        "bad id,Bad,Programming\n"  # refused
    )
    page.goto(f"{site}/admin/catalog/skill/")
    page.click("a.import-link")
    page.set_input_files("#id_file", str(path))
    page.click("input[type=submit][value=Preview]")

    preview = page.inner_text("#content-main")
    assert "1 new, 1 changed, 1 unchanged, 1 refused" in preview
    assert page.inner_text("tr.row-refused td:first-child") == "5"
    assert Skill.get_or_none("rust") is None

    page.check("#id_skip_refused")
    page.click("input[type=submit][value='Confirm import']")

    assert "1 new, 1 changed, 1 unchanged, 1 refused" in page.inner_text(".messagelist")
    assert Skill.get("rust").name == "Rust"
    assert Skill.get("go").category == "Backend"
    assert Skill.get("python").version == 1
    assert Skill.get_or_none("bad id") is None


def test_a_row_changed_between_preview_and_confirm_is_reported_and_kept(page, site, tmp_path):
    path = tmp_path / "skills.csv"
    path.write_text("skill_id,name,category\ngo,Go,Backend\n")
    page.goto(f"{site}/admin/catalog/skill/import/")
    page.set_input_files("#id_file", str(path))
    page.click("input[type=submit][value=Preview]")
    theirs = Skill.get("go")
    theirs.category = "DevOps"
    theirs.save()

    page.click("input[type=submit][value='Confirm import']")

    assert "changed by someone else since the preview" in page.inner_text(".messagelist")
    assert Skill.get("go").category == "DevOps"


def test_a_bulk_change_of_category_reaches_the_learners_copies(page, site):
    page.goto(f"{site}/admin/catalog/skill/")
    page.check("input.action-select[value=go]")
    page.check("input.action-select[value=python]")
    page.select_option("select[name=action]", "change_field")
    page.click("button[name=index]")
    page.select_option("#id_field", "category")
    page.click("button[value=choose]")
    page.select_option("#id_value-category", "Backend")
    page.click("button[value=preview]")
    assert "2 items will be set to “Backend”" in page.inner_text("#content-main")
    page.click("button[value=confirm]")

    assert "Changed 2, unchanged 0, refused 0." in page.inner_text(".messagelist")
    assert Skill.get("go").category == Skill.get("python").category == "Backend"
    call_command("sync_user_skills", "--pending")  # what the scheduler runs
    assert UserSkill.get("alice", "go").category == "Backend"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_listing_exported_then_imported_changes_only_the_edited_cell(
    browser, site, width, tmp_path
):
    """The admin's Export, one cell edited in the file, then its Import: one row changed."""
    with staff_page(
        browser, site, accept_downloads=True, viewport={"width": width, "height": 900}
    ) as (page, problems):
        page.goto(f"{site}/admin/catalog/skill/")
        page.click("a.export-link")
        with page.expect_download() as download:
            page.click("button[value=csv]")
        path = tmp_path / download.value.suggested_filename  # where the browser saves it
        download.value.save_as(path)
        rows = list(csv.reader(io.StringIO(path.read_text())))
        column = rows[0].index("category")
        edited = next(row for row in rows[1:] if row[0] == "go")
        edited[column] = "DevOps"
        buffer = io.StringIO()
        csv.writer(buffer).writerows(rows)
        path.write_text(buffer.getvalue())

        page.goto(f"{site}/admin/catalog/skill/import/")
        page.set_input_files("#id_file", str(path))
        page.click("input[type=submit][value=Preview]")
        preview = page.inner_text("#content-main")
        page.click("input[type=submit][value='Confirm import']")

        assert f"0 new, 1 changed, {len(rows) - 2} unchanged, 0 refused" in preview
        assert "1 changed" in page.inner_text(".messagelist")
        assert Skill.get("go").category == "DevOps"
        assert Skill.get("python").version == 1
    assert problems == []
