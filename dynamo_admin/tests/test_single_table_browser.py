"""Staff (no superuser) in headless Chromium on the single table `Shop` (samples/single.py):
open a customer, add an order row whose key has the wrong prefix and read why it is refused,
fix it and save; then delete an item no model claims after confirming. No console error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dynamo import tables
from dynamo.models import configure
from dynamo_admin.models import AdminLog

from .conftest import staff
from .engines import empty, point, tables_dropped_after
from .samples.single import SHOP, make_shop_table
from .test_single_table import ITEMS, stored
from .test_tables_browser import chromium  # noqa: F401 (the fixture: Debian's Chromium)

PASSWORD = "correct horse"
CUSTOMERS = "/admin/samples/customer/"


@pytest.fixture(scope="module")
def engine(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_shop_table(engine.client)
        yield engine


@pytest.fixture
def shop(engine) -> Iterator:
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    point(SHOP, engine.endpoint)
    for item in ITEMS:
        engine.client.put_item(TableName="Shop", Item=item)
    yield engine
    empty(engine, "Shop")


@pytest.fixture
def page(chromium, shop, live_server, transactional_db):  # noqa: F811
    """Cleo, staff who may edit customers and their orders and change any table's items."""
    perms = ["view_customer", "change_customer", "view_order", "add_order", "change_order"]
    user = staff("cleo", *(f"samples.{perm}" for perm in perms), "dynamo_admin.change_table")
    user.set_password(PASSWORD)
    user.save()
    context = chromium.new_context()
    page = context.new_page()
    page.set_default_timeout(10_000)
    problems: list[str] = []
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
    page.fill("#id_username", "cleo")
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.site = live_server.url
    try:
        yield page
    finally:
        context.close()
    assert problems == []


def test_staff_add_an_order_row_fixing_its_key_prefix(page, shop):
    page.goto(f"{page.site}{CUSTOMERS}")
    page.click('#result_list a[href$="/CUSTOMER_231,PROFILE/change/"]')
    assert page.input_value("#id_name") == "Ada"

    page.click(".add-row a")  # Django's inlines.js: "Add another Order"
    page.fill("#id_order-1-SK", "INVOICE#2026-12-05#990")
    page.fill("#id_order-1-GSI1PK", "ORDERS")
    page.fill("#id_order-1-total", "12")
    page.click("input[name=_save]")

    assert 'SK starting with "ORDER#"' in page.inner_text(".errorlist")
    assert stored(shop, "CUSTOMER#1", "INVOICE#2026-12-05#990") is None
    page.fill("#id_order-1-SK", "ORDER#2026-12-05#990")
    page.click("input[name=_save]")

    assert page.url.endswith(CUSTOMERS)
    assert "was changed successfully" in page.inner_text(".messagelist")
    assert stored(shop, "CUSTOMER#1", "ORDER#2026-12-05#990")["total"] == {"N": "12"}


def test_staff_delete_an_item_no_model_claims_after_confirming(page, shop):
    page.goto(f"{page.site}{CUSTOMERS}")
    page.click(".unclaimed-link")
    assert page.locator(".unclaimed-item").count() == 2

    page.locator(".unclaimed-row", has_text="WISHLIST#1").locator(".deletelink").click()
    assert "a kettle" in page.inner_text(".unclaimed-item")
    assert stored(shop, "CUSTOMER#1", "WISHLIST#1") is not None
    page.click("input[type=submit]")

    assert "was deleted" in page.inner_text(".messagelist")
    assert page.locator(".unclaimed-item").count() == 1
    assert stored(shop, "CUSTOMER#1", "WISHLIST#1") is None
