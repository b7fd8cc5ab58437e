"""`/api/learners/{username}/skills`: a learner's skills, copied from the catalog, paged."""

from __future__ import annotations

from datetime import timedelta

from catalog.models import Skill
from dynamo.models import utcnow
from dynamo_admin.models import AdminLog
from tests.admin_fixtures import calls
from tests.api_fixtures import problem_of
from users.models import User, UserSkill


def hold(username: str, skill_ids: list[str]) -> None:
    """Give a learner skills added one minute apart an hour ago, in the order given."""
    start = utcnow() - timedelta(hours=1)
    for minute, skill_id in enumerate(skill_ids):
        Skill(skill_id, name=skill_id.title(), category="Data").save()
        held = UserSkill(username, skill_id, proficiency="Beginner", years=1)
        held.created_at = start + timedelta(minutes=minute)
        held.save()


def test_it_lists_a_learners_skills_oldest_first_page_by_page(dynamo, alice, api_client):
    hold("alice", ["sql", "spark", "pandas", "dbt"])
    seen, url = [], "/api/learners/alice/skills?limit=2"
    while url:
        response = api_client.get(url)
        assert response.status_code == 200 and calls(response) == 2  # the learner, one Query
        seen += [s["skill_id"] for s in response.json()["results"]]
        link = response.get("Link")
        url = link[1 : link.index(">")] if link else None
    assert seen == ["sql", "spark", "pandas", "dbt", "python"]


def test_it_lists_newest_first_on_request(dynamo, alice, api_client):
    hold("alice", ["sql", "spark"])
    response = api_client.get("/api/learners/alice/skills?newest_first=true")
    assert [s["skill_id"] for s in response.json()["results"]] == ["python", "spark", "sql"]


def test_a_cursor_only_fits_the_listing_it_came_from(dynamo, alice, api_client):
    hold("alice", ["sql", "spark"])
    cursor = api_client.get("/api/learners/alice/skills?limit=1").json()["next"]
    response = api_client.get(f"/api/learners/alice/skills?newest_first=true&cursor={cursor}")
    assert response.status_code == 400
    assert "another listing" in problem_of(response)["detail"]


def test_the_skills_of_an_unknown_learner_are_a_404(dynamo, api_client):
    assert api_client.get("/api/learners/nobody/skills").status_code == 404


def test_adding_a_skill_copies_its_name_and_category_from_the_catalog(dynamo, alice, api_client):
    Skill("aws-lambda", name="AWS Lambda", category="Cloud").save()
    response = api_client.post(
        "/api/learners/alice/skills",
        {"skill_id": "aws-lambda", "proficiency": "Advanced", "years": 3},
    )
    assert response.status_code == 201
    assert response.json()["skill_name"] == "AWS Lambda"
    held = UserSkill.get("alice", "aws-lambda")
    assert (held.skill_name, held.category, held.years) == ("AWS Lambda", "Cloud", 3)
    [entry] = AdminLog.history(held)
    assert (entry.action, entry.user) == ("add", "eve")


def test_adding_a_skill_missing_from_the_catalog_names_the_field(dynamo, alice, api_client):
    response = api_client.post(
        "/api/learners/alice/skills", {"skill_id": "cobol", "proficiency": "Expert"}
    )
    assert response.status_code == 422
    assert problem_of(response)["errors"] == [
        {"field": "skill_id", "message": "No catalog skill 'cobol'."}
    ]
    assert UserSkill.get_or_none("alice", "cobol") is None


def test_adding_a_skill_held_already_is_a_conflict(dynamo, alice, api_client):
    response = api_client.post(
        "/api/learners/alice/skills", {"skill_id": "python", "proficiency": "Beginner"}
    )
    assert response.status_code == 409
    assert problem_of(response)["detail"] == "Alice Liddell already has the skill Python."
    assert UserSkill.get("alice", "python").proficiency == "Expert"


def test_a_soft_deleted_learner_gets_no_new_skill(dynamo, alice, api_client):
    User.get("alice").soft_delete()
    Skill("sql", name="SQL", category="Database").save()
    response = api_client.post(
        "/api/learners/alice/skills", {"skill_id": "sql", "proficiency": "Beginner"}
    )
    assert response.status_code == 409
    assert UserSkill.get_or_none("alice", "sql") is None


def test_it_updates_a_held_skill_on_its_version(dynamo, alice, api_client):
    got = api_client.get("/api/learners/alice/skills/python")
    assert got.status_code == 200 and got["ETag"] == '"1"'
    bad = api_client.patch(
        "/api/learners/alice/skills/python", {"years": 99}, **{"If-Match": got["ETag"]}
    )
    assert bad.status_code == 422
    assert problem_of(bad)["errors"][0]["field"] == "years"
    response = api_client.put(
        "/api/learners/alice/skills/python",
        {"proficiency": "Advanced", "years": 7, "notes": "Django"},
        **{"If-Match": got["ETag"]},
    )
    assert response.status_code == 200 and response["ETag"] == '"2"'
    held = UserSkill.get("alice", "python")
    assert (held.proficiency, held.years, held.notes) == ("Advanced", 7, "Django")
    stale = api_client.patch(
        "/api/learners/alice/skills/python", {"years": 1}, **{"If-Match": got["ETag"]}
    )
    assert stale.status_code == 412
    assert UserSkill.get("alice", "python").years == 7


def test_the_catalog_copies_cannot_be_edited_through_a_learner(dynamo, alice, api_client):
    response = api_client.patch(
        "/api/learners/alice/skills/python", {"skill_name": "Snake"}, **{"If-Match": "*"}
    )
    assert response.status_code == 422
    assert UserSkill.get("alice", "python").skill_name == "Python"


def test_it_removes_a_held_skill_and_logs_it(dynamo, alice, api_client):
    assert api_client.delete("/api/learners/alice/skills/python").status_code == 428  # no If-Match
    response = api_client.delete("/api/learners/alice/skills/python", **{"If-Match": '"1"'})
    assert response.status_code == 204
    assert UserSkill.get_or_none("alice", "python") is None
    [entry] = AdminLog.history(UserSkill("alice", "python"))
    assert (entry.action, entry.user) == ("delete", "eve")
    assert api_client.get("/api/learners/alice/skills/python").status_code == 404


def test_a_reader_may_list_but_not_add_skills(dynamo, alice, reader_client):
    assert reader_client.get("/api/learners/alice/skills").status_code == 200
    response = reader_client.post(
        "/api/learners/alice/skills", {"skill_id": "python", "proficiency": "Beginner"}
    )
    assert response.status_code == 403
