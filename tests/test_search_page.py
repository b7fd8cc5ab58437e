"""The talent search page: one Query on gsi_skill_level per page, cursor pagination."""

from __future__ import annotations

import io
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.management import call_command

from catalog.choices import forget_skill_names, skill_names
from catalog.models import Skill
from dynamo.batch import batch_put
from tests.admin_fixtures import calls
from users import views
from users.models import User, UserSkill

# The form, its words and its cursors' signatures are the view's own: those tests run on moto
# alone (ON_MOTO); the Queries behind a search, their order and their paging run on both engines.
ON_MOTO = pytest.mark.engines("moto")

URL = "/skills/search/"


ROWS = [
    ("alice", "python", "Expert", 9),
    ("bob", "python", "Expert", 5),
    ("carol", "python", "Expert", 4),
    ("dave", "python", "Advanced", 7),
    ("erin", "python", "Beginner", 1),
    ("gina", "python", "Intermediate", 12),
    ("hugo", "python", "Advanced", 2),
    ("ivan", "python", "Advanced", 3),
    ("frank", "go", "Expert", 8),
]


@pytest.fixture
def holders(dynamo):
    """Python holders at every level with various years, and one Go expert."""
    skills = {
        "python": Skill("python", name="Python", category="Programming"),
        "go": Skill("go", name="Go", category="Programming"),
    }
    batch_put(Skill, skills.values())
    learners = {
        username: User(username, name=username.title(), email=f"{username}@example.com")
        for username, *_ in ROWS
    }
    batch_put(User, learners.values())
    batch_put(
        UserSkill,
        [
            UserSkill.for_catalog(learners[u], skills[s], proficiency=p, years=y)
            for u, s, p, y in ROWS
        ],
    )
    # The form offers the catalog's names from Django's cache (one read when cold, see
    # test_the_form_offers_the_catalogs_skills): the figures below count the search.
    forget_skill_names()
    skill_names()


def next_cursor(response) -> str:
    return parse_qs(urlsplit(response.context["next_url"]).query)["cursor"][0]


def usernames(response) -> list[str]:
    return [holder.username for holder in response.context["holders"]]


def test_it_finds_experts_with_enough_years_in_one_query_and_their_names_in_one_more(
    holders, client
):
    response = client.get(URL, {"skill": "Python", "level": "Expert", "min_years": 5})

    assert response.status_code == 200
    assert usernames(response) == ["alice", "bob"]
    assert calls(response) == 2  # the Query, then one BatchGetItem for the names
    assert response.wsgi_request.dynamo_meter.count_of("BatchGetItem") == 1
    html = response.content.decode()
    assert '<span class="ts-name">Alice</span> <a href="/learners/alice/">@alice</a>' in html
    assert "Expert" in html


@ON_MOTO
def test_the_form_offers_the_catalogs_skills_read_once_then_cached(holders, client):
    forget_skill_names()
    cold = client.get(URL)
    warm = client.get(URL)

    assert calls(cold) == 1 and calls(warm) == 0
    html = warm.content.decode()
    assert 'list="catalog-skills"' in html
    assert '<option value="Go"></option><option value="Python"></option>' in html
    Skill("rust", name="Rust", category="Programming").save()  # a catalog write forgets it
    assert '<option value="Rust">' in client.get(URL).content.decode()


def test_without_years_it_lists_every_holder_at_the_level(holders, client):
    response = client.get(URL, {"skill": "Python", "level": "Expert"})

    assert usernames(response) == ["alice", "bob", "carol"]


def test_without_a_level_it_lists_every_holder_best_level_first_then_most_years(holders, client):
    response = client.get(URL, {"skill": "Python"})

    # Expert, Advanced, Intermediate, Beginner: not the alphabetical order of the words.
    assert usernames(response) == ["alice", "bob", "carol", "dave", "ivan", "hugo", "gina", "erin"]
    assert calls(response) == 2  # one Query, one BatchGetItem for the names


def test_at_least_a_level_lists_that_level_and_better_with_enough_years_best_first(holders, client):
    response = client.get(URL, {"skill": "Python", "min_level": "Advanced", "min_years": 3})

    assert response.status_code == 200
    assert usernames(response) == ["alice", "bob", "carol", "dave", "ivan"]
    assert calls(response) == 3  # one Query per level, one BatchGetItem for the names
    assert b"Advanced</strong> level or better" in response.content


