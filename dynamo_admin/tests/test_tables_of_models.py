"""The Tables pages over the library's own tables (moto): the default allowed list, a
versioned model's item edited as typed JSON, and generated query strings that never 5xx."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.conf import settings as django_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from library.models import Shelf

from dynamo_admin.console import FILTER_OPERATORS, SORT_OPERATORS
from dynamo_admin.models import AdminLog

from .engines import SESSION
from .pages import form_fields

SHELVES = Shelf.Meta.table_name
ITEM = f"/admin/tables/{SHELVES}/item/?" + urlencode({"key": json.dumps({"code": {"S": "F1"}})})


def test_by_default_the_tables_under_the_prefix_are_browsed(librarian):
    client = SESSION.client("dynamodb", region_name="us-east-1")
    client.create_table(
        TableName="Elsewhere",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )

    page = librarian.get("/admin/tables/").content.decode()

    assert django_settings.DYNAMODB_TABLE_PREFIX + "shelves" in page
    assert 'href="/admin/library/shelf/"' in page  # the model on it, linked
    assert "Elsewhere" not in page
    assert librarian.get("/admin/tables/Elsewhere/").status_code == 404


def test_an_edit_of_a_versioned_item_moves_its_version_and_logs_under_its_model(librarian, fiction):
    change_page = form_fields(librarian, "/admin/library/shelf/F1/change/")
    form = form_fields(librarian, ITEM)
    form["item"] = form["item"].replace("Fiction, ground floor", "Fiction, first floor")

    response = librarian.post(ITEM, form)

    assert response.status_code == 302, response.content.decode()
    shelf = Shelf.get("F1")
    assert (shelf.name, shelf.version) == ("Fiction, first floor", 2)
    assert AdminLog.history(shelf)[0].changes == {
        "name": [{"S": "Fiction, ground floor"}, {"S": "Fiction, first floor"}]
    }
    # The model's change page read version 1: its save is refused, nothing is lost.
    change_page["name"] = "Stale"
    librarian.post("/admin/library/shelf/F1/change/", change_page)
    assert Shelf.get("F1").name == "Fiction, first floor"


def test_a_forged_page_of_another_table_is_refused(librarian, fiction):
    shown = form_fields(librarian, ITEM)["shown"]
    books = f"/admin/tables/{django_settings.DYNAMODB_TABLE_PREFIX}books/item/?" + urlencode(
        {"key": json.dumps({"shelf": {"S": "F1"}, "isbn": {"S": "9780141439518"}})}
    )

    response = librarian.post(books, {"shown": shown, "item": "{}"})

    assert response.status_code == 400


texts = st.one_of(
    st.sampled_from(["", "F1", "0", "1e309", "²", "\x00", "=", '"', "{}", "a" * 2100]),
    st.text(max_size=30),
)
queries = st.fixed_dictionaries(
    {},
    optional={
        "mode": st.sampled_from(["query", "scan", "", "other"]),
        "index": st.sampled_from(["", "gsi_genre", "nope"]),
        "pk": texts,
        "sk_op": st.sampled_from([*SORT_OPERATORS, "", "like"]),
        "sk": texts,
        "sk2": texts,
        "order": st.sampled_from(["asc", "desc", "x"]),
        "f0": st.sampled_from(["title", "copies", "isbn", "", "a.b", "#x"]),
        "o0": st.sampled_from([*FILTER_OPERATORS, "bad"]),
        "v0": texts,
        "w0": texts,
        "t0": st.sampled_from(["", "S", "N", "B", "BOOL", "NULL", "X"]),
        "columns": texts,
        "per_page": texts,
        "cursor": texts,
        "confirm": texts,
    },
)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(query=queries)
def test_no_query_string_makes_a_table_page_fail(librarian, fiction, query):
    books = f"/admin/tables/{django_settings.DYNAMODB_TABLE_PREFIX}books/"
    for url in (books, f"{books}export/", ITEM.split("?")[0]):
        response = librarian.get(url, query)
        if url.endswith("export/") and response.status_code == 200:
            b"".join(response.streaming_content)
        assert response.status_code < 500, (url, query)
