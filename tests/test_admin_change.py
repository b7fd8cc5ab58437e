"""The add and change forms: validation, duplicate keys, stale versions, inlines, raw view."""

from __future__ import annotations

import html
import json
import re

import pytest

from catalog.models import CATEGORIES, Skill
from dynamo_admin.models import AdminLog
from stats.models import UserStats
from tests.admin_fixtures import alice_change_post, calls
from tests.test_fuzz import form_fields
from users.models import LearnerWord, User, UserSkill

# What the forms render and refuse before writing is checked on moto alone (ON_MOTO); saves,
# stale versions, taken keys and transactions run on both engines.
ON_MOTO = pytest.mark.engines("moto")

ADD = "/admin/catalog/skill/add/"
PYTHON = "/admin/catalog/skill/python/change/"
# The learner's change page with its blank skill row filled in: Go, as a beginner of a year.
GO_ADDED = {
    "userskill-1-skill_id": "go",
    "userskill-1-proficiency": "Beginner",
    "userskill-1-years": "1",
}


@pytest.fixture
def go(dynamo) -> Skill:
    """Go in the catalog, for the row GO_ADDED adds."""
    skill = Skill("go", name="Go", category="Programming")
    skill.save()
    return skill


def skill_form(**values) -> dict[str, str]:
    return {
        "skill_id": "go",
        "name": "Go",
        "category": "Programming",
        "description": "",
        "tags": "",
        **values,
    }


def test_adding_a_skill_stores_it_and_logs_the_addition(admin_client_, dynamo):
    response = admin_client_.post(ADD, skill_form(tags="compiled\nfast"))

    assert response.status_code == 302
    assert response["Location"] == "/admin/catalog/skill/"
    stored = Skill.get("go")
    assert (stored.name, stored.category, stored.tags, stored.version) == (
        "Go",
        "Programming",
        {"compiled", "fast"},
        1,
    )
    [entry] = AdminLog.history(stored)
    assert (entry.action, entry.user, entry.changes["name"]) == ("add", "ada", [None, "Go"])


def test_adding_an_item_whose_key_exists_is_rejected_and_the_stored_one_kept(admin_client_, python):
    response = admin_client_.post(ADD, skill_form(skill_id="python", name="Impostor"))

    assert response.status_code == 200
    assert "A skill with the key python already exists." in response.content.decode()
    assert Skill.get("python").name == "Python"


@ON_MOTO
def test_a_domain_rule_shows_as_an_error_on_its_field(admin_client_, dynamo):
    response = admin_client_.post(ADD, skill_form(skill_id="Bad_Id"))

    page = response.content.decode()
    assert response.status_code == 200
    assert 'class="form-row errors field-skill_id"' in page  # Django's fieldset.html
    assert "lowercase letters, digits and dashes" in page
    assert Skill.get_or_none("Bad_Id") is None


@ON_MOTO
def test_a_category_is_chosen_from_a_select_of_the_models_choices(admin_client_, dynamo):
    page = admin_client_.get(ADD).content.decode()

    select = re.search(r'<select name="category"[^>]*>(.*?)</select>', page, re.S)
    assert select is not None
    assert re.findall(r'<option value="([^"]*)"', select.group(1)) == ["", *CATEGORIES]


@ON_MOTO
def test_a_category_outside_the_choices_is_refused_on_its_field(admin_client_, dynamo):
    response = admin_client_.post(ADD, skill_form(skill_id="poetry", category="Poetry"))

    page = response.content.decode()
    assert 'class="form-row errors field-category"' in page
    assert "Select a valid choice. Poetry is not one of the available choices." in page
    assert Skill.get_or_none("poetry") is None


def test_changing_a_skill_saves_on_the_version_shown(admin_client_, python):
    response = admin_client_.post(
        PYTHON, skill_form(name="Python 3", _version="1", tags="language")
    )

    assert response.status_code == 302
    stored = Skill.get("python")
    assert (stored.name, stored.version) == ("Python 3", 2)


def test_a_stale_save_is_rejected_with_the_current_values_and_nothing_overwritten(
    admin_client_, python
):
    python.name = "Python (renamed meanwhile)"
    python.save()  # version 2: the form below still shows version 1

    response = admin_client_.post(PYTHON, skill_form(name="Mine", _version="1", tags="language"))

    page = response.content.decode()
    assert response.status_code == 200
    assert "Someone else changed or deleted the skill “python” since you opened it." in page
    assert "Nothing was saved." in page
    assert 'id="stale-values"' in page and "Python (renamed meanwhile)" in page
    stored = Skill.get("python")
    assert (stored.name, stored.version) == ("Python (renamed meanwhile)", 2)
    assert AdminLog.history(stored) == []


