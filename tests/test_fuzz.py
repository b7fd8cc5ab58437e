"""Generated values in every query string and admin form: never a 5xx, and a refused POST
changes nothing.

Each test runs a bounded number of Hypothesis examples, many on moto and a few on DynamoDB
Local, collecting every 5xx before failing so one run names them all. Values mix the inputs
that broke pages before (a 2,100-character key, `?q=/`, `²`, `1e309`, a 40-digit integer, an
empty `_version`, 1 MB of text, lone surrogates sent as the bytes a broken client sends, 3 MB
forms) with arbitrary text and numbers.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.conf import settings as django_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamo_admin.tests.pages import form_fields
from stats.models import UserStats
from tests.helpers import learners_for, snapshot

pytestmark = pytest.mark.django_db

HUGE_KEY = "k" * 2100
NASTY = [
    "",
    " ",
    "/",
    " / ",
    ",",
    "%",
    "²",
    "٣",
    "\x00",
    "\u2028",
    "1e309",
    "-1e309",
    "1e-200",
    "NaN",
    "inf",
    "-0",
    "1" * 40,
    "9" * 39 + ".5",
    "0.000000000000000000000000000000000000001",
    "-1",
    "0",
    "24",
    "99999999999999999999",
    HUGE_KEY,
    "é" * 1100,
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "alice",
    "python",
    "alice,python",
    "alice/python",
    "#reminders",
    "2024-13",
    "2024-02",
    "0001-01-01",
    "9999-12-31",
    "0001-01-01 00:00:00",
    "9999-12-31 23:59:59",
    "Expert",
    "xp",
    "asc",
    "-name",
    "json",
    "ALL",
    '{"a": 1}',
    "[1, 2]",
    "\ud800",
    "a\ud800b",
    "\udfff",
]
VALUES = st.one_of(
    st.sampled_from(NASTY),
    st.text(max_size=40),
    st.integers().map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
)

CHANGELISTS = [
    "/admin/catalog/skill/",
    "/admin/users/user/",
    "/admin/users/userskill/",
    "/admin/stats/userstats/",
    "/admin/dynamo_admin/adminlog/",
    "/admin/stats/studysession/",
]
ADMIN_PARAMS = [
    "q",
    "o",
    "cursor",
    "p",
    "year",
    "month",
    "created_month",
    "category",
    "deleted",
    "skill_id",
    "skill_name",
    "leaderboard",
    "next_reminder_bucket",
    "all",
    "_popup",
]
PUBLIC = {
    "/leaderboard/": ["metric", "user", "cursor", "format"],
    "/skills/search/": ["skill", "level", "min_level", "min_years", "cursor", "format"],
    "/": ["q"],
    "/healthz": ["format"],
    "/learners/alice/": ["cursor", "format"],
}
ITEM_PAGES = ["change", "delete", "history", "raw"]
# One stored item per model, named as its admin URL names it.
OBJECT_IDS = {
    "/admin/catalog/skill/": "python",
    "/admin/users/user/": "alice",
    "/admin/users/userskill/": "alice,python",
    "/admin/stats/userstats/": "alice",
}
ADD_FORMS = [f"{url}add/" for url in OBJECT_IDS]
CHANGE_FORMS = [f"{url}{key}/change/" for url, key in OBJECT_IDS.items()]
DELETE_PAGES = [f"{url}{key}/delete/" for url, key in OBJECT_IDS.items()]


class Findings:
    """Requests tried and the 5xx among them (the test fails listing them all)."""

    def __init__(self) -> None:
        self.tried = 0
        self.errors: list[str] = []

    def request(self, client, method: str, url: str, data: dict[str, Any] | None = None):
        self.tried += 1
        try:
            response = send(client, method, url, data or {})
        except Exception as exc:  # a 500: recorded, so the run goes on and names every cause
            self.errors.append(f"{method.upper()} {url[:120]} {short(data)}: {exc!r:.300}")
            return None
        if response.status_code >= 500:
            self.errors.append(
                f"{method.upper()} {url[:120]} {short(data)}: {response.status_code}"
            )
        return response

    def check(self) -> None:
        print(f"fuzz: {self.tried} requests tried, {len(self.errors)} answered 5xx")
        causes = sorted(set(re.sub(r"\d+", "N", e) for e in self.errors))
        assert not self.errors, (
            f"{len(self.errors)} of {self.tried} requests failed:\n" + "\n".join(causes[:40])
        )


class Tables:
    """The tables' snapshot, read again only after a request that may have changed them.

    A refused request's check reads the tables after it: that is what they hold before the
    next example (nothing else writes between two), so the next one need not read them again.
    """

    def __init__(self) -> None:
        self.known: list[str] | None = None

    def before_a_request(self) -> list[str]:
        before = self.known if self.known is not None else snapshot()
        self.known = None  # the request may change them
        return before

    def now(self) -> list[str]:
        self.known = snapshot()
        return self.known


def wire(text: str) -> str:
    """Return text as it goes on the wire: lone surrogates as their (invalid) UTF-8 bytes."""
    return re.sub(
        "[\ud800-\udfff]", lambda m: quote(m.group().encode("utf-8", "surrogatepass")), text
    )


def send(client, method: str, url: str, data: dict[str, Any]):
    """Send a query string or form as a client would, whatever the text (the test client
    refuses to encode a lone surrogate; a real client can send its bytes)."""
    encoded = urlencode(data, doseq=True, encoding="utf-8", errors="surrogatepass")
    if method == "get":
        return client.get(f"{url}?{encoded}" if encoded else url)
    return client.post(url, encoded, content_type="application/x-www-form-urlencoded")


def short(data: dict[str, Any] | None) -> str:
    return str(
        {
            k: (v[:40] + "…" if isinstance(v, str) and len(v) > 40 else v)
            for k, v in (data or {}).items()
        }
    )


def examples(engine: str, on_moto: int) -> settings:
    return settings(
        max_examples=on_moto if engine == "moto" else max(on_moto // 8, 8),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture
def stocked(alice):
    """Alice with a Python skill and stats, plus a second learner on the board."""
    learners_for(["bob"])
    UserStats("bob", xp=50).save()
    return alice


def test_no_generated_query_string_gets_a_5xx(admin_client_, stocked, dynamo):
    found = Findings()
    pages = [*CHANGELISTS, *PUBLIC]
    item_pages = [f"{url}{key}/{page}/" for url, key in OBJECT_IDS.items() for page in ITEM_PAGES]

    @examples(dynamo, 240)
    @given(
        url=st.sampled_from(pages + item_pages),
        params=st.dictionaries(
            st.sampled_from(sorted({*ADMIN_PARAMS, *(p for ps in PUBLIC.values() for p in ps)})),
            VALUES,
            max_size=3,
        ),
    )
    def run(url: str, params: dict[str, str]) -> None:
        found.request(admin_client_, "get", url, params)

    run()
    found.check()


def test_no_generated_key_in_an_admin_url_gets_a_5xx(admin_client_, stocked, dynamo):
    found = Findings()

    @examples(dynamo, 120)
    @given(url=st.sampled_from(list(OBJECT_IDS)), key=VALUES, page=st.sampled_from(ITEM_PAGES))
    def run(url: str, key: str, page: str) -> None:
        quoted = key.replace("%", "%25").replace("?", "%3F").replace("#", "%23")
        found.request(admin_client_, "get", wire(f"{url}{quoted}/{page}/"))

    run()
    found.check()


def test_a_generated_admin_form_post_gets_no_5xx_and_a_refused_one_changes_nothing(
    admin_client_, stocked, dynamo
):
    found = Findings()
    stored = Tables()
    forms = {url: form_fields(admin_client_, url) for url in ADD_FORMS + CHANGE_FORMS}
    # 1 MB and 3 MB (over Django's limit: a 413) of text and an empty version are the known
    # ones; the rest is generated.
    big_values = st.one_of(
        VALUES, st.just("x" * 1024 * 1024), st.just("x" * 3 * 1024 * 1024), st.just("")
    )

    @examples(dynamo, 160)
    @given(url=st.sampled_from(sorted(forms)), data=st.data())
    def run(url: str, data) -> None:
        fields = forms[url]
        names = data.draw(st.lists(st.sampled_from(sorted(fields)), min_size=1, max_size=3))
        post = {**fields, **{name: data.draw(big_values) for name in names}}
        before = stored.before_a_request()
        response = found.request(admin_client_, "post", url, post)
        if response is not None and any(
            len(wire(v)) > django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE for v in post.values()
        ):
            assert response.status_code == 413, f"{url} read a form over the limit"
        if response is not None and response.status_code != 302:
            assert stored.now() == before, f"a refused POST to {url} changed the tables"

    run()
    found.check()


def test_a_generated_action_or_delete_post_gets_no_5xx_and_a_refused_one_changes_nothing(
    admin_client_, stocked, dynamo
):
    found = Findings()
    stored = Tables()

    @examples(dynamo, 80)
    @given(
        url=st.sampled_from(CHANGELISTS + DELETE_PAGES),
        selected=st.lists(VALUES, max_size=3),
        version=VALUES,
        action=st.sampled_from(["delete_selected", "", "nope", "restore_selected"]),
        post=st.booleans(),
    )
    def run(url: str, selected: list[str], version: str, action: str, post: bool) -> None:
        if url in CHANGELISTS:
            data = {
                "action": action,
                "_selected_action": selected,
                "_selected_version": [version] * len(selected),
                "index": "0",
            }
            if post:
                data["post"] = "yes"
        else:
            data = {"post": "yes", "version": version}
        before = stored.before_a_request()
        response = found.request(admin_client_, "post", url, data)
        if response is not None and response.status_code >= 400:
            assert stored.now() == before, f"a refused POST to {url} changed the tables"

    run()
    found.check()


@pytest.mark.parametrize("url", CHANGE_FORMS)
def test_a_change_posted_without_its_version_is_refused_and_writes_nothing(
    admin_client_, stocked, url
):
    fields = form_fields(admin_client_, url)
    before = snapshot()

    response = admin_client_.post(url, {**fields, "_version": ""})

    assert response.status_code == 200
    assert "did not say which version" in response.content.decode()
    assert snapshot() == before
