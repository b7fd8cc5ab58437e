"""The Tables pages on tables boto3 made: the AWS guide's, and Music with no model at all.

On DynamoDB Local: the console's Query and Scan, the item page's typed JSON save (one
conditional UpdateItem of what changed), adds, deletes, exports, and who may do what.
"""

from __future__ import annotations

import base64
import fnmatch
import json
from collections.abc import Iterator
from contextlib import contextmanager
from decimal import Decimal
from html import escape
from io import StringIO
from unittest import mock
from urllib.parse import urlencode

import pytest
from botocore.client import BaseClient
from botocore.exceptions import ClientError
from django.contrib.auth.models import User as StaffUser
from django.core.management import CommandError, call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamo import local, tables
from dynamo.meter import metered
from dynamo.models import configure
from dynamo_admin import console as console_module
from dynamo_admin.models import AdminLog

from .conftest import logged_in, staff
from .engines import empty, point, tables_dropped_after
from .music import BIG, SONGS, make_music, put_music
from .pages import form_fields
from .test_existing_tables import SAMPLE_MODELS, make_sample_tables, put_sample_items

TABLES = "/admin/tables/"
MUSIC = "/admin/tables/Music/"
ALLOWED = ["Music", "Product*", "Forum", "Reply"]  # not Thread


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator[local.Engine]:
    with tables_dropped_after(dynamodb_local) as engine:
        make_sample_tables(engine.client)
        make_music(engine.client)
        point(SAMPLE_MODELS, engine.endpoint)
        yield engine


@pytest.fixture
def music(engine, settings) -> Iterator[local.Engine]:
    settings.DYNAMO_ADMIN_TABLES = ALLOWED
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    put_sample_items(engine.resource)
    put_music(engine.client)
    yield engine
    empty(engine, "ProductCatalog", "Forum", "Thread", "Reply", "Music")


@pytest.fixture
def boss(db, music) -> Client:
    """Sam, a superuser."""
    return logged_in(StaffUser.objects.create_superuser("sam", "sam@example.com", "pw"))


@pytest.fixture
def browser(db, music) -> Client:
    """Bea may browse tables, and change nothing."""
    return logged_in(staff("bea", "dynamo_admin.view_table"))


@pytest.fixture
def outsider(db, music) -> Client:
    """Olga is staff without any Tables permission."""
    return logged_in(staff("olga", "samples.view_productcatalog"))


def get_item(engine, artist: str, title: str) -> dict | None:
    key = {"Artist": {"S": artist}, "SongTitle": {"S": title}}
    return engine.client.get_item(TableName="Music", Key=key, ConsistentRead=True).get("Item")


def item_url(artist: str, title: str) -> str:
    key = {"Artist": {"S": artist}, "SongTitle": {"S": title}}
    return f"{MUSIC}item/?{urlencode({'key': json.dumps(key)})}"


def titles(page: str) -> list[str]:
    """Return the song titles in the results, in their order."""
    found = [t for t in [*SONGS, "Odd Song"] if f"<td>{t}</td>" in page]
    return sorted(found, key=lambda t: page.find(f"<td>{t}</td>"))


# --- the tables ---------------------------------------------------------------------------
def test_the_index_links_tables_for_those_who_may_browse(boss, browser, outsider):
    assert b">Tables</a>" in boss.get("/admin/").content
    assert b">Tables</a>" in browser.get("/admin/").content
    assert b">Tables</a>" not in outsider.get("/admin/").content


def test_the_tables_page_lists_keys_indexes_ttl_and_models(browser):
    page = browser.get(TABLES).content.decode()

    assert "ProductCatalog" in page and "Music" in page and "Reply" in page
    assert "Thread" not in page  # not allowed
    assert "Artist (S, HASH)" in page and "SongTitle (S, RANGE)" in page
    assert "AlbumTitle-index (global): AlbumTitle" in page and "KEYS_ONLY" in page
    assert "PostedBy-Message-Index (global): PostedBy, Message" in page
    assert "ExpiresAt" in page and "PAY_PER_REQUEST" in page and "six hours" in page
    assert 'href="/admin/samples/productcatalog/"' in page  # its registered model