@ON_MOTO
def test_the_key_cannot_be_changed_after_adding(admin_client_, python):
    page = admin_client_.get(PYTHON).content.decode()
    admin_client_.post(PYTHON, skill_form(skill_id="snake", name="Py", _version="1", tags=""))

    assert 'name="skill_id"' not in page
    assert Skill.get_or_none("snake") is None
    assert Skill.get("python").name == "Py"


@ON_MOTO
@pytest.mark.parametrize(
    ("button", "location"),
    [
        ("_continue", "/admin/catalog/skill/go/change/"),
        ("_addanother", "/admin/catalog/skill/add/"),
        ("_save", "/admin/catalog/skill/"),
    ],
)
def test_each_save_button_goes_where_djangos_does(admin_client_, dynamo, button, location):
    response = admin_client_.post(ADD, {**skill_form(), button: "1"})

    assert response["Location"] == location


def test_a_users_change_page_shows_its_skills_and_stats_in_at_most_three_calls(
    admin_client_, alice
):
    response = admin_client_.get("/admin/users/user/alice/change/")

    page = response.content.decode()
    assert calls(response) <= 3
    assert 'name="userskill-0-proficiency"' in page and 'value="6"' in page
    # Totals are the study history's sums: shown, never an input.
    assert 'name="userstats-0-xp"' not in page and "120" in page
    assert f"{calls(response)} DynamoDB calls" in page


def test_the_user_page_edits_its_skills_and_stats(admin_client_, alice, go):
    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "userskill-0-proficiency": "Advanced",
                **GO_ADDED,
                "userstats-0-xp": "500",
                "userstats-0-next_reminder_at_0": "2030-01-02",
                "userstats-0-next_reminder_at_1": "03:04:05",
            }
        ),
    )

    assert response.status_code == 302, response.content.decode()
    assert UserSkill.get("alice", "python").proficiency == "Advanced"
    go = UserSkill.get("alice", "go")
    assert (go.skill_name, go.proficiency, go.years) == ("Go", "Beginner", 1)
    stats = UserStats.get("alice")
    # The posted XP is no field of the form: only a recorded session moves a total.
    assert (stats.xp, stats.next_reminder_bucket) == (120, "2030-01-02-03")
    assert User.get("alice").version == 1  # the user's own fields did not change


def test_an_inline_row_can_be_deleted(admin_client_, alice):
    admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(**{"userskill-0-DELETE": "on"})
    )

    assert UserSkill.get_or_none("alice", "python") is None


def test_a_stale_inline_row_is_rejected(admin_client_, alice):
    row = UserSkill.get("alice", "python")
    row.years = 7
    row.save()

    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(**{"userskill-0-proficiency": "Beginner"}),
    )

    assert response.status_code == 200
    assert "Someone else changed or deleted the user skill “alice / python”" in (
        response.content.decode()
    )
    stored = UserSkill.get("alice", "python")
    assert (stored.proficiency, stored.years) == ("Expert", 7)


def test_a_stale_inline_row_leaves_the_user_and_every_other_row_unwritten(admin_client_, alice, go):
    row = UserSkill.get("alice", "python")
    row.years = 7
    row.save()  # version 2: the page below still shows version 1

    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "name": "Alice Changed",
                "userskill-0-proficiency": "Beginner",
                **GO_ADDED,
                "userstats-0-xp": "999",
            }
        ),
    )

    page = response.content.decode()
    assert response.status_code == 200
    assert "Someone else changed or deleted the user skill “alice / python”" in page
    assert "Nothing was saved." in page
    assert "Currently stored: User skill alice / python" in page
    assert '<th scope="row">Years</th><td>7</td>' in page
    user = User.get("alice")
    assert (user.name, user.version) == ("Alice Liddell", 1)
    assert UserSkill.get("alice", "python").proficiency == "Expert"
    assert UserSkill.get_or_none("alice", "go") is None
    assert (UserStats.get("alice").xp, UserStats.get("alice").version) == (120, 1)
    assert AdminLog.history(user) == []


def test_a_row_added_meanwhile_does_not_take_the_edit_of_the_row_shown(admin_client_, alice):
    Skill("c-sharp", name="C#", category="Programming").save()
    UserSkill.for_catalog("alice", Skill.get("c-sharp"), proficiency="Expert", years=2).save()

    response = admin_client_.post(  # the page showed python alone, as row 0
        "/admin/users/user/alice/change/",
        alice_change_post(**{"userskill-0-proficiency": "Beginner"}),
    )

    assert response.status_code == 302, response.content.decode()
    assert UserSkill.get("alice", "python").proficiency == "Beginner"
    c_sharp = UserSkill.get("alice", "c-sharp")
    assert (c_sharp.proficiency, c_sharp.version) == ("Expert", 1)


