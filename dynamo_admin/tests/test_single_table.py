"""Several entity types on one table (samples/single.py), each served by its own admin.

The table `Shop` is made by boto3; customers, orders and settings say which items are theirs
with `item_condition`, payments and refunds with their discriminator. Each test runs on moto
and again on DynamoDB Local.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import boto3
import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.test import Client

from dynamo import tables
from dynamo.models import configure
from dynamo_admin.models import CHANGE, AdminLog
from dynamo_admin.stored import get_item
from dynamo_admin.writes import Cancelled, Write, write_together

from .engines import canonical, empty, point, tables_dropped_after
from .pages import form_fields
from .samples.single import SHOP, Payment, make_shop_table

CUSTOMERS = "/admin/samples/customer/"
ORDERS = "/admin/samples/order/"
SETTINGS = "/admin/samples/setting/"
PAYMENTS = "/admin/samples/payment/"
REFUNDS = "/admin/samples/refund/"
DOES_NOT_EXIST = "doesn\N{RIGHT SINGLE QUOTATION MARK}t exist"


def s(text: str) -> dict:
    return {"S": text}


# Every type's items, and items no model claims (a wish list, an unknown event type).
ITEMS = [
    {"PK": s("CUSTOMER#1"), "SK": s("PROFILE"), "name": s("Ada"), "email": s("ada@x.test")},
    {"PK": s("CUSTOMER#2"), "SK": s("PROFILE"), "name": s("Bob"), "vip": {"BOOL": True}},
    {
        "PK": s("CUSTOMER#1"),
        "SK": s("ORDER#2026-12-01#981"),
        "GSI1PK": s("ORDERS"),
        "GSI1SK": s("2026-12-01"),
        "total": {"N": "40"},
        "status": s("paid"),
    },
    {
        "PK": s("CUSTOMER#2"),
        "SK": s("ORDER#2026-12-02#982"),
        "GSI1PK": s("ORDERS"),
        "GSI1SK": s("2026-12-02"),
        "total": {"N": "15"},
    },
    {"PK": s("SETTING"), "SK": s("SETTING#currency"), "value": s("EUR")},
    {"PK": s("CUSTOMER#1"), "SK": s("EVENT#1"), "type": s("PAYMENT"), "amount": {"N": "40"}},
    {"PK": s("CUSTOMER#1"), "SK": s("EVENT#2"), "type": s("REFUND"), "amount": {"N": "5"}},
    {"PK": s("CUSTOMER#1"), "SK": s("WISHLIST#1"), "note": s("a kettle")},
    {"PK": s("CUSTOMER#2"), "SK": s("EVENT#3"), "type": s("CHARGEBACK")},
]
OWN_KEYS = {
    CUSTOMERS: {("CUSTOMER#1", "PROFILE"), ("CUSTOMER#2", "PROFILE")},
    ORDERS: {("CUSTOMER#1", "ORDER#2026-12-01#981"), ("CUSTOMER#2", "ORDER#2026-12-02#982")},
    SETTINGS: {("SETTING", "SETTING#currency")},
    PAYMENTS: {("CUSTOMER#1", "EVENT#1")},
    REFUNDS: {("CUSTOMER#1", "EVENT#2")},
}
ALL_KEYS = {(item["PK"]["S"], item["SK"]["S"]) for item in ITEMS}


@pytest.fixture(scope="module")
def local_shop(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_shop_table(engine.client)
        yield engine


@pytest.fixture(params=["moto", "local"])
def shop(request, db) -> Iterator:
    """The table `Shop` with ITEMS, on moto or DynamoDB Local, and the admin's log beside it."""
    if request.param == "moto":
        request.getfixturevalue("dynamo")  # a fresh moto, the admin's log made
        options = {"region_name": "us-east-1"}
        engine = SimpleNamespace(
            client=boto3.client("dynamodb", **options),
            resource=boto3.resource("dynamodb", **options),
            endpoint=None,
        )
        make_shop_table(engine.client)
    else:
        engine = request.getfixturevalue("local_shop")
        configure(endpoint=engine.endpoint, region="us-east-1")
        tables.create_missing(AdminLog)
    point(SHOP, engine.endpoint)
    for item in ITEMS:
        engine.client.put_item(TableName="Shop", Item=item)
    yield engine
    if request.param == "local":
        empty(engine, "Shop")


@pytest.fixture
def staff(shop) -> Client:
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("pat", "pat@example.com", "pw"))
    return client


def url(listing: str, pk: str, sk: str, view: str = "change") -> str:
    return f"{listing}{quote(pk)},{quote(sk)}/{view}/"


def listed_keys(page: str, listing: str) -> set[tuple[str, str]]:
    """Return the keys whose change links the listing shows."""
    return {key for key in ALL_KEYS if url(listing, *key) in page}


def whole_table(engine) -> list[str]:
    return canonical(engine.client.scan(TableName="Shop", ConsistentRead=True)["Items"])


def stored(engine, pk: str, sk: str) -> dict | None:
    key = {"PK": s(pk), "SK": s(sk)}
    return engine.client.get_item(TableName="Shop", Key=key, ConsistentRead=True).get("Item")


