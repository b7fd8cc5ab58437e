"""Several entity types on one table (samples/single.py), each served by its own admin.

The table `Shop` is made by boto3; customers, orders and settings say which items are theirs
with `item_condition`, payments and refunds with their discriminator. Each test runs on moto
and again on DynamoDB Local.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from io import StringIO
from unittest.mock import patch

import pytest
from django.contrib import admin as django_admin
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.core.management import call_command
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pynamodb.attributes import UnicodeAttribute
from pynamodb.models import Model as PynamoModel

from dynamo.batch import get_together
from dynamo_admin import ModelAdmin, TabularInline
from dynamo_admin.models import CHANGE
from dynamo_admin.permissions import registered_models
from dynamo_admin.sites import DynamoAdminSite
from dynamo_admin.sources import unclaimed_items
from dynamo_admin.stored import get_item, load
from dynamo_admin.writes import Cancelled, Write, write_together

from .conftest import logged_in
from .conftest import staff as staff_user
from .engines import ENGINES, SESSION, canonical, empty, engine_for, point, tables_dropped_after
from .pages import form_fields
from .samples.admin import CustomerAdmin
from .samples.single import (
    SHOP,
    Customer,
    Order,
    Payment,
    Refund,
    Setting,
    ShopMeta,
    make_shop_table,
)

# Models of the samples app: the package's tests install that app, not this module's
# folder (dynamo_admin.tests in the checkout, dynamo_admin_tests beside the wheel).
SAMPLES = f"{__package__}.samples"
CUSTOMERS = "/admin/samples/customer/"
ORDERS = "/admin/samples/order/"
SETTINGS = "/admin/samples/setting/"
SHIPMENTS = "/admin/samples/shipment/"
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
    {
        "PK": s("SHIPMENT#7"),
        "SK": s("SHIPMENT"),
        "GSI1PK": s("CUSTOMER#1"),
        "GSI1SK": s("SHIPMENT#2026-12-03"),
        "carrier": s("Post"),
    },
    {"PK": s("CUSTOMER#1"), "SK": s("EVENT#1"), "type": s("PAYMENT"), "amount": {"N": "40"}},
    {"PK": s("CUSTOMER#1"), "SK": s("EVENT#2"), "type": s("REFUND"), "amount": {"N": "5"}},
    {"PK": s("CUSTOMER#1"), "SK": s("WISHLIST#1"), "note": s("a kettle")},
    {"PK": s("CUSTOMER#2"), "SK": s("EVENT#3"), "type": s("CHARGEBACK")},
]
OWN_KEYS = {
    CUSTOMERS: {("CUSTOMER#1", "PROFILE"), ("CUSTOMER#2", "PROFILE")},
    ORDERS: {("CUSTOMER#1", "ORDER#2026-12-01#981"), ("CUSTOMER#2", "ORDER#2026-12-02#982")},
    SETTINGS: {("SETTING", "SETTING#currency")},
    SHIPMENTS: {("SHIPMENT#7", "SHIPMENT")},
    PAYMENTS: {("CUSTOMER#1", "EVENT#1")},
    REFUNDS: {("CUSTOMER#1", "EVENT#2")},
}
ALL_KEYS = {(item["PK"]["S"], item["SK"]["S"]) for item in ITEMS}


@pytest.fixture(scope="module")
def local_shop(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_shop_table(engine.client)
        yield engine


@pytest.fixture(params=ENGINES)
def shop(request, db) -> Iterator:
    """The table `Shop` with ITEMS, on moto or DynamoDB Local, and the admin's log beside it."""
    engine = engine_for(request, "local_shop", make_shop_table)
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
        response = staff.get(url(listing, *key, view), follow=True)

        assert response.redirect_chain == [(listing, 302)]
        assert DOES_NOT_EXIST in response.content.decode()
    before = whole_table(shop)
    staff.post(url(CUSTOMERS, "CUSTOMER#1", "ORDER#2026-12-01#981", "delete"), {"post": "yes"})
    assert whole_table(shop) == before


@pytest.mark.parametrize("listing", list(OWN_KEYS))
def test_each_type_s_own_item_has_a_history(staff, listing):
    key = sorted(OWN_KEYS[listing])[0]

    response = staff.get(url(listing, *key, "history"))

    assert response.status_code == 200
    calls = [call.operation for call in response.wsgi_request.dynamo_meter.calls]
    # A condition reading more than the key (a discriminator, GSI1PK) costs one GetItem.
    assert calls.count("GetItem") == (0 if listing in (CUSTOMERS, SETTINGS, SHIPMENTS) else 1)