def test_a_row_deleted_meanwhile_is_stale_and_not_written_back(admin_client_, alice):
    UserSkill.get("alice", "python").delete()

    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(**{"name": "Alice Changed", "userskill-0-proficiency": "Beginner"}),
    )

    page = response.content.decode()
    assert "Someone else changed or deleted the user skill “alice / python”" in page
    assert "The user skill has been deleted." in page
    assert UserSkill.get_or_none("alice", "python") is None
    assert User.get("alice").name == "Alice Liddell"


def test_a_new_row_whose_key_is_taken_meanwhile_writes_nothing(admin_client_, alice, go):
    UserSkill.for_catalog("alice", go, proficiency="Expert", years=9).save()

    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(name="Alice Changed", **GO_ADDED),
    )

    page = response.content.decode()
    assert "Alice Liddell already has the skill Go." in page
    assert "Currently stored: User skill alice / go" in page
    assert User.get("alice").name == "Alice Liddell"
    assert UserSkill.get("alice", "go").proficiency == "Expert"


def test_saving_the_user_with_several_rows_stores_all_in_one_transaction(admin_client_, alice, go):
    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "name": "Alice Changed",
                "userskill-0-years": "8",
                **GO_ADDED,
                "userstats-0-next_reminder_at_0": "2030-01-02",
                "userstats-0-next_reminder_at_1": "03:04:05",
            }
        ),
    )

    assert response.status_code == 302, response.content.decode()
    meter = response.wsgi_request.dynamo_meter
    assert meter.count_of("TransactWriteItems") == 1
    assert meter.count_of("DeleteItem") == 0
    assert meter.count_of("UpdateItem") == 0  # the stats' own put carried the new name
    assert meter.count_of("PutItem") == 0  # the history entries went in the transaction
    assert UserStats.get("alice").name == "Alice Changed"
    user = User.get("alice")
    assert (user.name, user.version) == ("Alice Changed", 2)
    python_row = UserSkill.get("alice", "python")
    assert (python_row.years, python_row.version) == (8, 2)
    go = UserSkill.get("alice", "go")
    assert (go.skill_name, go.proficiency, go.version) == ("Go", "Beginner", 1)
    stats = UserStats.get("alice")
    # The name copied in after the rename keeps the version: nobody edited the stats.
    assert (stats.next_reminder_bucket, stats.version, stats.leaderboard_partition) == (
        "2030-01-02-03",
        2,
        "ALL",
    )
    assert [e.action for e in AdminLog.history(user)] == ["change"]
    assert [e.action for e in AdminLog.history(python_row)] == ["change"]
    assert [e.action for e in AdminLog.history(go)] == ["add"]
    assert [e.action for e in AdminLog.history(stats)] == ["change"]


def test_a_save_of_more_than_50_items_and_their_entries_is_refused_and_writes_nothing(
    admin_client_, alice
):
    rows = {
        "userskill-TOTAL_FORMS": "52",
        **{f"userskill-{n}-skill_id": f"skill-{n:03d}" for n in range(1, 52)},
        **{f"userskill-{n}-proficiency": "Beginner" for n in range(1, 52)},
        **{f"userskill-{n}-years": "1" for n in range(1, 52)},
    }

    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(name="Alice Changed", **rows)
    )

    page = response.content.decode()
    assert "This page would write 52 items, but DynamoDB writes at most 50 together" in page
    assert User.get("alice").name == "Alice Liddell"
    assert [row.skill_id for row in UserSkill.query("alice")] == ["python"]


@ON_MOTO
def test_two_rows_with_one_key_are_refused_before_writing(admin_client_, alice):
    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(
            **{
                "userskill-0-DELETE": "on",
                "userskill-1-skill_id": "python",
                "userskill-1-proficiency": "Beginner",
                "userskill-1-years": "1",
            }
        ),
    )

    assert "The user skill alice / python is on this page twice" in response.content.decode()
    assert UserSkill.get("alice", "python").proficiency == "Expert"


@ON_MOTO
def test_a_composite_key_round_trips_through_the_url(admin_client_, dynamo):
    Skill("c-sharp", name="C#", category="Programming").save()
    User("o.brien_x", name="Orla O'Brien", email="orla@example.com").save()
    UserSkill.for_catalog("o.brien_x", Skill.get("c-sharp"), proficiency="Expert", years=2).save()
    listing = admin_client_.get("/admin/users/userskill/").content.decode()

    assert 'href="/admin/users/userskill/o.brien_5Fx,c-sharp/change/"' in listing
    page = admin_client_.get("/admin/users/userskill/o.brien_5Fx,c-sharp/change/")
    assert page.status_code == 200
    assert "o.brien_x / c-sharp" in page.content.decode()