@pytest.mark.parametrize("listing", list(OWN_KEYS))
def test_each_type_lists_exactly_its_own_items(staff, listing):
    response = staff.get(listing)

    assert response.status_code == 200
    assert listed_keys(response.content.decode(), listing) == OWN_KEYS[listing]


@pytest.mark.parametrize("view", ["change", "delete", "history", "raw"])
def test_another_type_s_key_under_a_model_s_url_does_not_exist(staff, shop, view):
    # An order's key under the customers' URL, a refund's under the payments', a key no
    # model claims under the orders'.
    others = [
        (CUSTOMERS, ("CUSTOMER#1", "ORDER#2026-12-01#981")),
        (PAYMENTS, ("CUSTOMER#1", "EVENT#2")),
        (ORDERS, ("CUSTOMER#1", "WISHLIST#1")),
    ]
    for listing, key in others:
        if view == "history" and listing == PAYMENTS:
            continue  # a History reads no item: a key alone cannot tell a payment's
        response = staff.get(url(listing, *key, view), follow=True)

        assert response.redirect_chain == [(listing, 302)]
        assert DOES_NOT_EXIST in response.content.decode()
    before = whole_table(shop)
    staff.post(url(CUSTOMERS, "CUSTOMER#1", "ORDER#2026-12-01#981", "delete"), {"post": "yes"})
    assert whole_table(shop) == before


def test_an_action_on_another_type_s_key_changes_nothing(staff, shop):
    before = whole_table(shop)
    order_id = f"{quote('CUSTOMER#1')},{quote('ORDER#2026-12-01#981')}"

    response = staff.post(
        CUSTOMERS, {"action": "delete_selected", "_selected_action": [order_id], "post": "yes"}
    )

    assert response.status_code == 302
    assert whole_table(shop) == before


def test_a_new_item_s_key_must_satisfy_the_condition(staff, shop):
    before = whole_table(shop)

    response = staff.post(f"{SETTINGS}add/", {"PK": "CUSTOMER#9", "SK": "PROFILE", "value": "x"})

    page = response.content.decode()
    assert response.status_code == 200
    assert "This is not a setting: its key must have PK equal to &quot;SETTING&quot;" in page
    assert "SK starting with &quot;SETTING#&quot;" in page
    assert whole_table(shop) == before


def test_a_new_item_with_a_key_of_its_type_is_added(staff, shop):
    response = staff.post(
        f"{SETTINGS}add/", {"PK": "SETTING", "SK": "SETTING#language", "value": "fr"}
    )

    assert response.status_code == 302
    assert stored(shop, "SETTING", "SETTING#language") == {
        "PK": s("SETTING"),
        "SK": s("SETTING#language"),
        "value": s("fr"),
    }


def test_an_edit_leaves_every_other_attribute_and_item_as_stored(staff, shop):
    change = url(CUSTOMERS, "CUSTOMER#2", "PROFILE")
    form = form_fields(staff, change)
    before = whole_table(shop)
    profile = stored(shop, "CUSTOMER#2", "PROFILE")
    form["name"] = "Bobby"

    assert staff.post(change, form).status_code == 302

    assert stored(shop, "CUSTOMER#2", "PROFILE") == {**profile, "name": s("Bobby")}
    others = [line for line in before if '"Bob"' not in line]
    assert set(others) <= set(whole_table(shop))


def test_a_save_never_turns_another_type_s_item_into_this_one(staff, shop):
    change = url(PAYMENTS, "CUSTOMER#1", "EVENT#1")
    form = form_fields(staff, change)
    # Meanwhile the item at that key became a refund.
    refund = {"PK": s("CUSTOMER#1"), "SK": s("EVENT#1"), "type": s("REFUND"), "amount": {"N": "9"}}
    shop.client.put_item(TableName="Shop", Item=refund)
    form["method"] = "card"

    response = staff.post(change, form)

    assert response.status_code == 302  # no such payment any more: "doesn't exist"
    assert stored(shop, "CUSTOMER#1", "EVENT#1") == refund


def test_a_write_is_conditioned_on_the_stored_item_being_still_its_type(shop):
    payment = get_item(Payment, ("CUSTOMER#1", "EVENT#1"), consistent_read=True)
    refund = {"PK": s("CUSTOMER#1"), "SK": s("EVENT#1"), "type": s("REFUND"), "amount": {"N": "9"}}
    shop.client.put_item(TableName="Shop", Item=refund)  # after the read, before the write
    payment.method = "card"

    with pytest.raises(Cancelled):
        write_together([Write(None, None, payment, CHANGE, {"method": [None, "card"]})], "pat")
    assert stored(shop, "CUSTOMER#1", "EVENT#1") == refund


def test_a_condition_s_index_key_is_read_only_once_stored(staff, shop):
    form = form_fields(staff, url(ORDERS, "CUSTOMER#1", "ORDER#2026-12-01#981"))

    assert "GSI1PK" not in form and "status" in form


def test_the_export_holds_only_the_model_s_items(staff):
    response = staff.get(f"{CUSTOMERS}export/", {"format": "jsonl"})

    text = b"".join(response.streaming_content).decode()
    assert text.count('"PROFILE"') == 2 and "ORDER#" not in text and "WISHLIST" not in text
