"""The shop (shop/models.py): customers, orders and order lines in one table made by boto3,
each type with its own admin, served end to end on DynamoDB Local by runserver."""

from __future__ import annotations

import re

import pytest
from conftest import PASSWORD, Browser, form_fields

CUSTOMERS, ORDERS, LINES = "/admin/shop/customer/", "/admin/shop/order/", "/admin/shop/orderline/"
ADA = f"{CUSTOMERS}CUSTOMER_231,PROFILE/change/"  # Django's quote(): '#' is '_23'


@pytest.fixture
def staff(served) -> Browser:
    base, _created = served
    browser = Browser(base)
    browser.post("/admin/login/?next=/admin/", {"username": "ada", "password": PASSWORD})
    return browser


def sort_keys(page: str) -> set[str]:
    """Return the sort keys (`PROFILE`, `ORDER#981`, ...) the page's change links name."""
    return set(re.findall(r'href="/admin/shop/\w+/CUSTOMER_23\d+,(\w+(?:_23\w+)*)/change/"', page))


def test_the_shop_s_one_table_is_served_type_by_type(staff):
    # Each type lists exactly its own items.
    customers = staff.get(CUSTOMERS)
    assert "Ada" in customers and "Bob" in customers
    assert sort_keys(customers) == {"PROFILE"}
    # Listed by a Query of the overloaded index, not a Scan of the table.
    assert "GSI1" in customers and "Scan" not in customers
    orders, lines = staff.get(ORDERS), staff.get(LINES)
    assert sort_keys(orders) == {"ORDER_23981", "ORDER_23982"}
    assert sort_keys(lines) == {"LINE_23981_231", "LINE_23982_231"}
    assert "ByType" in lines  # the sparse index holds the lines alone
    for page in (customers, orders, lines):
        assert "RETURN" not in page

    # A customer opens with its orders inline, read by one Query.
    page, headers = staff.open(ADA)
    assert 'name="order-INITIAL_FORMS" value="1"' in page and "ORDER#981" in page
    assert "ORDER#982" not in page and "RETURN#981" not in page  # Bob's; no model's
    # The customer (GetItem), its orders and its lines (one Query each).
    assert headers["X-DynamoDB-Calls"] == "3"

    # An order row added there is stored as the customer's order.
    form = form_fields(page, "customer_form")
    form.update(
        {
            "order-TOTAL_FORMS": "2",
            "order-1-SK": "ORDER#983",
            "order-1-placed_on": "2026-12-05",
            "order-1-status": "placed",
            "order-1-total": "12",
        }
    )
    saved, url = staff.post(ADA, form)
    assert url.endswith(CUSTOMERS), re.sub(r"\s+", " ", saved)[-1500:]
    assert 'name="order-INITIAL_FORMS" value="2"' in staff.get(ADA)
    assert "ORDER_23983" in staff.get(ORDERS)

    # The return, a type no model serves, is under "items no model claims", as stored.
    assert f'href="{CUSTOMERS}unclaimed/"' in staff.get(CUSTOMERS)
    unclaimed = staff.get(f"{CUSTOMERS}unclaimed/")
    assert unclaimed.count('class="unclaimed-item"') == 1
    assert "RETURN#981" in unclaimed and "dented" in unclaimed
