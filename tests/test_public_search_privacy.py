"""Anonymous search finds a learner by name and username, never by email.

Every public URL that takes a name answers a prefix of a learner's email exactly as it
answers text nobody has: the same status and the same body once the typed text is blanked
out, from the same number of DynamoDB calls (so neither the answer nor its time tells them
apart). Staff still find learners by email (tests/test_admin_learner_search.py).
"""

from __future__ import annotations

import json
import string
from urllib.parse import quote

import pytest
from django.utils.html import escape
from hypothesis import HealthCheck, Phase, assume, given, note, settings
from hypothesis import strategies as st

from dynamo.words import search_terms, words_in
from stats.models import METRICS, UserStats
from tests.admin_fixtures import calls
from tests.helpers import clear_caches, totals_for
from users.models import LearnerWord, User

# Every public URL that takes a name or a word, `{}` standing for the typed text.
PUBLIC_URLS = [
    *(f"/leaderboard/?metric={metric}&user={{}}" for metric in METRICS),
    *(f"/leaderboard/?metric={metric}&user={{}}&format=json" for metric in METRICS),
    *(f"/api/leaderboard/{metric}?user={{}}" for metric in METRICS),
    "/learners/{}/",
    "/learners/{}/?format=json",
    "/api/learner-pages/{}",
    "/skills/search/?skill={}",
    "/api/search?skill={}",
]

LETTERS = string.ascii_lowercase + string.digits
NAME_WORDS = st.text(string.ascii_letters + "éöñ", min_size=1, max_size=10)
NAMES = st.lists(NAME_WORDS, min_size=1, max_size=3).map(" ".join)
USERNAMES = st.from_regex(r"[a-z0-9][a-z0-9_.-]{2,20}", fullmatch=True)
LOCAL_PARTS = st.lists(st.text(LETTERS, min_size=1, max_size=8), min_size=1, max_size=3).map(
    ".".join
)
DOMAINS = st.from_regex(r"[a-z]{1,10}\.(com|org|io)", fullmatch=True)


def public_words(user: User) -> set[str]:
    return words_in(user.name) | words_in(user.username)


def starts_no_public_word(text: str, user: User) -> bool:
    """Say whether no term of text starts a word of the learner's name or username."""
    words = public_words(user)
    return not any(word.startswith(term) for term in search_terms(text) for word in words)


def answer(client, url: str, typed: str) -> tuple[int, str, str, int]:
    """Return a response's status, type and body (the typed text blanked out) and its calls."""
    response = client.get(url.format(quote(typed, safe="")))
    body = response.content.decode()
    # Where the pages show it: quoted in a message (HTML or JSON), in the form, in a sentence.
    quoted = repr(typed)
    shown = [escape(quoted), json.dumps(quoted)[1:-1], f'"{escape(typed)}"', f">{escape(typed)}<"]
    for form in shown:
        body = body.replace(form, "…")
    return response.status_code, response["Content-Type"], body, calls(response)


@pytest.fixture
def board(dynamo, settings):
    """No cached board: each request reads the engine, so its calls can be compared."""
    settings.LEADERBOARD_CACHE_SECONDS = 0


def test_a_name_prefix_and_a_username_prefix_still_find_the_learner(client, board):
    User("zq.agent", name="Kofi Mensah", email="secret.spy@hidden.example").save()
    UserStats("zq.agent", xp=10, **totals_for(50.0, 10.0)).save()

    for typed in ["kof", "mens", "kofi mens", "zq.ag", "zq"]:
        response = client.get("/leaderboard/", {"metric": "xp", "user": typed, "format": "json"})
        assert response.status_code == 200, typed
        assert response.json()["user"] == "zq.agent", typed
    for typed in ["secret", "secret.spy@h", "hidden", "kofi secret"]:
        response = client.get("/leaderboard/", {"metric": "xp", "user": typed, "format": "json"})
        assert response.status_code == 404, typed


def test_the_public_entries_hold_the_name_and_the_username_but_no_email_word(board):
    user = User("kofi.m", name="Kofi Mensah", email="secret.spy@hidden.example")
    user.save()

    public = {e.entry.split("#")[0] for e in LearnerWord.scan() if e.head.startswith("public#")}
    assert public == {"kofi", "mensah", "kofi.m", "m"}
    assert "secret.spy@hidden.example" in LearnerWord.words_of(user)  # staff still have it


@settings(
    max_examples=25,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # each example is ~60 requests
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    name=NAMES,
    username=USERNAMES,
    local=LOCAL_PARTS,
    domain=DOMAINS,
    cut=st.sampled_from(["local part", "local part and @", "whole email", "any prefix"]),
    length=st.integers(min_value=2, max_value=60),
    # Letters for letters and digits for digits: the random text keeps the prefix's shape.
    scramble=st.tuples(st.permutations(string.ascii_lowercase), st.permutations(string.digits)).map(
        lambda parts: [*parts[0], *parts[1]]
    ),
    with_name=st.booleans(),
)
def test_a_prefix_of_an_email_answers_as_random_text_on_every_public_url(
    client, board, name, username, local, domain, cut, length, scramble, with_name
):
    email = f"{local}@{domain}"
    prefix = {
        "local part": local,
        "local part and @": f"{local}@",
        "whole email": email,
        "any prefix": email[: max(2, min(length, len(email)))],
    }[cut]
    # Random text of the prefix's very shape (other letters and digits, the same punctuation):
    # a page may answer by shape alone (`@` is no username), never by whose email it starts.
    random_text = prefix.translate(str.maketrans(LETTERS, "".join(scramble)))
    user = User(username, name=name, email=email)
    assume(any(len(term) >= 2 for term in search_terms(prefix)))
    assume(starts_no_public_word(prefix, user) and starts_no_public_word(random_text, user))
    if with_name:  # a word of the name beside it: the email's term is checked on the name
        first = name.split()[0]
        prefix, random_text = f"{first} {prefix}", f"{first} {random_text}"
    note(f"typed {prefix!r} and {random_text!r}")
    user.save()
    stats = UserStats(username, xp=10, **totals_for(50.0, 10.0))
    stats.save()
    clear_caches()  # a skill-name list or a board an earlier example cached would skew the calls
    try:
        for url in PUBLIC_URLS:
            answer(client, url, "warm up")  # caches filled once, for both texts alike
            assert answer(client, url, prefix) == answer(client, url, random_text), url
    finally:
        LearnerWord.forget(user)
        user.delete()
        stats.delete()
