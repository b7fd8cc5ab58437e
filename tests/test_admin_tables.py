"""The Tables pages over Skillboard's own tables (its prefix, the default): every table is
described and queried, the multi-attribute leaderboard indexes included, and an item edited
as typed JSON keeps its model's version and History."""

from __future__ import annotations

import json
from unittest import mock
from urllib.parse import urlencode

import pytest
from botocore.client import BaseClient
from botocore.exceptions import ClientError
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynamo_admin.models import AdminLog
from dynamo_admin.tests.pages import form_fields
from users.models import User


def test_every_table_of_the_prefix_is_listed_and_opens(admin_client_, dynamo):
    page = admin_client_.get("/admin/tables/").content.decode()
    names = [model.Meta.table_name for model in (User, AdminLog)]

    for name in names:
        assert f'href="/admin/tables/{name}/"' in page
        assert admin_client_.get(f"/admin/tables/{name}/").status_code == 200
    assert 'href="/admin/users/user/"' in page


def test_a_query_of_the_users_table_by_username(admin_client_, alice, bob):
    url = f"/admin/tables/{User.Meta.table_name}/"

    response = admin_client_.get(url, {"mode": "query", "pk": "alice"})

    assert response.status_code == 200
    assert [row["key"] for row in response.context["rows"]] == ['{"username":{"S":"alice"}}']


def alice_renamed(client) -> tuple[str, dict]:
    """Return alice's item page and its form with her name changed in the `item` textarea."""
    key = urlencode({"key": json.dumps({"username": {"S": "alice"}})})
    url = f"/admin/tables/{User.Meta.table_name}/item/?{key}"
    form = form_fields(client, url)
    typed = json.loads(form["item"])
    typed["name"] = {"S": "Alice Pleasance Liddell"}
    form["item"] = json.dumps(typed)
    return url, form


def test_an_item_edit_moves_the_learners_version_and_is_in_its_history(admin_client_, alice):
    url, form = alice_renamed(admin_client_)

    response = admin_client_.post(url, form)

    assert response.status_code == 302, response.content.decode()
    stored = User.get("alice")
    assert stored.name == "Alice Pleasance Liddell" and stored.version == alice.version + 1
    assert stored.password_hash == alice.password_hash  # a secret the page never held
    assert AdminLog.history(stored)[0].changes["name"][1] == {"S": "Alice Pleasance Liddell"}


def test_an_item_save_posted_twice_writes_once_and_refuses_the_retry(admin_client_, alice):
    url, form = alice_renamed(admin_client_)

    first = admin_client_.post(url, form)
    # The same form again, as a browser retrying the POST sends it: the values it showed are
    # gone (the name and the version the first save moved), so it is a raced save.
    again = admin_client_.post(url, form)

    assert first.status_code == 302, first.content.decode()
    assert again.status_code == 200 and "changed since this page read it" in again.content.decode()
    stored = User.get("alice")
    assert stored.name == "Alice Pleasance Liddell" and stored.version == alice.version + 1
    assert [entry.changes["name"][1] for entry in AdminLog.history(stored)] == [
        {"S": "Alice Pleasance Liddell"}
    ]


def test_a_multi_attribute_index_is_listed_queried_and_scanned(admin_client_, alice):
    from stats.models import UserStats

    url = f"/admin/tables/{UserStats.Meta.table_name}/"
    partition = UserStats.get("alice").leaderboard_partition
    chosen = {"index": "gsi_leaderboard_xp"}

    listing = admin_client_.get("/admin/tables/").content.decode()
    # A Query on the partition attribute and the first of the two sort attributes.
    queried = admin_client_.get(
        url, {**chosen, "mode": "query", "pk": partition, "sk_op": ">=", "sk": "100"}
    )
    above = admin_client_.get(
        url, {**chosen, "mode": "query", "pk": partition, "sk_op": ">", "sk": "500"}
    )
    scanned = admin_client_.get(url, {**chosen, "mode": "scan", "f0": "xp", "o0": ">", "v0": "100"})
    xp = UserStats.get("alice").xp
    # The second sort attribute, username, after xp's equality.
    then = {**chosen, "mode": "query", "pk": partition, "sk_op": "=", "sk": str(xp)}
    named = admin_client_.get(url, {**then, "s1_op": "begins_with", "s1": "ali"})
    other = admin_client_.get(url, {**then, "s1_op": ">", "s1": "alice"})

    assert "gsi_leaderboard_xp (global): leaderboard_partition, xp + username" in listing
    page = queried.content.decode()
    assert queried.status_code == 200 and 'id="multi-attribute-key"' in page
    assert "conditions on the sort attributes left to right" in page
    assert '<label for="id_s1_op">username</label>' in page
    assert [row["key"] for row in named.context["rows"]] == ['{"username":{"S":"alice"}}']
    assert other.status_code == 200 and other.context["rows"] == []
    assert [row["key"] for row in queried.context["rows"]] == ['{"username":{"S":"alice"}}']
    assert above.status_code == 200 and above.context["rows"] == []
    assert [row["key"] for row in scanned.context["rows"]] == ['{"username":{"S":"alice"}}']


