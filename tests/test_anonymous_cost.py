"""No anonymous request reads more than 50 RCU, whatever its parameters (DynamoDB Local only).

Every public URL shape is listed once, in URL_SHAPES: a new public page is one more line.
Each is crawled with real parameters (the top, middle and bottom learner, every board's next
page, the search's pages) and then with generated ones, uncached, as an anonymous client, and
each response's capacity is read from the request's own meter (the X-DynamoDB-* headers are
for staff only). moto reports a flat 1.0 per call, so the ceiling is checked where capacity
is real.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterator
from io import StringIO
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from api.routers.public import SEARCH_MAX_PAGE_SIZE
from catalog.models import Skill
from dynamo import tables
from dynamo.meter import metered
from dynamo.models import configure
from stats.boards import tiers
from stats.boards.ranking import count_higher, rank_sorted
from stats.models import METRICS, UserStats
from tests.conftest import SHARED_PREFIX, configure_endpoint, tables_of_its_own
from users.models import PROFICIENCIES, User, UserSkill
from workers import jobs

CEILING_RCU = 50
# Enough that counting everyone above the bottom learner (before tiers) breaks the ceiling.
LEARNERS = 2000

# Every public URL shape, its parameters in braces (filled from PARAMETERS).
URL_SHAPES = [
    "/",
    "/leaderboard/?metric={metric}",
    "/leaderboard/?metric={metric}&cursor={cursor}",
    "/leaderboard/?metric={metric}&user={username}",
    "/leaderboard/?metric={metric}&user={username}&format=json",
    "/leaderboard/?metric={metric}&user={name}",
    "/skills/search/",
    "/skills/search/?skill={skill}&level={level}&min_years={years}",
    "/skills/search/?skill={skill}&min_level={level}",
    "/skills/search/{search_next}",
    "/api/leaderboard/{metric}?limit={limit}",
    "/api/leaderboard/{metric}?cursor={cursor}",
    "/api/leaderboard/{metric}?user={username}",
    "/api/search?skill={skill}&min_level={level}&min_years={years}",
    "/api/search{api_search_next}",
    "/learners/{username}/",
    "/learners/{username}/?format=json",
    "/api/learner-pages/{username}",
    # Each parameter at its extremes: the largest limit, the deepest cursor, the longest text.
    "/leaderboard/{board_deep_next}",
    "/leaderboard/?metric={metric}&user={long_text}",
    "/leaderboard/?metric={metric}&user={long_text}&format=json",
    "/skills/search/?skill={long_text}&min_level=Beginner",
    "/skills/search/{search_deep_next}",
    "/api/leaderboard/{metric}?cursor={cursor}&limit={limit}",
    "/api/leaderboard/{api_board_deep_next}",
    "/api/leaderboard/{metric}?user={long_text}",
    "/api/search?skill={skill}&limit={search_limit}",
    "/api/search?skill={skill}&min_level={level}&min_years={years}&limit={search_limit}",
    "/api/search?skill={long_text}&limit={search_limit}",
    "/api/search{api_search_deep_next}",
    "/learners/{learner_deep_next}",
    "/api/learner-pages/{api_learner_deep_next}",
    "/learners/{long_text}/",
    "/learners/{long_text}/?format=json",
    "/api/learner-pages/{long_text}",
]
# The largest page the public API accepts (api/routers/public.py): larger is a 422.
LIMITS = ["1", "50", "100"]
SHAPE_PARAMETERS = {name for shape in URL_SHAPES for name in re.findall(r"{(\w+)}", shape)}


@pytest.fixture(scope="module")
def board(tables_dynamodb_local) -> Iterator[dict]:
    """A modest board (learners with stats, skills and history), its tiers built; the real
    values of every URL parameter.

    Seeding 2,000 learners takes a minute on DynamoDB Local, and emptying them item by item
    another: both tests read one board, on tables of this module's own that are dropped after.
    """
    with tables_of_its_own(tables_dynamodb_local) as prefix:
        for model in tables.all_models():
            tables.create_missing(model)
        call_command("seed", users=LEARNERS, random_seed=3, stdout=StringIO())
        call_command("rebuild_rank_tiers", stdout=StringIO())
        yield {"prefix": prefix, "real": real_parameters()}


@pytest.fixture
def site(engine, board, tables_dynamodb_local, settings) -> Iterator[tuple[Client, dict]]:
    """The module's board, read as an anonymous client with no page cache."""
    settings.LEADERBOARD_CACHE_SECONDS = 0  # each request's own reads, not the cache's
    shared = configure_endpoint()
    configure(endpoint=tables_dynamodb_local, prefix=board["prefix"], region="us-east-1")
    try:
        yield Client(), board["real"]
    finally:
        configure(endpoint=shared, prefix=SHARED_PREFIX, region="us-east-1")


