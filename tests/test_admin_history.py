"""History: every admin write leaves a log entry; each item has a History page."""

from __future__ import annotations

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from tests.admin_fixtures import calls


def test_a_change_is_logged_with_who_and_the_old_and_new_values(admin_client_, python):
    admin_client_.post(
        "/admin/catalog/skill/python/change/",
        {
            "name": "Python 3",
            "category": "Backend",
            "description": "",
            "tags": "language",
            "_version": "1",
        },
    )

    [entry] = AdminLog.history(Skill("python"))
    assert (entry.action, entry.user) == ("change", "ada")
    assert entry.changes == {"name": ["Python", "Python 3"], "category": ["Programming", "Backend"]}


def test_the_history_page_lists_entries_newest_first_in_one_query(admin_client_, python):
    AdminLog.record(python, "add", user="ada")
    AdminLog.record(python, "change", user="bea", changes={"name": ["Python", "Py"]})

    response = admin_client_.get("/admin/catalog/skill/python/history/")

    page = response.content.decode()
    assert calls(response) == 1
    assert page.index("<td>bea</td>") < page.index("<td>ada</td>")
    assert "Python &rarr; Py" in page


def test_the_history_of_a_deleted_item_stays_readable(admin_client_, python):
    admin_client_.post("/admin/catalog/skill/python/delete/", {"version": "1"})

    page = admin_client_.get("/admin/catalog/skill/python/history/").content.decode()

    assert "Deleted." in page


def test_the_log_is_browsable_read_only(admin_client_, python):
    AdminLog.record(python, "add", user="ada")

    listing = admin_client_.get("/admin/dynamo_admin/adminlog/", {"q": "catalog.skill:python"})

    assert listing.status_code == 200
    assert "catalog.skill:python" in listing.content.decode()
    assert admin_client_.get("/admin/dynamo_admin/adminlog/add/").status_code == 403