def test_a_deleted_item_s_history_is_its_model_s_only(staff, shop):
    payment = url(PAYMENTS, "CUSTOMER#1", "EVENT#1", "delete")
    assert staff.post(payment, {"post": "yes"}).status_code == 302

    assert staff.get(url(PAYMENTS, "CUSTOMER#1", "EVENT#1", "history")).status_code == 200
    response = staff.get(url(REFUNDS, "CUSTOMER#1", "EVENT#1", "history"), follow=True)
    assert response.redirect_chain == [(REFUNDS, 302)]


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


# --- listing by the cheapest exact read -----------------------------------------------------
@pytest.mark.parametrize(
    ("listing", "read", "described"),
    [
        (SETTINGS, ("Query", "Shop"), "Query of the table by key"),
        (ORDERS, ("Query", "Shop/index/GSI1"), "Query of the index GSI1"),
        (PAYMENTS, ("Query", "Shop/index/ByType"), "Query of the index ByType"),
        (CUSTOMERS, ("Scan", "Shop"), "Scan of the table kept to this type"),
    ],
)
def test_each_type_is_listed_by_the_cheapest_exact_read(staff, listing, read, described):
    response = staff.get(listing)

    assert [c.targets[0] for c in response.wsgi_request.dynamo_meter.calls] == [read]
    assert described in response.content.decode()


def test_a_filtered_scan_says_what_it_read_and_kept(staff):
    page = staff.get(CUSTOMERS).content.decode()

    assert f"read {len(ITEMS)} items, kept 2" in page and "RCU" in page


def test_a_filtered_scan_reads_on_until_its_budget_then_says_so(staff, shop, monkeypatch):
    for number in range(30):  # orders enough that a customer is far behind them
        order = {"PK": s(f"CUSTOMER#{number + 10}"), "SK": s(f"ORDER#{number}")}
        shop.client.put_item(TableName="Shop", Item=order)
    monkeypatch.setattr(CustomerAdmin, "list_read_budget", 5)
    monkeypatch.setattr(CustomerAdmin, "list_per_page", 2)

    seen, listing, spent = [], CUSTOMERS, False
    for _page in range(20):
        response = staff.get(listing)
        page = response.content.decode()
        assert {c.targets[0] for c in response.wsgi_request.dynamo_meter.calls} == {
            ("Scan", "Shop")
        }
        assert int(re.search(r"read (\d+) items?,", page).group(1)) <= 5
        seen += sorted(listed_keys(page, CUSTOMERS))
        spent = spent or "read budget (5 items) ran out" in page
        listing = next_link(CUSTOMERS, page)
        if listing is None:
            break

    assert spent
    assert sorted(seen) == sorted(OWN_KEYS[CUSTOMERS])  # every customer once, none lost


def next_link(listing: str, page: str) -> str | None:
    """Return the listing's Next link (rel="next"), or None on the last page."""
    found = re.search(r'<a href="([^"]+)" rel="next"', page)
    return listing + html.unescape(found.group(1)) if found else None


def make_item(kind: str, number: int) -> dict:
    """Return one stored item of a kind (the admins' types, and two no model claims)."""
    customer = s(f"CUSTOMER#{number % 3}")
    return {
        "customer": {"PK": s(f"CUSTOMER#{number}"), "SK": s("PROFILE"), "name": s("N")},
        "order": {
            "PK": customer,
            "SK": s(f"ORDER#{number:03d}"),
            "GSI1PK": s("ORDERS"),
            "GSI1SK": s(f"2026-12-{number % 28 + 1:02d}"),
        },
        "setting": {"PK": s("SETTING"), "SK": s(f"SETTING#{number}")},
        "payment": {"PK": customer, "SK": s(f"EVENT#{number:03d}"), "type": s("PAYMENT")},
        "refund": {"PK": customer, "SK": s(f"EVENT#{number:03d}"), "type": s("REFUND")},
        "wish": {"PK": customer, "SK": s(f"WISHLIST#{number}")},
        "chargeback": {"PK": customer, "SK": s(f"EVENT#{number:03d}"), "type": s("CHARGE")},
    }[kind]