def test_a_password_hash_is_never_shown_exported_nor_written(admin_client_, alice):
    from django.core import signing

    alice.set_password("correct horse battery")
    alice.save()
    table = f"/admin/tables/{User.Meta.table_name}/"
    key = urlencode({"key": json.dumps({"username": {"S": "alice"}})})
    listing = admin_client_.get(table, {"mode": "query", "pk": "alice"}).content.decode()
    item = admin_client_.get(f"{table}item/?{key}").content.decode()
    export = b"".join(admin_client_.get(f"{table}export/", {"format": "jsonl"})).decode()
    form = form_fields(admin_client_, f"{table}item/?{key}")
    shown = signing.loads(form["shown"], salt=f"dynamo_admin.tables.shown:{User.Meta.table_name}")
    typed = json.loads(form["item"])
    typed["password_hash"] = {"S": "pbkdf2_sha256$forged"}
    refused = admin_client_.post(f"{table}item/?{key}", {**form, "item": json.dumps(typed)})

    for text in (listing, item, export, form["item"], json.dumps(shown)):
        assert alice.password_hash not in text
    assert "password_hash" in item and "********" in item  # there, masked
    assert "is secret" in refused.content.decode()
    assert User.get("alice").password_hash == alice.password_hash


# moto's PartiQL parser takes no `?` parameter in an INSERT's VALUE (the History entry's).
@pytest.mark.engines("local")
def test_partiql_reads_and_writes_a_table_each_write_in_its_history(admin_client_, alice):
    # What the hosts' IAM policy grants for PartiQL (tests/iam_audit.py sees each call).
    table = User.Meta.table_name
    url = f"/admin/tables/{table}/partiql/"
    statements = [
        f"""INSERT INTO "{table}" VALUE {{'username': 'zed', 'name': 'Zed'}}""",
        f"""UPDATE "{table}" SET name = 'Alice P. Liddell' WHERE username = 'alice'""",
        f"""DELETE FROM "{table}" WHERE username = 'zed'""",
    ]

    selected = admin_client_.post(
        url, {"statement": f"""SELECT * FROM "{table}" WHERE username = 'alice'"""}
    )
    written = [admin_client_.post(url, {"statement": statement}) for statement in statements]

    assert selected.status_code == 200, selected.content.decode()
    assert [row["cells"][0] for row in selected.context["rows"]] == ["alice"]
    assert [response.status_code for response in written] == [302, 302, 302]
    assert User.get("alice").name == "Alice P. Liddell"
    assert User.count("zed") == 0
    logged = list(AdminLog.query(f"dynamo_admin.loggedstatement:{table}"))
    assert sorted(entry.changes["PartiQL"][1] for entry in logged) == sorted(statements)


def test_access_denied_is_a_page_naming_the_action_not_the_generic_outage(admin_client_, dynamo):
    send = BaseClient._make_api_call

    def refuse_list_tables(client, name, params):
        if name != "ListTables":
            return send(client, name, params)
        error = {"Code": "AccessDeniedException", "Message": "not authorized: ListTables"}
        raise ClientError({"Error": error, "ResponseMetadata": {"HTTPStatusCode": 400}}, name)

    with mock.patch.object(BaseClient, "_make_api_call", refuse_list_tables):
        response = admin_client_.get("/admin/tables/")

    # What the hosts' role lacks, said where staff see it (EngineFailureMiddleware says less).
    assert response.status_code == 503
    assert "DynamoDB refused ListTables (AccessDeniedException)" in response.content.decode()


texts = st.one_of(
    st.sampled_from(["", "0", "100", "1e309", "alice", "²", "\x00", '"', "a" * 2100]),
    st.text(max_size=20),
)
sort_ops = st.sampled_from(["", "=", "<", ">=", "between", "begins_with", "like"])


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    query=st.fixed_dictionaries(
        {"index": st.just("gsi_leaderboard_xp"), "mode": st.just("query")},
        optional={
            "pk": st.one_of(texts, st.just("ALL")),
            "sk_op": sort_ops,
            "sk": texts,
            "sk2": texts,
            "s1_op": sort_ops,
            "s1": texts,
            "s1_and": texts,
            "s2_op": sort_ops,
            "order": st.sampled_from(["asc", "desc", "x"]),
        },
    )
)
def test_no_condition_on_a_multi_attribute_key_makes_the_page_fail(admin_client_, alice, query):
    from stats.models import UserStats

    response = admin_client_.get(f"/admin/tables/{UserStats.Meta.table_name}/", query)

    assert response.status_code in (200, 400), query
    if response.status_code == 400:
        assert b'id="query-error"' in response.content
