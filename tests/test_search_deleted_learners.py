"""A soft-deleted learner leaves the talent search on every write path; a restore undoes it."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

from catalog.models import Skill
from dynamo.batch import batch_put
from users.models import User, UserSkill
from users.search import TalentSearch, search

URL = "/skills/search/"


def learner(username: str, python: Skill, years: int = 5) -> User:
    user = User(username, name=username.title(), email=f"{username}@example.com")
    user.save()
    UserSkill.for_catalog(user, python, proficiency="Expert", years=years).save()
    return user


def found(**criteria) -> list[str]:
    page = search(TalentSearch("Python", **criteria), limit=50)
    return [holder.username for holder in page.holders]


def test_a_soft_deleted_learner_leaves_every_search_and_keeps_their_skills(python):
    learner("alice", python)
    bob = learner("bob", python, years=3)

    bob.soft_delete()

    assert found() == ["alice"]
    assert found(min_level="Advanced", min_years=1) == ["alice"]
    assert found(level="Expert") == ["alice"]
    kept = UserSkill.get("bob", "python")
    assert (kept.skill_name, kept.proficiency, kept.listed_skill_name) == ("Python", "Expert", None)


def test_a_restored_learner_comes_back_to_the_search(python):
    learner("alice", python)
    bob = learner("bob", python, years=3)
    bob.soft_delete()

    bob.restore()

    assert found() == ["alice", "bob"]
    assert UserSkill.get("bob", "python").listed_skill_name == "Python"


def test_a_skill_saved_while_its_learner_is_deleted_stays_out_of_the_search(python):
    bob = learner("bob", python)
    go = Skill("go", name="Go", category="Programming")
    go.save()
    bob.soft_delete()

    UserSkill("bob", "go", proficiency="Expert", years=2).save()
    edited = UserSkill.get("bob", "python")
    edited.years = 8
    edited.save()

    assert found() == []
    assert list(UserSkill.search("Go")) == []
    bob.restore()
    assert found() == ["bob"] and [h.username for h in UserSkill.search("Go")] == ["bob"]


def test_a_batch_write_for_a_deleted_learner_stays_out_of_the_search(python):
    bob = learner("bob", python)
    bob.soft_delete()

    batch_put(UserSkill, [UserSkill("bob", "python", proficiency="Beginner", years=1)])

    assert found() == []
    assert UserSkill.get("bob", "python").proficiency == "Beginner"


def test_renaming_the_skill_while_a_learner_is_deleted_keeps_them_out(python):
    learner("alice", python)
    learner("bob", python, years=3).soft_delete()

    python.name = "Python 3"
    python.save()
    call_command("sync_user_skills", "--pending", stdout=StringIO())

    assert [h.username for h in UserSkill.search("Python 3")] == ["alice"]
    assert UserSkill.get("bob", "python").skill_name == "Python 3"
    User.get("bob").restore()
    assert [h.username for h in UserSkill.search("Python 3")] == ["alice", "bob"]


def test_soft_deleting_in_the_admin_takes_the_learner_out_of_the_search_page(
    admin_client_, alice, client
):
    response = admin_client_.post(
        "/admin/users/user/alice/soft-delete/", {"_version": User.get("alice").version}
    )

    assert response.status_code == 302, response.content.decode()
    page = client.get(URL, {"skill": "Python"})
    assert page.context["holders"] == []
    assert b"@alice" not in page.content