SHOP_MODELS = {
    "customer": Customer,
    "order": Order,
    "setting": Setting,
    "payment": Payment,
    "refund": Refund,
}
READS = {
    CUSTOMERS: ("Scan", "Shop"),
    ORDERS: ("Query", "Shop/index/GSI1"),
    SETTINGS: ("Query", "Shop"),
    PAYMENTS: ("Query", "Shop/index/ByType"),
    REFUNDS: ("Query", "Shop/index/ByType"),
}
LISTINGS = {
    "customer": CUSTOMERS,
    "order": ORDERS,
    "setting": SETTINGS,
    "payment": PAYMENTS,
    "refund": REFUNDS,
}


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    mix=st.lists(st.sampled_from([*LISTINGS, "wish", "chargeback"]), max_size=14),
    per_page=st.integers(1, 4),
    budget=st.integers(2, 9),
)
def test_every_type_s_pages_hold_exactly_its_items(staff, shop, mix, per_page, budget):
    for item in shop.client.scan(TableName="Shop", ConsistentRead=True)["Items"]:
        shop.client.delete_item(TableName="Shop", Key={"PK": item["PK"], "SK": item["SK"]})
    stored_items = {}
    for number, kind in enumerate(mix):
        item = make_item(kind, number)
        shop.client.put_item(TableName="Shop", Item=item)
        stored_items[(item["PK"]["S"], item["SK"]["S"])] = kind
    for kind, listing in LISTINGS.items():
        admin_class = type(django_admin.site.get_model_admin(SHOP_MODELS[kind]))
        with (
            patch.object(admin_class, "list_per_page", per_page),
            patch.object(admin_class, "list_read_budget", budget),
        ):
            seen = walk(staff, listing, set(stored_items), per_page)
        assert sorted(seen) == sorted(k for k, v in stored_items.items() if v == kind), kind


def walk(client, listing: str, keys: set, per_page: int) -> list:
    """Return every key the listing's pages show, following Next.

    Each page's calls are all its type's one read (READS), and a page short of per_page
    before the last one says that its read budget ran out.
    """
    seen, url_now = [], listing
    for _page in range(60):
        response = client.get(url_now)
        page = response.content.decode()
        assert {c.targets[0] for c in response.wsgi_request.dynamo_meter.calls} == {READS[listing]}
        shown = [key for key in keys if url(listing, *key) in page]
        seen += shown
        url_now = next_link(listing, page)
        if url_now is None:
            return seen
        assert len(shown) == per_page or "read budget" in page
    raise AssertionError("the listing never ended")


# --- item collections as inlines --------------------------------------------------------------
def test_a_customer_s_orders_inline_is_its_orders_only_in_one_query(staff):
    response = staff.get(url(CUSTOMERS, "CUSTOMER#1", "PROFILE"))

    page = response.content.decode()
    targets = [c.targets[0] for c in response.wsgi_request.dynamo_meter.calls]
    # The customer in one BatchGetItem; each inline one Query (shipments: of the index).
    assert sorted(targets) == [
        ("BatchGetItem", "Shop"),
        ("Query", "Shop"),
        ("Query", "Shop"),
        ("Query", "Shop/index/GSI1"),
    ]
    assert "ORDER#2026-12-01#981" in page and "EVENT#1" in page
    # Not another customer's order, nor this customer's refund, wish list or profile as a row.
    assert "ORDER#2026-12-02#982" not in page
    assert "EVENT#2" not in page and "WISHLIST#1" not in page
    assert 'name="order-INITIAL_FORMS" value="1"' in page
    assert 'name="payment-INITIAL_FORMS" value="1"' in page


def with_new_order(form: dict, **values: str) -> dict:
    """Return the customer's form with one new order row filled in."""
    at = int(form["order-TOTAL_FORMS"])
    row = {f"order-{at}-{name}": value for name, value in values.items()}
    return {**form, **row, "order-TOTAL_FORMS": str(at + 1)}


def test_a_new_row_must_satisfy_the_child_s_condition(staff, shop):
    change = url(CUSTOMERS, "CUSTOMER#1", "PROFILE")
    before = whole_table(shop)
    form = with_new_order(form_fields(staff, change), SK="WISHLIST#2", GSI1PK="ORDERS")

    response = staff.post(change, form)

    assert response.status_code == 200
    assert "its key must have SK starting with &quot;ORDER#&quot;" in response.content.decode()
    assert whole_table(shop) == before