@ON_MOTO
def test_an_unknown_key_redirects_with_a_message(admin_client_, dynamo):
    response = admin_client_.get("/admin/catalog/skill/nope/change/", follow=True)

    assert "Skill with ID “nope” doesn’t exist. Perhaps it was deleted?" in html.unescape(  # noqa: RUF001
        response.content.decode()
    )


def test_the_raw_view_shows_the_item_as_dynamodb_json(admin_client_, python):
    response = admin_client_.get("/admin/catalog/skill/python/raw/")

    text = response.content.decode()
    raw = text[text.index('<pre id="raw-item">') + 19 : text.index("</pre>")]
    stored = json.loads(raw.replace("&quot;", '"'))
    assert stored["skill_id"] == {"S": "python"}
    assert stored["tags"] == {"SS": ["language"]}
    assert stored["version"] == {"N": "1"}


@ON_MOTO
@pytest.mark.parametrize("suffix", ["change/", "history/", "raw/"])
def test_html_in_stored_values_is_escaped_on_every_item_page(admin_client_, dynamo, suffix):
    evil = "<img src=x onerror=alert(1)>"
    Skill("xss", name=evil, category="Other", description=evil).save()
    admin_client_.post(
        "/admin/catalog/skill/xss/change/",
        skill_form(
            skill_id="xss", name=evil + "!", category="Other", description=evil, _version="1"
        ),
    )

    page = admin_client_.get(f"/admin/catalog/skill/xss/{suffix}").content.decode()

    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page
    delete_page = admin_client_.get("/admin/catalog/skill/xss/delete/").content.decode()
    assert "<img src=x" not in delete_page


def test_adding_a_user_skill_copies_the_catalog_name_or_names_a_missing_skill(
    admin_client_, python
):
    User("bob", name="Bob", email="bob@example.com").save()
    form = {"username": "bob", "proficiency": "Advanced", "years": "2", "notes": ""}
    missing = admin_client_.post("/admin/users/userskill/add/", {**form, "skill_id": "cobol"})
    added = admin_client_.post("/admin/users/userskill/add/", {**form, "skill_id": "python"})

    assert "No catalog skill &#x27;cobol&#x27;." in missing.content.decode()
    assert UserSkill.get_or_none("bob", "cobol") is None
    assert added.status_code == 302
    stored = UserSkill.get("bob", "python")
    assert (stored.skill_name, stored.category, stored.version) == ("Python", "Programming", 1)


def test_the_change_page_reads_the_learner_and_their_stats_in_one_call_then_their_skills(
    admin_client_, alice
):
    response = admin_client_.get("/admin/users/user/alice/change/")

    assert response.status_code == 200
    meter = response.wsgi_request.dynamo_meter
    # The learner and their stats (keyed by the learner) in one BatchGetItem, then the skills'
    # Query: two calls, one after the other, on the request's thread.
    assert [call.operation for call in meter.calls] == ["Query", "BatchGetItem"]


def test_a_save_reads_the_learner_and_the_rows_its_page_showed_in_one_call(
    admin_client_, alice, go
):
    UserSkill.for_catalog("alice", go, proficiency="Expert", years=1).save()

    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(email="alice@wonderland.example")
    )

    assert response.status_code == 302, response.content.decode()
    meter = response.wsgi_request.dynamo_meter
    # The learner search's changed words (learner-words) go in the save's transaction.
    operations = [call.operation for call in meter.calls]
    assert operations == ["BatchGetItem", "TransactWriteItems"]
    assert User.get("alice").email == "alice@wonderland.example"
    # The row added meanwhile, which the page did not show, is neither read nor touched.
    assert UserSkill.get("alice", "go").version == 1


def test_a_save_reads_no_row_of_another_learner_whose_key_was_posted(admin_client_, alice, python):
    User("bob", name="Bob", email="bob@example.com").save()
    UserSkill.for_catalog("bob", python, proficiency="Beginner", years=1).save()
    forged = {"userskill-0-_key": "bob,python", "userskill-0-proficiency": "Expert"}
    too_long = {"userskill-1-_key": "alice," + "x" * 3000, "userskill-INITIAL_FORMS": "2"}

    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(**forged, **too_long)
    )

    assert response.status_code in (200, 302)
    assert response.wsgi_request.dynamo_meter.calls[0].operation == "BatchGetItem"
    bob_python = UserSkill.get("bob", "python")
    assert (bob_python.proficiency, bob_python.version) == ("Beginner", 1)