def test_at_least_the_lowest_level_lists_every_holder(holders, client):
    response = client.get(URL, {"skill": "Python", "min_level": "Beginner"})

    assert usernames(response) == ["alice", "bob", "carol", "dave", "ivan", "hugo", "gina", "erin"]


def test_a_level_still_means_exactly_that_level(holders, client):
    response = client.get(URL, {"skill": "Python", "level": "Advanced", "min_years": 3})

    assert usernames(response) == ["dave", "ivan"]


def test_min_years_without_a_level_means_any_level(holders, client):
    response = client.get(URL, {"skill": "Python", "min_years": 5})

    assert usernames(response) == ["alice", "bob", "dave", "gina"]


@pytest.mark.parametrize("page_size", [1, 2, 3])
def test_the_merged_listing_pages_through_one_signed_cursor_without_gaps_or_repeats(
    holders, client, monkeypatch, page_size
):
    monkeypatch.setattr(views, "PAGE_SIZE", page_size)
    seen, url = [], URL + "?skill=Python&min_level=Intermediate&min_years=2"
    while url:
        response = client.get(url)
        assert response.status_code == 200
        assert calls(response) <= 4
        seen += usernames(response)
        next_url = response.context["next_url"]
        url = URL + next_url if next_url else ""

    assert seen == ["alice", "bob", "carol", "dave", "ivan", "hugo", "gina"]


@ON_MOTO
def test_an_empty_visit_shows_the_form_without_calling_dynamodb(holders, client):
    response = client.get(URL)

    assert response.status_code == 200
    assert response.context["holders"] is None
    assert calls(response) == 0
    assert b'name="skill"' in response.content