def test_the_parent_and_a_new_row_are_written_in_one_transaction(staff, shop):
    change = url(CUSTOMERS, "CUSTOMER#1", "PROFILE")
    form = with_new_order(
        form_fields(staff, change), SK="ORDER#2026-12-05#990", GSI1PK="ORDERS", total="12"
    )
    form["name"] = "Ada L."

    response = staff.post(change, form)

    assert response.status_code == 302
    writes = [c.operation for c in response.wsgi_request.dynamo_meter.calls]
    assert writes.count("TransactWriteItems") == 1
    assert stored(shop, "CUSTOMER#1", "PROFILE")["name"] == s("Ada L.")
    assert stored(shop, "CUSTOMER#1", "ORDER#2026-12-05#990") == {
        "PK": s("CUSTOMER#1"),  # the parent's hash key
        "SK": s("ORDER#2026-12-05#990"),
        "GSI1PK": s("ORDERS"),
        "total": {"N": "12"},
    }


# --- checks ---------------------------------------------------------------------------------
def check_ids(admin_class, model) -> list[str]:
    return [message.id for message in admin_class(model, django_admin.site).check()]


def test_a_type_only_a_scan_lists_is_warned_naming_an_index(shop):
    [warning] = CustomerAdmin(Customer, django_admin.site).check()

    assert warning.id == "dynamo_admin.W013"
    assert "sparse global index" in warning.hint


def test_an_item_condition_on_an_attribute_no_key_holds_is_refused():
    admin_class = type("OrderAdmin", (ModelAdmin,), {"item_condition": Order.status == "paid"})

    assert check_ids(admin_class, Order) == ["dynamo_admin.E012"]


class Note(PynamoModel):
    """A plain model on the shop's table that no admin says anything about."""

    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)


def test_an_inline_sharing_its_parent_s_table_without_a_condition_is_refused():
    inline = type("Rows", (TabularInline,), {"model": Note, "fk_name": "PK"})
    admin_class = type(
        "ParentAdmin", (ModelAdmin,), {"inlines": [inline], "item_condition": Order.SK == "X"}
    )

    assert "dynamo_admin.E013" in check_ids(admin_class, Order)


# --- items no model claims ------------------------------------------------------------------
UNCLAIMED = f"{CUSTOMERS}unclaimed/"
UNCLAIMED_KEYS = {("CUSTOMER#1", "WISHLIST#1"), ("CUSTOMER#2", "EVENT#3")}


def test_unclaimed_items_are_the_ones_no_model_serves(shop):
    page = unclaimed_items("Shop")

    assert {(raw["PK"]["S"], raw["SK"]["S"]) for raw in page.items} == UNCLAIMED_KEYS
    assert page.cost.read == len(ITEMS) and page.next_start is None


def test_the_listing_links_to_the_items_no_model_claims_which_are_shown_as_stored(staff):
    assert f'href="{ORDERS}unclaimed/"' in staff.get(ORDERS).content.decode()

    page = html.unescape(staff.get(UNCLAIMED).content.decode())

    assert page.count('class="unclaimed-item"') == 2
    assert '"S": "WISHLIST#1"' in page and '"S": "CHARGEBACK"' in page
    assert '"S": "PROFILE"' not in page and "ORDER#" not in page


def test_an_unclaimed_item_is_deleted_after_a_confirmation(staff, shop):
    key = '{"PK": {"S": "CUSTOMER#1"}, "SK": {"S": "WISHLIST#1"}}'
    before = whole_table(shop)

    confirmation = staff.get(UNCLAIMED, {"delete": key})
    assert "a kettle" in confirmation.content.decode()
    assert whole_table(shop) == before
    response = staff.post(UNCLAIMED, {"key": key})

    assert response.status_code == 302
    assert stored(shop, "CUSTOMER#1", "WISHLIST#1") is None
    assert len(whole_table(shop)) == len(before) - 1


def test_a_claimed_item_is_not_deleted_from_the_unclaimed_page(staff, shop):
    before = whole_table(shop)

    staff.post(UNCLAIMED, {"key": '{"PK": {"S": "CUSTOMER#1"}, "SK": {"S": "PROFILE"}}'})

    assert whole_table(shop) == before


WISHLIST_KEY = '{"PK": {"S": "CUSTOMER#1"}, "SK": {"S": "WISHLIST#1"}}'


