"""The learners' search: any word of the name, the email or the username, by prefix, indexed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from tests.admin_fixtures import calls, link, listed
from users.models import LearnerWord, User

LEARNERS = "/admin/users/user/"


@pytest.fixture
def learners(dynamo) -> list[User]:
    """Four learners, two sharing a first name, one with accents."""
    people = [
        User("kofi.mensah", name="Kofi Mensah", email="kofi.m@example.com"),
        User("kofi-a", name="Kofi Annan", email="ka@example.org"),
        User("zoe", name="Zoë Ngô", email="zoe.ngo@example.net"),
        User("yusuf", name="Yusuf Islam", email="cat.stevens@example.com"),
    ]
    for person in people:
        person.save()
    return people


def stored_words(username: str) -> set[str]:
    return {e.entry.split("#")[0] for e in LearnerWord.scan() if e.owner == username}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("kofi", {"kofi.mensah", "kofi-a"}),  # a first name
        ("mens", {"kofi.mensah"}),  # a last name's prefix
        ("ZOE", {"zoe"}),  # case and accents ignored
        ("ngo", {"zoe"}),
        ("cat.st", {"yusuf"}),  # an email's prefix
        ("kofi ann", {"kofi-a"}),  # every term must match
        ("@kofi.mensah", {"kofi.mensah"}),  # as the board shows a username
    ],
)
def test_it_finds_learners_by_a_prefix_of_any_word_in_few_calls(
    admin_client_, learners, query, expected
):
    response = admin_client_.get(LEARNERS, {"q": query})

    assert response.status_code == 200
    assert set(listed(response)) == expected
    assert int(response["X-DynamoDB-Calls"]) <= 3  # GetItem, a Query per term, BatchGetItem


def test_an_exact_username_comes_first(admin_client_, learners):
    User("kofi", name="Someone Else", email="se@example.com").save()

    response = admin_client_.get(LEARNERS, {"q": "kofi"})

    assert listed(response)[0] == "kofi"
    assert set(listed(response)) == {"kofi", "kofi.mensah", "kofi-a"}


def test_an_exact_username_whose_words_match_only_itself_is_read_once(admin_client_, learners):
    response = admin_client_.get(LEARNERS, {"q": "kofi.mensah"})

    assert listed(response) == ["kofi.mensah"]
    # Its GetItem and the word Query, no BatchGetItem: the one owner is the item already read.
    assert calls(response) == 2


def test_a_one_letter_search_is_refused_with_a_message(admin_client_, learners):
    response = admin_client_.get(LEARNERS, {"q": "k"})

    assert response.status_code == 400
    assert "at least 2 letters" in response.content.decode()


def test_the_help_text_says_what_is_searched(admin_client_, learners):
    response = admin_client_.get(LEARNERS)

    assert "beginning of any word of their name, of their email" in response.content.decode()


def test_a_rename_moves_the_words_and_the_old_name_finds_nobody(admin_client_, learners):
    kofi = User.get("kofi-a")
    kofi.name = "Kofi Boateng"
    kofi.save()

    assert "annan" not in stored_words("kofi-a")
    assert "boateng" in stored_words("kofi-a")
    assert listed(admin_client_.get(LEARNERS, {"q": "annan"})) == []
    assert listed(admin_client_.get(LEARNERS, {"q": "boat"})) == ["kofi-a"]


def test_a_changed_email_is_found_and_the_old_one_is_not(admin_client_, learners):
    yusuf = User.get("yusuf")
    yusuf.email = "yusuf@example.com"
    yusuf.save()

    assert listed(admin_client_.get(LEARNERS, {"q": "cat.st"})) == []
    assert listed(admin_client_.get(LEARNERS, {"q": "yusuf@ex"})) == ["yusuf"]


def test_a_soft_deleted_learner_is_still_found_by_staff(admin_client_, learners):
    User.get("zoe").soft_delete()

    assert listed(admin_client_.get(LEARNERS, {"q": "zoe"})) == ["zoe"]


def test_a_hard_delete_takes_the_words_along_unlisted_and_unlogged(admin_client_, learners):
    from dynamo_admin.models import AdminLog

    zoe = User.get("zoe")
    confirmation = admin_client_.get(f"{LEARNERS}zoe/delete/").content.decode()
    assert "search word" not in confirmation

    response = admin_client_.post(f"{LEARNERS}zoe/delete/", {"version": str(zoe.version)})

    assert response.status_code == 302
    assert User.get_or_none("zoe") is None
    assert stored_words("zoe") == set()
    assert not [e for e in AdminLog.scan() if "learnerword" in e.object_key]


def test_pages_of_a_search_show_each_learner_once(admin_client_, dynamo, monkeypatch):
    from users.admin import UserAdmin

    monkeypatch.setattr(UserAdmin, "list_per_page", 4)
    for n in range(10):
        User(f"ama{n:02d}", name=f"Ama Owusu{n:02d}", email=f"a{n}@example.com").save()

    seen, url = [], f"{LEARNERS}?q=owusu"
    while url:
        response = admin_client_.get(url)
        assert calls(response) <= 3
        seen += listed(response)
        url = link(response, "next")

    assert seen == [f"ama{n:02d}" for n in range(10)]  # in word order, each once


def test_the_name_header_reverses_a_search(admin_client_, dynamo):
    for n in range(3):
        User(f"ama{n}", name=f"Ama Owusu{n}", email=f"a{n}@example.com").save()

    response = admin_client_.get(LEARNERS, {"q": "owusu", "o": "-1"})

    assert listed(response) == ["ama2", "ama1", "ama0"]


def test_the_seed_fills_the_words(dynamo):
    call_command("seed", users=5, now="2025-06-01T12:00:00", stdout=StringIO())

    for user in User.scan():
        assert stored_words(user.username) == LearnerWord.words_of(user)


def test_the_purge_deletes_the_words(dynamo, learners):
    from datetime import timedelta

    from dynamo.models import utcnow

    User.get("yusuf").soft_delete(utcnow() - timedelta(days=400))

    call_command("purge_deleted", stdout=StringIO())

    assert User.get_or_none("yusuf") is None
    assert stored_words("yusuf") == set()
    assert stored_words("zoe")  # the others keep theirs


def test_the_backfill_fills_missing_words_and_drops_stale_ones(dynamo, learners):
    from dynamo.batch import batch_delete

    batch_delete(LearnerWord, [e for e in LearnerWord.scan() if e.owner == "zoe"])
    LearnerWord.entries_for("ghost", {"ghost"})[0].save()

    first, second = StringIO(), StringIO()
    call_command("backfill_learner_words", stdout=first)
    call_command("backfill_learner_words", stdout=second)

    assert stored_words("zoe") == LearnerWord.words_of(User.get("zoe"))
    assert stored_words("ghost") == set()
    assert "deleted 1 stale" in first.getvalue()
    assert "Added 0 search words and deleted 0" in second.getvalue()


def test_the_narrowest_term_leads_a_search_of_a_common_first_name(
    admin_client_, dynamo, monkeypatch
):
    from users.admin import UserAdmin

    monkeypatch.setattr(UserAdmin, "list_per_page", 4)
    for n in range(12):
        User(f"ama{n:02d}", name=f"Ama Owusu{n:02d}", email=f"a{n}@example.com").save()
    User("ama.zed", name="Ama Zed", email="z@example.com").save()

    response = admin_client_.get(LEARNERS, {"q": "ama zed"})

    assert listed(response) == ["ama.zed"]  # on the first page, though "ama" is longer
    assert calls(response) <= 3  # a Query per term and one BatchGetItem