def test_a_rename_copies_the_name_onto_the_stats_in_the_saves_transaction(admin_client_, alice):
    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(name="Alice P")
    )

    assert response.status_code == 302, response.content.decode()
    meter = response.wsgi_request.dynamo_meter
    operations = [call.operation for call in meter.calls]
    assert operations == ["BatchGetItem", "TransactWriteItems"]  # the words in it too
    stats = UserStats.get("alice")
    assert (stats.name, stats.version) == ("Alice P", 1)  # copied, its version kept
    assert User.get("alice").name == "Alice P"
    assert {"alice", "p"} <= search_words("alice") and "liddell" not in search_words("alice")


def search_words(username: str) -> set[str]:
    return {e.entry.split("#")[0] for e in LearnerWord.scan() if e.owner == username}


def test_a_rename_refused_as_stale_moves_no_search_word(admin_client_, alice):
    meanwhile = User.get("alice")
    meanwhile.email = "alice@elsewhere.example"
    meanwhile.save()

    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(name="Alice Pleasance")
    )

    assert response.status_code == 200
    assert "Nothing was saved" in response.content.decode()
    assert User.get("alice").name == "Alice Liddell"
    assert "liddell" in search_words("alice") and "pleasance" not in search_words("alice")


def test_search_words_with_no_room_in_the_transaction_follow_it(admin_client_, alice, monkeypatch):
    # The learner and their history entry, and the name copied onto their stats, fill it.
    monkeypatch.setattr("dynamo_admin.writes.TRANSACTION_LIMIT", 3)

    response = admin_client_.post(
        "/admin/users/user/alice/change/", alice_change_post(name="Alice Pleasance")
    )

    assert response.status_code == 302, response.content.decode()
    operations = [call.operation for call in response.wsgi_request.dynamo_meter.calls]
    assert operations == ["BatchGetItem", "TransactWriteItems", "BatchWriteItem"]
    assert "pleasance" in search_words("alice") and "liddell" not in search_words("alice")


def test_a_rename_of_a_learner_without_stats_copies_nothing(admin_client_, alice):
    UserStats.get("alice").delete()
    data = alice_change_post(name="Alice P", **{"userstats-INITIAL_FORMS": "0"})
    data = {k: v for k, v in data.items() if not k.startswith("userstats-0-")}
    data["userstats-TOTAL_FORMS"] = "0"

    response = admin_client_.post("/admin/users/user/alice/change/", data)

    assert response.status_code == 302, response.content.decode()
    assert User.get("alice").name == "Alice P"
    assert UserStats.get_or_none("alice") is None


def test_a_stale_save_after_a_rename_says_each_refusal_once(admin_client_, alice):
    renamed = alice_change_post(name="Alice Pleasance")
    assert admin_client_.post("/admin/users/user/alice/change/", renamed).status_code == 302

    # A second tab, opened before the rename, edits the email and the stats.
    response = admin_client_.post(
        "/admin/users/user/alice/change/",
        alice_change_post(email="alice@wonderland.example", **{"userstats-0-xp": "130"}),
    )

    page = response.content.decode()
    assert page.count("Someone else changed or deleted the learner “alice”") == 1
    # The stats moved only by the name copied onto them: they are not said to be stale.
    assert "changed or deleted the user stats" not in page
    assert (User.get("alice").email, UserStats.get("alice").xp) == ("alice@example.com", 120)


def test_the_name_copied_onto_the_stats_does_not_make_an_older_page_refuse(admin_client_, alice):
    shown = form_fields(admin_client_, "/admin/stats/userstats/alice/change/")
    alice.name = "Alice Pleasance"
    alice.save()  # the receiver copies the name onto the stats

    response = admin_client_.post(
        "/admin/stats/userstats/alice/change/", {**shown, "reminder_hour": "7"}
    )

    assert response.status_code == 302, response.content.decode()
    stats = UserStats.get("alice")
    assert (stats.reminder_hour, stats.name) == (7, "Alice Pleasance")


@ON_MOTO
def test_an_unusable_password_reads_no_password_set_as_in_django(admin_client_, alice):
    alice.set_password(None)  # unusable, as every demo learner's
    alice.save()

    change = admin_client_.get("/admin/users/user/alice/change/").content.decode()

    # The Stored item page shows what is stored instead (tests/test_admin_stored_item.py).
    assert "No password set." in change
    assert "Invalid password format" not in change