def test_a_model_s_every_permission_does_not_delete_an_item_no_model_claims(shop):
    # The item may be any type's or none's: it is the table's, so is the permission.
    perms = [f"samples.{verb}_{name}" for verb in ("view", "delete") for name in ("customer",)]
    viewer = logged_in(staff_user("val", *perms))

    page = viewer.get(UNCLAIMED)
    assert page.status_code == 200 and "deletelink" not in page.content.decode()
    assert viewer.get(UNCLAIMED, {"delete": WISHLIST_KEY}).status_code == 403
    assert viewer.post(UNCLAIMED, {"key": WISHLIST_KEY}).status_code == 403
    assert stored(shop, "CUSTOMER#1", "WISHLIST#1") is not None


def test_the_table_s_change_permission_deletes_an_item_no_model_claims(shop):
    keeper = logged_in(staff_user("tom", "dynamo_admin.change_table"))

    page = keeper.get(UNCLAIMED)
    assert page.status_code == 200 and "deletelink" in page.content.decode()
    assert keeper.post(UNCLAIMED, {"key": WISHLIST_KEY}).status_code == 302
    assert stored(shop, "CUSTOMER#1", "WISHLIST#1") is None


def test_the_table_s_view_permission_sees_items_no_model_claims_but_not_a_model_s(shop, settings):
    settings.DYNAMO_ADMIN_TABLES = ["Shop"]
    reader = logged_in(staff_user("tia", "dynamo_admin.view_table"))

    page = reader.get(UNCLAIMED)
    assert page.status_code == 200
    assert 'href="/admin/tables/Shop/"' in page.content.decode()  # whence they came
    assert reader.get(CUSTOMERS).status_code == 403
    assert reader.post(UNCLAIMED, {"key": WISHLIST_KEY}).status_code == 403


def test_no_view_permission_on_the_table_or_its_models_sees_no_unclaimed_item(shop):
    stranger = logged_in(staff_user("sid", "auth.view_user"))

    assert stranger.get(UNCLAIMED).status_code == 403


def test_the_tables_page_of_a_shared_table_links_the_items_no_model_claims(shop, settings):
    settings.DYNAMO_ADMIN_TABLES = ["Shop"]
    reader = logged_in(staff_user("tia", "dynamo_admin.view_table"))

    page = reader.get("/admin/tables/Shop/").content.decode()

    link = re.search(r'href="([^"]+)" class="unclaimed-link"', page)
    assert link is not None
    assert reader.get(link.group(1)).content.decode().count('class="unclaimed-item"') == 2


def test_a_key_search_on_a_shared_partition_reads_only_the_type_s_items(staff):
    response = staff.get(CUSTOMERS, {"q": "CUSTOMER#1"})

    page = response.content.decode()
    assert [c.targets[0] for c in response.wsgi_request.dynamo_meter.calls] == [("Query", "Shop")]
    assert listed_keys(page, CUSTOMERS) == {("CUSTOMER#1", "PROFILE")}
    # Its range condition (SK = PROFILE) kept the orders, events and wish list unread.
    assert "read 1 item, kept 1" in page


def test_an_adjacency_list_inline_is_one_query_of_the_index(staff, shop):
    change = url(CUSTOMERS, "CUSTOMER#1", "PROFILE")
    page = staff.get(change).content.decode()
    assert 'name="shipment-INITIAL_FORMS" value="1"' in page and "Post" in page
    form = form_fields(staff, change)
    form["shipment-0-carrier"] = "Courier"

    assert staff.post(change, form).status_code == 302
    assert stored(shop, "SHIPMENT#7", "SHIPMENT")["carrier"] == s("Courier")
    assert 'name="shipment-INITIAL_FORMS" value="0"' in (
        staff.get(url(CUSTOMERS, "CUSTOMER#2", "PROFILE")).content.decode()
    )


# --- the other doors --------------------------------------------------------------------------
def test_an_import_refuses_another_type_s_key_and_changes_only_what_it_names(shop, tmp_path):
    path = tmp_path / "customers.csv"
    path.write_text(
        "PK,SK,name,email\n"
        "CUSTOMER#2,PROFILE,Robert,\n"  # changed: the name only
        "CUSTOMER#1,ORDER#2026-12-01#981,Mallory,\n"  # an order's key: refused
    )
    before = whole_table(shop)
    profile = stored(shop, "CUSTOMER#2", "PROFILE")

    out = StringIO()
    call_command("import_items", "samples.Customer", str(path), "--skip-refused", stdout=out)

    assert "line 3: refused" in out.getvalue()
    assert stored(shop, "CUSTOMER#2", "PROFILE") == {**profile, "name": s("Robert")}
    others = [line for line in before if '"Bob"' not in line]
    assert set(others) <= set(whole_table(shop)) and len(whole_table(shop)) == len(before)