def test_pages_follow_each_other_through_signed_cursors(holders, client, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    seen, url = [], URL + "?skill=Python"
    while url:
        response = client.get(url)
        assert response.status_code == 200
        # DynamoDB Local may end with an empty page: no names to read then.
        assert calls(response) == (2 if usernames(response) else 1)
        seen += usernames(response)
        next_url = response.context["next_url"]
        url = URL + next_url if next_url else ""

    assert seen == ["alice", "bob", "carol", "dave", "ivan", "hugo", "gina", "erin"]


@ON_MOTO
def test_a_next_link_carries_rel_next(holders, client, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)

    response = client.get(URL, {"skill": "Python"})

    assert b'rel="next"' in response.content
    assert "cursor=" in response.context["next_url"]


@ON_MOTO
def test_a_tampered_cursor_is_a_400_page(holders, client, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    cursor = next_cursor(client.get(URL, {"skill": "Python"}))

    response = client.get(URL, {"skill": "Python", "cursor": cursor[:-3] + "abc"})

    assert response.status_code == 400
    assert b"invalid or has been tampered with" in response.content
    assert calls(response) == 0


@ON_MOTO
def test_a_cursor_from_another_search_is_a_400_page(holders, client, monkeypatch):
    monkeypatch.setattr(views, "PAGE_SIZE", 2)
    cursor = next_cursor(client.get(URL, {"skill": "Python"}))

    response = client.get(URL, {"skill": "Go", "cursor": cursor})

    assert response.status_code == 400
    assert b"belongs to another listing" in response.content


@ON_MOTO
@pytest.mark.parametrize(
    ("params", "field", "message"),
    [
        ({"skill": "Python", "level": "Guru"}, "level", "Select a valid choice"),
        ({"skill": "Python", "level": "Expert", "min_years": "-1"}, "min_years", "0"),
        ({"skill": "Python", "level": "Expert", "min_years": "five"}, "min_years", "whole"),
        ({"skill": "Python", "level": "Expert", "min_years": "2.5"}, "min_years", "whole"),
        ({"skill": "Python", "level": "Expert", "min_level": "Advanced"}, "min_level", "not both"),
        ({"skill": "Python", "min_level": "Guru"}, "min_level", "Select a valid choice"),
        ({"skill": "Python", "min_years": "61"}, "min_years", "60"),
        ({"skill": "", "level": "Expert"}, "skill", "required"),
    ],
)
def test_bad_input_shows_the_form_with_an_error_and_status_400(
    holders, client, params, field, message
):
    response = client.get(URL, params)

    assert response.status_code == 400
    assert message in " ".join(response.context["form"].errors[field])
    assert b"ts-error" in response.content
    assert calls(response) == 0


@ON_MOTO
def test_html_in_stored_values_is_escaped(dynamo, client):
    sneaky = Skill("sneaky", name="<script>alert(1)</script>", category="Other")
    batch_put(Skill, [sneaky])
    batch_put(User, [User("mallory", name="Mallory", email="mallory@example.com")])
    batch_put(UserSkill, [UserSkill.for_catalog("mallory", sneaky, proficiency="Expert")])

    response = client.get(URL, {"skill": sneaky.name})

    assert usernames(response) == ["mallory"]
    assert b"<script>alert(1)</script>" not in response.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in response.content


@ON_MOTO
def test_an_unknown_skill_finds_nobody(holders, client):
    response = client.get(URL, {"skill": "COBOL"})

    assert response.status_code == 200
    assert usernames(response) == []
    assert b"Nobody holds" in response.content


@ON_MOTO
@pytest.mark.parametrize("typed", ["python", "PYTHON", "  Python ", "pýthon"])
def test_it_finds_a_skill_whatever_the_case_accents_or_spaces_and_shows_the_catalogs_name(
    holders, client, typed
):
    exact = client.get(URL, {"skill": "Python", "level": "Expert"})
    response = client.get(URL, {"skill": typed, "level": "Expert"})

    assert usernames(response) == usernames(exact) == ["alice", "bob", "carol"]
    assert calls(response) == 2  # the cached catalog names resolve it: no read for the name
    assert "of <strong>Python</strong>" in response.content.decode()


@ON_MOTO
def test_a_near_miss_suggests_the_catalogs_name_as_a_link(holders, client):
    response = client.get(URL, {"skill": "Pythn", "level": "Expert"})

    assert usernames(response) == []
    html = response.content.decode()
    assert 'Did you mean <a href="?skill=Python&amp;level=Expert">Python</a>?' in html
    # The suggestion reads nothing but the cached names: the name's key, then the search.
    assert response.wsgi_request.dynamo_meter.count_of("Scan") == 0
    followed = client.get(URL, {"skill": "Python", "level": "Expert"})
    assert usernames(followed) == ["alice", "bob", "carol"]


@ON_MOTO
def test_a_skill_added_since_the_names_were_cached_is_found_by_its_key(holders, client):
    rust = Skill("rust", name="Rust", category="Programming")
    batch_put(Skill, [rust])  # no catalog write hook: the cached list does not know it
    batch_put(
        UserSkill,
        [UserSkill.for_catalog(User.get("frank"), rust, proficiency="Advanced", years=2)],
    )

    response = client.get(URL, {"skill": "rust"})

    assert usernames(response) == ["frank"]
    assert "of <strong>Rust</strong>" in response.content.decode()
    assert response.wsgi_request.dynamo_meter.count_of("Scan") == 0


@ON_MOTO
@pytest.mark.parametrize("params", [{"level": "expert"}, {"level": "EXPERT"}])
def test_a_level_is_taken_in_any_case(holders, client, params):
    response = client.get(URL, {"skill": "Python", **params})

    assert response.status_code == 200
    assert usernames(response) == ["alice", "bob", "carol"]


@ON_MOTO
def test_a_minimum_level_is_taken_in_any_case(holders, client):
    response = client.get(URL, {"skill": "Python", "min_level": "advanced", "min_years": 5})

    assert usernames(response) == ["alice", "bob", "dave"]


@ON_MOTO
def test_the_start_of_one_skills_name_finds_its_holders(holders, client):
    response = client.get(URL, {"skill": "pyth", "level": "Expert"})

    assert usernames(response) == ["alice", "bob", "carol"]
    assert "of <strong>Python</strong>" in response.content.decode()


@ON_MOTO
def test_the_start_of_several_names_offers_each_of_them(holders, client):
    Skill("pytorch", name="PyTorch", category="Data").save()

    response = client.get(URL, {"skill": "py"})

    assert usernames(response) == []
    html = response.content.decode()
    assert ">Python</a>" in html and ">PyTorch</a>" in html


def test_a_renamed_skill_is_still_found_by_its_former_name(holders, client):
    skill = Skill.get("python")
    skill.name = "Python 3"
    skill.save()
    call_command("sync_user_skills", "--pending", stdout=io.StringIO())

    response = client.get(URL, {"skill": "python", "level": "Expert"})

    assert Skill.get("python").former_names == {"Python"}
    assert usernames(response) == ["alice", "bob", "carol"]
    assert "of <strong>Python 3</strong>" in response.content.decode()
