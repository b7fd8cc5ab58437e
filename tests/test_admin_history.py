"""History: every admin write leaves a log entry; each item has a History page."""

from __future__ import annotations

from catalog.models import Skill
from dynamo_admin.models import AdminLog
from tests.admin_fixtures import calls
from users.models import UserSkill


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


def test_a_learners_history_lists_the_changes_made_to_its_rows_saying_which(admin_client_, alice):
    skill = UserSkill.get("alice", "python")
    AdminLog.record(alice, "change", user="ada", changes={"name": ["Alice", "Alice Liddell"]})
    AdminLog.record(skill, "change", user="bea", changes={"proficiency": ["Advanced", "Expert"]})
    AdminLog.record(skill, "delete", user="cy")

    response = admin_client_.get("/admin/users/user/alice/history/")

    page = response.content.decode()
    # Django lists a change made through an inline in the parent's History, naming the row.
    assert "Changed proficiency for user skill “python”." in page
    assert "Deleted user skill “python”." in page
    assert page.index("<td>cy</td>") < page.index("<td>bea</td>") < page.index("<td>ada</td>")
    assert "Advanced &rarr; Expert" in page


def test_an_item_without_inlines_keeps_its_history_to_its_own_entries(admin_client_, alice):
    skill = UserSkill.get("alice", "python")
    AdminLog.record(skill, "change", user="bea", changes={"years": [5, 6]})

    page = admin_client_.get("/admin/users/userskill/alice,python/history/").content.decode()
    learner = admin_client_.get("/admin/users/user/alice/history/").content.decode()

    assert "<td>bea</td>" in page and "for user skill" not in page
    assert "Changed years for user skill" in learner