def real_parameters() -> dict:
    """Return the real values of each URL parameter, read from the seeded board."""
    client = Client()
    ranked = rank_sorted(UserStats.scan(), "xp")
    # The most held skill first: the fullest pages and the deepest cursors.
    held = Counter(holder.skill_name for holder in UserSkill.scan())
    skills = sorted((skill.name for skill in Skill.scan()), key=lambda n: (-held[n], n))
    cursors = [client.get(f"/api/leaderboard/{m}").json()["next"] for m in METRICS]
    query = f"?skill={quote(skills[0])}&min_level=Beginner&min_years=0"
    page = client.get(f"/skills/search/{query}").content.decode()
    search_next = html.unescape(re.search(r'rel="next" href="([^"]+)"', page).group(1))
    api_next = re.search(r"<([^>]+)>", client.get(f"/api/search{query}")["Link"]).group(1)
    real = {
        "metric": list(METRICS),
        "username": [ranked[n].username for n in (0, len(ranked) // 2, len(ranked) - 1)],
        "cursor": [c for c in cursors if c],
        "skill": skills,
        "level": list(PROFICIENCIES),
        "years": ["0", "3", "60"],
        # Next pages, whole (their cursor belongs to their query): not quoted again.
        "search_next": [search_next],
        "api_search_next": [f"?{urlsplit(api_next).query}"],
        "limit": LIMITS,
        "search_limit": ["1", str(SEARCH_MAX_PAGE_SIZE)],
        # A board search by name: a whole name (one learner) and a first name (a short list).
        "name": [
            User.get(ranked[-1].username).name.lower(),
            User.get(ranked[0].username).name.split()[0].lower(),
        ],
        **deepest_pages(client, skills[0], ranked[0].username),
        # The longest text each accepts (a skill name: 100; a board search: three words of
        # 200 queried), one character more, and many short words matching many learners.
        "long_text": [
            "x" * 100,
            "é" * 101,
            " ".join(["z" * 200] * 3),
            " ".join([User.get(ranked[0].username).name.split()[0].lower()[:2]] * 300),
        ],
    }
    with metered() as counting:
        count_higher("xp", ranked[-1].stats.xp)
    assert counting.read_units > CEILING_RCU  # the ceiling bites on this board
    assert set(real) == SHAPE_PARAMETERS
    assert all(cursors), cursors
    assert all(real[name] for name in real), real
    # A board's cursor belongs to its metric: the real crawl pairs them.
    real["cursor_of"] = dict(zip(METRICS, cursors, strict=True))
    return real


def last_page(client: Client, url: str, next_of) -> str:
    """Follow a listing's next pages from `url`; return the last page's URL."""
    while (following := next_of(client.get(url))) is not None:
        url = following
    return url


def deepest_pages(client: Client, skill: str, learner: str) -> dict[str, list[str]]:
    """Return the last page of each board, the search and a learner's sessions, as URL tails."""

    def link_next(response) -> str | None:
        found = re.search(r"<([^>]+)>", response.get("Link", ""))
        return (
            f"{urlsplit(found.group(1)).path}?{urlsplit(found.group(1)).query}" if found else None
        )

    def html_next(response) -> str | None:
        found = re.search(r'rel="next" href="([^"]+)"', response.content.decode())
        return f"/skills/search/{html.unescape(found.group(1))}" if found else None

    def page_next(response) -> str | None:
        cursor = response.json().get("next")
        return f"/learners/{learner}/?format=json&cursor={quote(cursor)}" if cursor else None

    api_board = [last_page(client, f"/api/leaderboard/{m}?limit=100", link_next) for m in METRICS]
    # The page and the API read a board through one function and share its cursors: the API's
    # last page, crawled 100 at a time, is as deep a cursor for the page as its own crawl.
    board = [
        f"/leaderboard/?metric={m}&cursor={quote(parse_qs(urlsplit(url).query)['cursor'][0])}"
        "&format=json"
        for m, url in zip(METRICS, api_board, strict=True)
    ]
    query = f"?skill={quote(skill)}&min_level=Beginner&min_years=0"
    search = last_page(client, f"/skills/search/{query}", html_next)
    api_search = last_page(client, f"/api/search{query}&limit=50", link_next)
    sessions = last_page(client, f"/learners/{learner}/?format=json", page_next)
    deep = {
        "board_deep_next": [url.removeprefix("/leaderboard/") for url in board],
        "api_board_deep_next": [url.removeprefix("/api/leaderboard/") for url in api_board],
        "search_deep_next": [search.removeprefix("/skills/search/")],
        "api_search_deep_next": [api_search.removeprefix("/api/search")],
        "learner_deep_next": [sessions.removeprefix("/learners/")],
        "api_learner_deep_next": [
            sessions.removeprefix("/learners/").replace("/?format=json&", "?")
        ],
    }
    assert all("cursor=" in tails[0] for tails in deep.values()), deep  # real deep pages
    return deep


def rcu_of(client: Client, url: str, *, status: int | None = None) -> float:
    response = client.get(url)
    assert response.status_code < 500, (url, response.status_code)
    assert status is None or response.status_code == status, (url, response.status_code)
    assert "X-DynamoDB-Capacity" not in response  # anonymous: the figures are staff's only
    return response.wsgi_request.dynamo_meter.read_units


def fill(shape: str, values: dict[str, str]) -> str:
    return shape.format(
        **{
            name: value if name.endswith("_next") else quote(str(value), safe="")
            for name, value in values.items()
        }
    )


@pytest.mark.engines("local")
def test_every_public_url_shape_stays_under_the_ceiling_with_tiers_and_without(site):
    client, real = site
    costs = {}
    for shape in URL_SHAPES:
        names = re.findall(r"{(\w+)}", shape)
        # Each parameter's every real value at least once, the others at their first.
        for name in names or [None]:
            for value in real[name] if name else [None]:
                values = {n: real[n][0] for n in names} | ({name: value} if name else {})
                if "cursor" in values:
                    values["cursor"] = real["cursor_of"][values["metric"]]
                url = fill(shape, values)
                # Real values give real pages; text too long for a name may be refused.
                status = None if "long_text" in names else 200
                costs[url] = rcu_of(client, url, status=status)
    too_costly = {url: rcu for url, rcu in costs.items() if rcu > CEILING_RCU}
    assert not too_costly, too_costly
    assert any(real["username"][-1] in url for url in costs)  # the bottom learner's rank

    # A larger page than the ceiling allows is refused before anything is read.
    refused = client.get(f"/api/search?skill=Python&limit={SEARCH_MAX_PAGE_SIZE + 1}")
    assert refused.status_code == 422
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.wsgi_request.dynamo_meter.count == 0

    # A fresh install (no tiers to point at yet) counts within a budget, even at the bottom.
    for metric in METRICS:
        jobs.forget(tiers.job_name(metric))
    for metric in METRICS:
        url = f"/leaderboard/?metric={metric}&user={real['username'][-1]}&format=json"
        assert rcu_of(client, url) <= CEILING_RCU
        assert client.get(url).json()["user_rank_label"].endswith("+")
    call_command("rebuild_rank_tiers", stdout=StringIO())  # the module's next test reads tiers


text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40)


@st.composite
def generated_url(draw, real: dict[str, list[str]]) -> str:
    shape = draw(st.sampled_from(URL_SHAPES))
    values = {}
    for name in re.findall(r"{(\w+)}", shape):
        noise = st.one_of(text, st.integers(-5, 10**6))
        if name.endswith("_next"):  # a real next page, or the same query with a junk cursor
            noise = noise.map(
                lambda v: f"?skill=Python&min_level=Expert&cursor={quote(str(v), safe='')}"
            )
        values[name] = draw(st.one_of(st.sampled_from(real[name]), noise))
    if "cursor" in values and draw(st.booleans()):
        values["cursor"] = real["cursor_of"].get(values.get("metric"), values["cursor"])
    return fill(shape, values)


@pytest.mark.engines("local")
def test_generated_parameters_never_lift_a_request_over_the_ceiling(site):
    client, real = site

    @hypothesis_settings(
        max_examples=120,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(url=generated_url(real))
    def check(url):
        assert rcu_of(client, url) <= CEILING_RCU, url

    check()