def test_the_change_field_action_skips_another_type_s_selected_key(staff, shop):
    before = whole_table(shop)
    chosen = [
        f"{quote('CUSTOMER#1')},{quote('ORDER#2026-12-01#981')}",  # an order under customers
    ]

    response = staff.post(
        CUSTOMERS,
        {"action": "change_field", "_selected_action": chosen, "step": "choose", "field": "name"},
    )

    assert response.status_code == 302  # nothing selected that is a customer
    assert whole_table(shop) == before


def test_a_declared_key_prefix_is_searched_and_shown_by_the_part_after_it(staff):
    for typed in ("2", "CUSTOMER#2"):
        page = staff.get(CUSTOMERS, {"q": typed}).content.decode()

        assert listed_keys(page, CUSTOMERS) == {("CUSTOMER#2", "PROFILE")}, typed
        assert ">2</a></th>" in page and ">CUSTOMER#2<" not in page  # its column: the number


def test_one_batch_get_makes_each_item_by_the_model_it_was_asked_for(shop):
    wanted = [
        (Customer, ("CUSTOMER#1", "PROFILE")),
        (Order, ("CUSTOMER#1", "ORDER#2026-12-01#981")),
        (Customer, ("CUSTOMER#1", "ORDER#2026-12-01#981")),  # an order asked as a customer
    ]

    customer, order, nothing = get_together(wanted, consistent_read=True, load=load)

    assert isinstance(customer, Customer) and customer.name == "Ada"
    assert isinstance(order, Order) and order.total == 40
    assert nothing is None


class Label(PynamoModel):
    """Labels and colours share a table keyed by `id` alone (`LABEL#…`, `COLOUR#…`)."""

    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(ShopMeta):
        table_name = "Tags"

    id = UnicodeAttribute(hash_key=True)
    text = UnicodeAttribute(null=True)


class Colour(PynamoModel):
    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(ShopMeta):
        table_name = "Tags"

    id = UnicodeAttribute(hash_key=True)
    rgb = UnicodeAttribute(null=True)


@pytest.fixture
def tags_site() -> Iterator[DynamoAdminSite]:
    """A site of its own serving labels and colours, its models unlisted afterwards."""
    site = DynamoAdminSite(name="tags")
    yield site
    for model in (Label, Colour):
        if model in registered_models:
            registered_models.remove(model)


def test_autocomplete_never_answers_with_another_type_s_item(dynamo, tags_site):
    site = tags_site
    site.register(
        Label, type("LabelAdmin", (ModelAdmin,), {"item_condition": Label.id.startswith("LABEL#")})
    )
    site.register(
        Colour,
        type("ColourAdmin", (ModelAdmin,), {"item_condition": Colour.id.startswith("COLOUR#")}),
    )
    point([Label, Colour], None)
    SESSION.client("dynamodb", region_name="us-east-1").create_table(
        TableName="Tags",
        KeySchema=[{"AttributeName": "id", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "id", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    Label("LABEL#1", text="urgent").save()
    Colour("COLOUR#1", rgb="#f00").save()
    labels = site.get_model_admin(Label)

    assert [item.id for item in labels.get_autocomplete_results(None, "LABEL#1")] == ["LABEL#1"]
    assert labels.get_autocomplete_results(None, "COLOUR#1") == []


def test_a_list_filter_on_an_index_keyed_by_the_discriminator_is_one_query(staff, monkeypatch):
    # ByType is partitioned by `type`: DynamoDB refuses a filter expression on it, so the
    # discriminator's own condition cannot ride along as PynamoDB would add it.
    payments = django_admin.site.get_model_admin(Payment)
    monkeypatch.setattr(payments, "list_filter", ("type",))

    chosen = staff.get(PAYMENTS, {"type": "PAYMENT"})
    other = staff.get(PAYMENTS, {"type": "REFUND"})

    assert chosen.status_code == 200 and other.status_code == 200
    assert listed_keys(chosen.content.decode(), PAYMENTS) == OWN_KEYS[PAYMENTS]
    assert listed_keys(other.content.decode(), PAYMENTS) == set()
    calls = [c.operation for c in chosen.wsgi_request.dynamo_meter.calls]
    assert calls == ["Query"]