def test_a_table_outside_the_list_is_404_at_every_url(boss):
    key = urlencode({"key": json.dumps({"ForumName": {"S": "x"}, "Subject": {"S": "y"}})})
    for url in ("", "item/?" + key, "add/", "delete/?" + key, "export/?format=csv"):
        assert boss.get(f"/admin/tables/Thread/{url}").status_code == 404, url
    assert boss.get("/admin/tables/NoSuchTable/").status_code == 404


def test_staff_without_the_permission_get_403_at_every_url(outsider, browser):
    key = urlencode({"key": json.dumps({"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "x"}})})
    urls = ["", "Music/", "Music/item/?" + key, "Music/add/", "Music/delete/?" + key]
    urls += ["Music/export/?format=csv", "Music/partiql/", "Thread/"]
    for url in urls:
        assert outsider.get(f"{TABLES}{url}").status_code == 403, url
        assert outsider.post(f"{TABLES}{url}", {"statement": "SELECT"}).status_code == 403, url
    assert Client().get(f"{TABLES}Music/").status_code == 302  # to the login page
    # Browsing is not changing: a viewer's writes are refused too.
    assert browser.get(f"{MUSIC}add/").status_code == 403
    assert browser.post(f"{MUSIC}delete/", {"key": "{}"}).status_code == 403
    assert browser.post(item_url("Acme Band", "Happy Day"), {"item": "{}"}).status_code == 403


# --- the console ----------------------------------------------------------------------------
def test_a_query_by_artist_with_a_title_between_two_gives_those_songs_in_order(browser):
    query = {"mode": "query", "pk": "No One You Know", "sk_op": "between"}
    query |= {"sk": "Happy Day", "sk2": "Scared of My Shadow"}

    page = browser.get(MUSIC, query).content.decode()
    backwards = browser.get(MUSIC, {**query, "order": "desc"}).content.decode()

    assert titles(page) == ["Happy Day", "Odd Song", "PartiQL Rocks", "Scared of My Shadow"]
    assert titles(backwards) == ["Scared of My Shadow", "PartiQL Rocks", "Odd Song", "Happy Day"]
    assert 'id="reads"' in page and "Acme Band" not in page


def test_a_scan_filtered_by_contains_says_what_it_read_and_matched(browser):
    query = {"mode": "scan", "f0": "SongTitle", "o0": "contains", "v0": "Day"}
    response = browser.get(MUSIC, query)
    page = response.content.decode()

    assert titles(page) == ["Happy Day"]
    assert page.count("<td>Happy Day</td>") == 2  # both artists' songs
    # Seven items read, two matched.
    assert "<td>7</td><td>2</td>" in page.replace("\n", "")


def test_filters_are_typed_numbers_sets_and_types(browser):
    def matched(**query) -> set[str]:
        page = browser.get(MUSIC, {"mode": "scan", **query}).content.decode()
        return set(titles(page))

    longest = {"Scared of My Shadow", "Somewhere Down"}
    assert matched(f0="Awards", o0=">", v0="13", t0="N") == longest
    assert matched(f0="Genres", o0="contains", v0="Folk") == {"Odd Song"}
    assert matched(f0="Plays", o0="=", v0=BIG, t0="N") == {"Odd Song"}
    assert matched(f0="Cover", o0="type", v0="B") == {"Odd Song"}
    assert matched(f0="Awards", o0="not_exists") == {"Odd Song"}
    assert matched(f0="Awards", o0="in", v0="9, 14", t0="N") == {"Happy Day", "Somewhere Down"}


def test_a_filter_on_a_modelled_attribute_is_typed_as_its_model_declares(browser):
    query = {"mode": "scan", "f0": "Price", "o0": ">", "v0": "50"}

    page = browser.get("/admin/tables/ProductCatalog/", query).content.decode()

    # Price is a NumberAttribute: 100 > 50 as numbers (as text "100" < "50").
    assert "18-Bike-201" in page and "Book 101 Title" not in page


def test_pages_follow_by_cursor_and_reads_are_bounded(browser):
    query = {"mode": "query", "pk": "No One You Know", "per_page": "2"}
    first = browser.get(MUSIC, query)
    next_url = first.context["next_url"]
    second = browser.get(MUSIC + next_url)

    assert titles(first.content.decode()) == ["Call Me Today", "Happy Day"]
    assert titles(second.content.decode()) == ["Odd Song", "PartiQL Rocks"]
    assert len(first.context["page"].reads) <= console_module.MAX_CALLS


def test_a_scan_of_a_big_table_states_its_cost_and_needs_a_click(browser, monkeypatch):
    monkeypatch.setattr(console_module, "SCAN_CONFIRM_BYTES", 0)

    asked = browser.get(MUSIC, {"mode": "scan"})
    confirmed = browser.get(MUSIC, {"mode": "scan", "confirm": "1"})

    assert b'id="scan-cost"' in asked.content and b"read units" in asked.content
    assert asked.context["page"] is None  # nothing was read
    assert confirmed.context["page"] is not None and len(confirmed.context["rows"]) == 7


@pytest.mark.parametrize(
    "query",
    [
        {"mode": "query"},
        {"mode": "nonsense"},
        {"index": "nope"},
        {"mode": "scan", "f0": "Awards", "o0": "=", "v0": "twelve", "t0": "N"},
        {"mode": "scan", "f0": "Cover", "o0": "=", "v0": "%%%", "t0": "B"},
        {"mode": "scan", "cursor": "forged"},
        {"mode": "query", "pk": "x", "sk_op": "like"},
        {"mode": "scan", "per_page": "many"},
    ],
)
def test_a_query_the_page_cannot_run_is_a_400_saying_why(browser, query):
    response = browser.get(MUSIC, query)

    assert response.status_code == 400
    assert b'id="query-error"' in response.content


def test_an_index_keyed_by_several_attributes_is_queried_on_each_partition_attribute(
    boss, music, settings
):
    settings.DYNAMO_ADMIN_TABLES = [*ALLOWED, "Scores"]
    attributes = {"Player": "S", "Game": "S", "Region": "S", "Score": "N"}
    music.client.create_table(
        TableName="Scores",
        KeySchema=[{"AttributeName": "Player", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": kind} for name, kind in attributes.items()
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by-game",  # DynamoDB's multi-attribute keys: two hash attributes
                "KeySchema": [
                    {"AttributeName": "Game", "KeyType": "HASH"},
                    {"AttributeName": "Region", "KeyType": "HASH"},
                    {"AttributeName": "Score", "KeyType": "RANGE"},
                    {"AttributeName": "Player", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    try:
        for player, score in (("ada", "7"), ("bob", "3")):
            item = {"Player": player, "Game": "chess", "Region": "eu", "Score": score}
            music.client.put_item(
                TableName="Scores", Item={k: {attributes[k]: v} for k, v in item.items()}
            )
        url, chosen = "/admin/tables/Scores/", {"index": "by-game"}

        blank = boss.get(url, chosen).content.decode()
        query = {**chosen, "mode": "query", "pk": "chess", "pk1": "eu"}
        queried = boss.get(url, {**query, "sk_op": ">", "sk": "5"})
        every = boss.get(url, query)
        halved = boss.get(url, {**query, "pk1": ""})
        # The second sort attribute after the first's equality; never before it.
        second = boss.get(url, {**query, "sk_op": "=", "sk": "7", "s1_op": ">=", "s1": "a"})
        missed = boss.get(url, {**query, "sk_op": "=", "sk": "7", "s1_op": ">", "s1": "ada"})
        skipped = boss.get(url, {**query, "s1_op": "=", "s1": "bob"})
        ranged = boss.get(url, {**query, "sk_op": ">", "sk": "1", "s1_op": "=", "s1": "bob"})
        scanned = boss.get(url, {**chosen, "mode": "scan", "f0": "Score", "o0": "<", "v0": "5"})
    finally:
        music.client.delete_table(TableName="Scores")

    # One field for each partition attribute, then the condition on the sort attribute.
    assert 'name="pk" id="id_pk"' in blank and 'name="pk1" id="id_pk1"' in blank
    assert '<label for="id_pk1">Region =</label>' in blank
    assert 'id="multi-attribute-key"' in blank and '<option value="by-game" selected>' in blank
    assert [row["key"] for row in queried.context["rows"]] == ['{"Player":{"S":"ada"}}']
    assert [row["key"] for row in every.context["rows"]] == [
        '{"Player":{"S":"bob"}}',
        '{"Player":{"S":"ada"}}',
    ]
    assert halved.status_code == 400 and b"needs the value of Region" in halved.content
    assert '<label for="id_s1_op">Player</label>' in blank and 'name="s1_and"' in blank
    assert [row["key"] for row in second.context["rows"]] == ['{"Player":{"S":"ada"}}']
    assert second.context["console"].sort_fields[1]["value"] == "a"  # the form keeps it
    assert missed.status_code == 200 and missed.context["rows"] == []
    for refused in (skipped, ranged):
        assert refused.status_code == 400
        assert b"A condition on Player needs Score = a value first" in refused.content
    assert [row["key"] for row in scanned.context["rows"]] == ['{"Player":{"S":"bob"}}']


# --- an item --------------------------------------------------------------------------------
def test_an_item_shows_its_types_and_when_it_expires(browser):
    page = browser.get(item_url("No One You Know", "Odd Song")).content.decode()

    for kind in ("SS", "NS", "B", "N", "M"):
        assert f"<td>{kind}</td>" in page
    assert BIG in page and base64.b64encode(b"\x00\xffcover").decode() in page
    assert "expires in 6\xa0days" in page or "expires in 1\xa0week" in page
    assert 'name="item"' in page and "readonly" in page  # a viewer reads only


def test_a_change_through_the_item_textarea_writes_that_attribute_only(boss, music):
    url = item_url("No One You Know", "Odd Song")
    before = get_item(music, "No One You Know", "Odd Song")
    form = form_fields(boss, url)
    typed = json.loads(form["item"])
    typed["AlbumTitle"] = {"S": "Very Famous"}
    form["item"] = json.dumps(typed)

    response = boss.post(url, form)

    assert response.status_code == 302, response.content.decode()
    after = get_item(music, "No One You Know", "Odd Song")
    # Sets still sets, the 38-digit number exact, the binary its bytes: only the title moved.
    assert after == {**before, "AlbumTitle": {"S": "Very Famous"}}
    entry = AdminLog.query("dynamo_admin.table.Music:No One You Know/Odd Song").next()
    assert entry.changes == {"AlbumTitle": [{"S": "Somewhat Famous"}, {"S": "Very Famous"}]}


def test_attributes_are_added_and_removed(boss, music):
    url = item_url("Acme Band", "Happy Day")
    form = form_fields(boss, url)
    typed = json.loads(form["item"])
    del typed["Awards"]
    typed["Tags"] = {"NS": ["1", "2.50"]}
    form["item"] = json.dumps(typed)

    assert boss.post(url, form).status_code == 302
    after = get_item(music, "Acme Band", "Happy Day")
    assert "Awards" not in after
    assert {Decimal(n) for n in after["Tags"]["NS"]} == {1, Decimal("2.5")}


def test_a_raced_save_is_refused_and_shows_both_versions(boss, music):
    url = item_url("Acme Band", "Happy Day")
    form = form_fields(boss, url)
    music.client.update_item(
        TableName="Music",
        Key={"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Happy Day"}},
        UpdateExpression="SET Awards = :a",
        ExpressionAttributeValues={":a": {"N": "2"}},
    )
    typed = json.loads(form["item"])
    typed["Awards"] = {"N": "3"}
    form["item"] = json.dumps(typed)

    response = boss.post(url, form)

    assert response.status_code == 200 and b"changed since this page read it" in response.content
    assert b'id="stored-now"' in response.content and b"&quot;3&quot;" in response.content
    assert get_item(music, "Acme Band", "Happy Day")["Awards"] == {"N": "2"}
    # Saved again from the refused page, it is on what was stored then: it goes through.
    again = {"shown": response.context["shown"], "item": form["item"]}
    assert boss.post(url, again).status_code == 302
    assert get_item(music, "Acme Band", "Happy Day")["Awards"] == {"N": "3"}


def test_a_save_posted_twice_writes_once_and_refuses_the_retry(boss, music):
    url = item_url("No One You Know", "Odd Song")
    before = get_item(music, "No One You Know", "Odd Song")
    history = "dynamo_admin.table.Music:No One You Know/Odd Song"
    earlier = len(list(AdminLog.query(history)))  # other tests' saves of this item
    form = form_fields(boss, url)
    typed = json.loads(form["item"])
    typed["AlbumTitle"] = {"S": "Very Famous"}
    form["item"] = json.dumps(typed)

    first = boss.post(url, form)
    # The same form again, as a browser retrying the POST sends it: the title it showed is
    # gone, so it is a raced save, refused, and nothing is written a second time.
    again = boss.post(url, form)

    assert first.status_code == 302, first.content.decode()
    assert again.status_code == 200 and b"changed since this page read it" in again.content
    assert get_item(music, "No One You Know", "Odd Song") == {
        **before,
        "AlbumTitle": {"S": "Very Famous"},
    }
    assert len(list(AdminLog.query(history))) == earlier + 1


def test_bad_json_is_refused_with_its_line_and_column(boss, music):
    url = item_url("Acme Band", "Happy Day")
    form = form_fields(boss, url)

    broken = boss.post(url, {**form, "item": '{\n  "Artist": {"S": "Acme Band"},\n  oops\n}'})
    mistyped = boss.post(url, {**form, "item": form["item"].replace('"N": "1"', '"N": "one"')})
    rekeyed = boss.post(url, {**form, "item": form["item"].replace("Acme Band", "Other")})

    assert b"Line 3, column 3" in broken.content
    assert b"Awards" in mistyped.content and b"Line " in mistyped.content
    assert b"read-only" in rekeyed.content
    assert get_item(music, "Acme Band", "Happy Day")["Awards"] == {"N": "1"}


def test_a_new_item_by_key_and_never_over_another(boss, music):
    item = {"Artist": {"S": "New"}, "SongTitle": {"S": "First"}, "Bytes": {"BS": ["AAE="]}}

    made = boss.post(f"{MUSIC}add/", {"item": json.dumps(item)})
    again = boss.post(f"{MUSIC}add/", {"item": json.dumps({**item, "Bytes": {"S": "x"}})})

    assert made.status_code == 302
    assert get_item(music, "New", "First")["Bytes"] == {"BS": [b"\x00\x01"]}
    assert again.status_code == 200 and b"already exists" in again.content


def test_a_missing_item_offers_to_add_it_by_its_key(boss, music):
    missing = boss.get(item_url("Nobody", "Nothing"))
    add_url = f"{MUSIC}add/?{missing.context['add_query']}"
    form = form_fields(boss, add_url)

    assert missing.status_code == 404
    assert add_url.replace("&", "&amp;") in missing.content.decode()
    assert json.loads(form["item"]) == {"Artist": {"S": "Nobody"}, "SongTitle": {"S": "Nothing"}}


def test_an_edit_of_a_modelled_table_is_logged_under_its_model(boss, music):
    from .samples import models as samples

    key = urlencode({"key": json.dumps({"Id": {"N": "101"}})})
    url = f"/admin/tables/ProductCatalog/item/?{key}"
    form = form_fields(boss, url)
    form["item"] = form["item"].replace("Book 101 Title", "Book 101, revised")

    assert boss.post(url, form).status_code == 302
    entry = AdminLog.history(samples.ProductCatalog(101))[0]
    assert entry.changes == {"Title": [{"S": "Book 101 Title"}, {"S": "Book 101, revised"}]}


# --- deletes and exports ----------------------------------------------------------------------
def test_bulk_delete_asks_then_deletes_only_the_chosen_on_condition(boss, music):
    listing = boss.get(MUSIC, {"mode": "query", "pk": "No One You Know"})
    chosen = ('"Happy Day"', '"Call Me Today"')
    keys = [row["key"] for row in listing.context["rows"] if row["key"].endswith(chosen, 0, -2)]
    assert len(keys) == 2

    asked = boss.post(f"{MUSIC}delete/", {"key": keys})
    assert asked.status_code == 200 and get_item(music, "No One You Know", "Happy Day")
    # One of them changes after the confirmation showed it: that one stays.
    music.client.update_item(
        TableName="Music",
        Key={"Artist": {"S": "No One You Know"}, "SongTitle": {"S": "Call Me Today"}},
        UpdateExpression="SET Awards = :a",
        ExpressionAttributeValues={":a": {"N": "99"}},
    )
    done = boss.post(f"{MUSIC}delete/", {"shown": asked.context["shown"], "back": ""})

    assert done.status_code == 302
    assert get_item(music, "No One You Know", "Happy Day") is None
    assert get_item(music, "No One You Know", "Call Me Today") is not None
    assert get_item(music, "No One You Know", "PartiQL Rocks") is not None  # not chosen
    left = [m.message for m in done.wsgi_request._messages]
    assert any("1 item changed" in m for m in left) and "Deleted 1 item." in left


def test_the_results_export_as_csv_and_json_lines(browser):
    query = {"mode": "query", "pk": "No One You Know", "sk_op": "begins_with", "sk": "S"}

    csv_text = b"".join(browser.get(f"{MUSIC}export/", {**query, "format": "csv"})).decode()
    lines = b"".join(browser.get(f"{MUSIC}export/", {**query, "format": "jsonl"})).decode()

    assert csv_text.splitlines()[0] == "Artist,SongTitle,AlbumTitle,Awards"
    every = b"".join(browser.get(f"{MUSIC}export/", {"mode": "scan", "format": "csv"})).decode()
    # Every item's attributes have a column, not only the first item's.
    assert every.splitlines()[0].startswith("Artist,SongTitle,AlbumTitle,Awards,Cover,Credits")
    assert "No One You Know,Scared of My Shadow,Hey Now,19" in csv_text
    records = [json.loads(line) for line in lines.splitlines()]
    assert [r["item"]["SongTitle"] for r in records] == [
        {"S": "Scared of My Shadow"},
        {"S": "Somewhere Down"},
    ]
    assert records[0]["table"] == "Music"


# --- PartiQL ------------------------------------------------------------------------------------
PARTIQL = f"{MUSIC}partiql/"


def test_a_partiql_select_on_the_partition_key_runs_at_once(browser):
    statement = """SELECT * FROM "Music" WHERE Artist = 'Acme Band'"""

    response = browser.post(PARTIQL, {"statement": statement})

    assert response.status_code == 200, response.content.decode()
    assert titles(response.content.decode()) == ["Happy Day"]
    assert b'id="statement-cost"' in response.content


def test_a_partiql_select_without_the_partition_key_is_flagged_as_a_scan(browser):
    statement = """SELECT * FROM "Music" WHERE SongTitle = 'Happy Day'"""

    asked = browser.post(PARTIQL, {"statement": statement})
    ran = browser.post(PARTIQL, {"statement": statement, "confirm": "1"})

    assert b'id="scan-cost"' in asked.content and b"read units" in asked.content
    assert "rows" not in asked.context
    assert len(ran.context["rows"]) == 2


def test_partiql_writes_need_the_change_permission_and_are_logged(browser, boss, music):
    update = (
        """UPDATE "Music" SET Awards = 7 WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day'"""
    )

    refused = browser.post(PARTIQL, {"statement": update})
    assert refused.status_code == 403
    assert get_item(music, "Acme Band", "Happy Day")["Awards"] == {"N": "1"}

    done = boss.post(PARTIQL, {"statement": update})

    assert done.status_code == 302
    assert get_item(music, "Acme Band", "Happy Day")["Awards"] == {"N": "7"}
    entry = AdminLog.query("dynamo_admin.loggedstatement:Music").next()
    assert entry.user == "sam" and entry.changes == {"PartiQL": [None, update]}


@pytest.mark.parametrize(
    "statement",
    [
        'SELECT * FROM "Thread"',
        """SELECT * FROM "Music" WHERE Artist = 'x' UNION SELECT * FROM "Forum\"""",
        "DROP TABLE Music",
        "",
        'SELECT * FROM "Music"."nope"',
    ],
)
def test_partiql_on_another_table_or_not_a_statement_is_refused(boss, statement):
    response = boss.post(PARTIQL, {"statement": statement})

    assert response.status_code == 400
    assert b'id="statement-error"' in response.content


statements = st.builds(
    "".join,
    st.lists(
        st.one_of(
            st.sampled_from(
                [
                    'SELECT * FROM "Music"',
                    " WHERE ",
                    "Artist",
                    " = ",
                    "'x'",
                    " OR ",
                    "UPDATE ",
                    'DELETE FROM "Music"',
                    '"Music"."AlbumTitle-index"',
                    "?",
                    '"',
                    "'",
                    " SET a=1",
                    "INSERT INTO \"Music\" VALUE {'Artist': 'a'}",
                    "EXISTS(",
                    ")",
                    "\x00",
                    "²",
                ]
            ),
            st.text(max_size=12),
        ),
        max_size=6,
    ),
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(statement=statements, confirm=st.sampled_from(["", "1"]))
def test_no_statement_makes_the_partiql_page_fail(boss, statement, confirm):
    response = boss.post(PARTIQL, {"statement": statement, "confirm": confirm})

    assert response.status_code < 500, statement


# --- DynamoDB refusing a call ----------------------------------------------------------------
@contextmanager
def denied(operation: str) -> Iterator[None]:
    """Make DynamoDB answer one operation as AWS answers a role whose policy lacks it."""
    send = BaseClient._make_api_call

    def call(client, name, params):
        if name != operation:
            return send(client, name, params)
        message = (
            "User: arn:aws:sts::123456789012:assumed-role/web/i-0 is not authorized to perform: "
            f"dynamodb:{operation} because no identity-based policy allows it"
        )
        error = {"Code": "AccessDeniedException", "Message": message}
        raise ClientError({"Error": error, "ResponseMetadata": {"HTTPStatusCode": 400}}, name)

    with mock.patch.object(BaseClient, "_make_api_call", call):
        yield


READS = {"mode": "query", "pk": "Acme Band"}


@pytest.mark.parametrize(
    ("method", "url", "data", "operation"),
    [
        ("get", TABLES, {}, "ListTables"),
        ("get", TABLES, {}, "DescribeTimeToLive"),
        ("get", MUSIC, READS, "Query"),
        ("get", MUSIC, {"mode": "scan"}, "Scan"),
        ("get", item_url("Acme Band", "Happy Day"), {}, "GetItem"),
        ("get", f"{MUSIC}export/", {**READS, "format": "jsonl"}, "Query"),
        ("get", f"{MUSIC}export/", {**READS, "format": "csv"}, "Query"),
        (
            "post",
            PARTIQL,
            {"statement": """SELECT * FROM "Music" WHERE Artist = 'x'"""},
            "ExecuteStatement",
        ),
        (
            "post",
            PARTIQL,
            {"statement": """DELETE FROM "Music" WHERE Artist = 'x' AND SongTitle = 'y'"""},
            "ExecuteTransaction",
        ),
        (
            "get",
            item_url("Acme Band", "Happy Day").replace("/item/", "/delete/"),
            {},
            "GetItem",
        ),
    ],
)
def test_access_denied_by_dynamodb_is_a_page_naming_the_action(boss, method, url, data, operation):
    with denied(operation):
        response = getattr(boss, method)(url, data)

    # The engine's side, as the rest of the project answers it: no 500, no traceback.
    assert response.status_code == 503
    page = response.content.decode()
    assert f"DynamoDB refused {operation} (AccessDeniedException)" in page
    assert f"dynamodb:{operation}" in page and "IAM permission" in page


def test_a_refused_save_keeps_the_typed_item_and_says_why(boss, music):
    url = item_url("Acme Band", "Happy Day")
    form = form_fields(boss, url)
    typed = json.loads(form["item"])
    typed["AlbumTitle"] = {"S": "Denied"}
    form["item"] = json.dumps(typed)

    with denied("TransactWriteItems"):
        response = boss.post(url, form)

    assert response.status_code == 200
    assert "AccessDeniedException" in response.content.decode()
    assert json.loads(response.context["item_text"])["AlbumTitle"] == {"S": "Denied"}
    assert get_item(music, "Acme Band", "Happy Day").get("AlbumTitle") != {"S": "Denied"}


# --- History of items no model claims ----------------------------------------------------------
def test_history_of_an_item_no_model_claims_links_back_to_its_item_page(boss, music):
    key = {"Artist": {"S": "Acme Band"}, "SongTitle": {"S": "Half/Full 100%"}}
    added = boss.post(f"{MUSIC}add/", {"item": json.dumps({**key, "Awards": {"N": "2"}})})
    assert added.status_code == 302, added.content.decode()
    entry = AdminLog.query("dynamo_admin.table.Music:Acme Band/Half%2FFull 100%25").next()

    link = entry.get_admin_url()
    opened = boss.get(link, follow=True)
    recent = boss.get("/admin/").content.decode()

    assert link.startswith(f"{MUSIC}item/?logged=")
    assert opened.status_code == 200 and opened.context["key"] == key
    assert "Half/Full 100%" in opened.content.decode()
    assert f'href="{escape(link)}"' in recent  # Recent actions link to it too


def test_a_partiql_write_in_history_links_to_its_table(boss, music):
    statement = (
        """UPDATE "Music" SET Awards = 3 WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day'"""
    )
    assert boss.post(PARTIQL, {"statement": statement}).status_code == 302

    entry = AdminLog.query("dynamo_admin.loggedstatement:Music").next()

    assert entry.get_admin_url() == MUSIC


@pytest.mark.parametrize("logged", ["Acme Band", "Acme Band/Happy Day/x", "Acme Band/"])
def test_a_history_link_naming_no_item_of_the_table_is_a_400(boss, logged):
    response = boss.get(f"{MUSIC}item/", {"logged": logged})

    assert response.status_code == 400
    assert "This History link is broken" in response.content.decode()


# --- what the exported policy grants on these tables ------------------------------------------
def test_the_exported_policy_grants_every_call_the_pages_make_on_the_tables_allowed(boss, music):
    """What staff do on the Tables pages of the tables DYNAMO_ADMIN_TABLES adds, metered, is
    what `export_cloudformation`'s policy grants on them: in AWS it works as here."""
    url = item_url("No One You Know", "Odd Song")
    with metered() as meter:
        boss.get(TABLES)
        boss.get(MUSIC, {"mode": "query", "pk": "Acme Band"})
        boss.get(MUSIC, {"mode": "scan", "index": "AlbumTitle-index"})
        boss.get(MUSIC, {"mode": "query", "index": "AlbumTitle-index", "pk": "Songs About Life"})
        form = form_fields(boss, url)
        typed = json.loads(form["item"])
        saved = boss.post(url, {**form, "item": json.dumps({**typed, "Awards": {"N": "3"}})})
        assert saved.status_code == 302
        boss.post(PARTIQL, {"statement": """SELECT * FROM "Music" WHERE Artist = 'Acme Band'"""})
        boss.post(
            PARTIQL,
            {
                "statement": """UPDATE "Music" SET Awards = 2 WHERE Artist = 'Acme Band' """
                """AND SongTitle = 'Happy Day'"""
            },
        )
        listing = boss.get(MUSIC, {"mode": "query", "pk": "Acme Band"})
        keys = [row["key"] for row in listing.context["rows"]]
        asked = boss.post(f"{MUSIC}delete/", {"key": keys})
        deleted = boss.post(f"{MUSIC}delete/", {"shown": asked.context["shown"], "back": ""})
        assert deleted.status_code == 302
    out = StringIO()
    call_command("export_cloudformation", "--prefix", "p-", stdout=out)
    statements = json.loads(out.getvalue())["Resources"]["DynamoDBAccessPolicy"]["Properties"][
        "PolicyDocument"
    ]["Statement"]
    browsed = [s for s in statements if s["Sid"].startswith("Browsed")]

    def granted(action: str, target: str) -> bool:
        return any(
            f"dynamodb:{action}" in s["Action"]
            and any(
                fnmatch.fnmatchcase(target, r["Fn::Sub"].partition(":table/")[2])
                for r in s["Resource"]
            )
            for s in browsed
        )

    performed = {
        (action, target)
        for call in meter.calls
        for action, target in call.targets
        if target.partition("/")[0] in ("Music", "ProductCatalog", "Forum", "Reply")
    }
    assert {a for a, _ in performed} >= {
        *("Query", "Scan", "GetItem", "UpdateItem", "DeleteItem", "DescribeTable"),
        *("DescribeTimeToLive", "PartiQLSelect", "PartiQLUpdate"),
    }
    assert [pair for pair in performed if not granted(*pair)] == []
    assert [r["Fn::Sub"].rpartition("/")[2] for r in browsed[0]["Resource"]] == ALLOWED


def test_a_table_pattern_iam_cannot_name_stops_the_export_saying_why(settings):
    settings.DYNAMO_ADMIN_TABLES = ["Music", "Product[AB]*"]

    with pytest.raises(CommandError, match=r"Product\[AB\]\*.*'\*' and '\?' as wildcards"):
        call_command("export_cloudformation", "--prefix", "p-", stdout=StringIO())
