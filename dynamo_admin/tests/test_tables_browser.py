"""Staff with the Tables permission, in headless Chromium, on the AWS guide's tables that a
boto3 script made and no model describes: find them, query, filter, edit an item as typed
JSON and find every other attribute stored as it was. No CSP violation or console error."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator

import pytest

from dynamo import local, tables
from dynamo.models import configure
from dynamo_admin.models import AdminLog

from .conftest import staff
from .engines import empty, tables_dropped_after
from .music import BIG, make_music, put_music
from .test_existing_tables import make_sample_tables, put_sample_items

GUIDE_TABLES = ["ProductCatalog", "Forum", "Thread", "Reply", "Music"]
ODD_SONG_KEY = {"Artist": {"S": "No One You Know"}, "SongTitle": {"S": "Odd Song"}}
PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def chromium() -> Iterator:
    """Debian's Chromium driven by Playwright; a missing one fails, never skips."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(executable):
        pytest.fail("Chromium is not installed: install Debian's `chromium` package.")
    # Playwright's sync API keeps its event loop running on this thread (tests only).
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator[local.Engine]:
    """The guide's tables on DynamoDB Local, made by boto3; no model is registered for Music."""
    with tables_dropped_after(dynamodb_local) as engine:
        make_sample_tables(engine.client)
        make_music(engine.client)
        yield engine


@pytest.fixture
def guide(engine, settings) -> Iterator:
    settings.DYNAMO_ADMIN_TABLES = GUIDE_TABLES
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    put_sample_items(engine.resource)
    put_music(engine.client)
    yield engine.client
    empty(engine, *GUIDE_TABLES)


@pytest.fixture
def page(request, chromium, guide, live_server, transactional_db):
    """A staff member (no superuser) who may change any browsed table's items, logged in, at
    1280 px wide or at the width a test asks for (`indirect` parametrization)."""
    user = staff("tess", "dynamo_admin.change_table")
    user.set_password(PASSWORD)
    user.save()
    width = getattr(request, "param", 1280)
    context = chromium.new_context(viewport={"width": width, "height": 844})
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
    # The example site has no favicon: a browser's request for it is no page's problem.
    page.on(
        "console",
        lambda m: (
            m.type == "error"
            and not m.location.get("url", "").endswith("/favicon.ico")
            and problems.append(f"{m.text} {m.location.get('url')}")
        ),
    )
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(f"{live_server.url}/admin/login/")
    page.fill("#id_username", "tess")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.site = live_server.url
    try:
        yield page
        # Nothing wider than the window but what scrolls in its own box (the results).
        wide = page.evaluate(WIDER_THAN_THE_WINDOW)
        assert wide == [], wide
    finally:
        context.close()
    assert problems == []


# The outermost elements reaching past the window's right edge, unless inside a box that scrolls.
WIDER_THAN_THE_WINDOW = """() => {
  const found = [];
  const scrolls = (e) => {
    for (let p = e.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') return true;
    }
    return false;
  };
  for (const e of document.querySelectorAll('body *')) {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > window.innerWidth + 1 && !scrolls(e)
        && !(e.parentElement && found.includes(e.parentElement))) found.push(e);
  }
  return found.map((e) => e.tagName + '#' + e.id + '.' + e.className + ' ' +
                   Math.round(e.getBoundingClientRect().right));
}"""

ON_A_PHONE_TOO = pytest.mark.parametrize("page", [1280, 390], indirect=True, ids=["1280", "390"])


def result_column(page, name: str) -> list[str]:
    """Return one column of the results, top to bottom."""
    headers = [h.strip() for h in page.locator("#result_list thead th").all_text_contents()]
    column = headers.index(name) + 1
    return page.locator(f"#result_list tbody td:nth-child({column})").all_text_contents()


def test_staff_find_product_catalog_under_tables(page):
    page.goto(f"{page.site}/admin/")
    page.click("text=Tables")

    assert page.locator("#tables th a", has_text="ProductCatalog").count() == 1
    page.click("#tables th a >> text=Music")
    assert "Artist" in page.inner_text("#console")


@ON_A_PHONE_TOO
def test_a_query_of_music_by_artist_and_titles_between_two(page):
    page.goto(f"{page.site}/admin/tables/Music/")
    page.check("input[name=mode][value=query]")
    page.fill("#id_pk", "No One You Know")
    page.select_option("#id_sk_op", "between")
    page.fill("#id_sk", "Happy Day")
    page.fill("#id_sk2", "Scared of My Shadow")
    page.click("input[type=submit][value=Run]")

    titles = result_column(page, "SongTitle")
    assert titles == ["Happy Day", "Odd Song", "PartiQL Rocks", "Scared of My Shadow"]
    assert "sk_op=between" in page.url  # the query is the URL


def test_a_scan_filtered_by_contains(page):
    page.goto(f"{page.site}/admin/tables/Music/")
    page.check("input[name=mode][value=scan]")
    page.fill("#id_f0", "SongTitle")
    page.select_option("select[name=o0]", "contains")
    page.fill("input[name=v0]", "Day")
    page.click("input[type=submit][value=Run]")

    assert sorted(result_column(page, "Artist")) == ["Acme Band", "No One You Know"]
    assert set(result_column(page, "SongTitle")) == {"Happy Day"}


@ON_A_PHONE_TOO
def test_an_edit_through_the_item_textarea_keeps_every_other_attribute(page, guide):
    before = guide.get_item(TableName="Music", Key=ODD_SONG_KEY, ConsistentRead=True)["Item"]
    page.goto(f"{page.site}/admin/tables/Music/?mode=query&pk=No+One+You+Know&sk_op==&sk=Odd+Song")
    page.click("#result_list >> text=Open")
    attributes = page.inner_text("#attributes")
    assert "SS" in attributes and "NS" in attributes and BIG in attributes
    assert "expires in" in attributes

    typed = json.loads(page.input_value("#id_item"))
    typed["AlbumTitle"] = {"S": "Very Famous"}
    page.fill("#id_item", json.dumps(typed, indent=2))
    page.click("input[type=submit][value=Save]")

    assert "Saved AlbumTitle." in page.inner_text(".messagelist")
    after = guide.get_item(TableName="Music", Key=ODD_SONG_KEY, ConsistentRead=True)["Item"]
    assert after == {**before, "AlbumTitle": {"S": "Very Famous"}}
    assert sorted(after["Genres"]["SS"]) == ["Country", "Folk"] and after["Plays"] == {"N": BIG}


def test_a_raced_save_is_refused(page, guide):
    page.goto(f"{page.site}/admin/tables/Music/?mode=query&pk=Acme+Band")
    page.click("#result_list >> text=Open")
    guide.update_item(
        TableName="Music",
        Key={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}},
        UpdateExpression="SET Awards = :a",
        ExpressionAttributeValues={":a": {"N": "2"}},
    )
    page.fill("#id_item", page.input_value("#id_item").replace('"N": "1"', '"N": "5"'))
    page.click("input[type=submit][value=Save]")

    assert "changed since this page read it" in page.inner_text("#item-error")
    assert '"2"' in page.inner_text("#stored-now")
    stored = guide.get_item(
        TableName="Music", Key={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}}
    )["Item"]
    assert stored["Awards"] == {"N": "2"}
