"""The e-commerce single table of The DynamoDB Book (chapter 19), modelled as its readers write
it with PynamoDB, served as it is: customers and their e-mail uniqueness items, orders in the
customer's partition, order items reached through the overloaded GSI1.

| item | PK | SK | GSI1PK | GSI1SK |
|---|---|---|---|---|
| customer | CUSTOMER#<username> | CUSTOMER#<username> | | |
| e-mail | CUSTOMEREMAIL#<email> | CUSTOMEREMAIL#<email> | | |
| order | CUSTOMER#<username> | #ORDER#<order id> | ORDER#<order id> | ORDER#<order id> |
| order item | ORDER#<order id>#ITEM#<item id> | (the same) | ORDER#<order id> | ITEM#<item id> |
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator

import pytest
from django.contrib.admin.utils import quote
from django.contrib.auth.models import User as StaffUser
from django.test import Client
from django.urls import clear_url_caches, path
from pynamodb.attributes import NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from dynamo_admin import ModelAdmin, TabularInline
from dynamo_admin.sites import DynamoAdminSite

from .engines import ENGINES, SESSION, canonical, empty, engine_for, point, tables_dropped_after
from .pages import form_fields
from .samples.models import SampleMeta

# Models of the samples app: the package's tests install that app, not this module's
# folder (dynamo_admin.tests in the checkout, dynamo_admin_tests beside the wheel).
SAMPLES = f"{__package__}.samples"
TABLE = "EcommerceTable"


class BookMeta(SampleMeta):
    table_name = TABLE


class Gsi1(GlobalSecondaryIndex):
    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    GSI1PK = UnicodeAttribute(hash_key=True)
    GSI1SK = UnicodeAttribute(range_key=True)


class Customer(Model):
    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(BookMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    Username = UnicodeAttribute()
    EmailAddress = UnicodeAttribute(null=True)
    Name = UnicodeAttribute(null=True)


class CustomerEmail(Model):
    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(BookMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    Username = UnicodeAttribute(null=True)


class Order(Model):
    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(BookMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    GSI1PK = UnicodeAttribute(null=True)
    GSI1SK = UnicodeAttribute(null=True)
    OrderId = UnicodeAttribute(null=True)
    Status = UnicodeAttribute(null=True)
    Amount = NumberAttribute(null=True)

    gsi1 = Gsi1()


class OrderItem(Model):
    __module__ = SAMPLES  # an installed app's, wherever the tests run

    class Meta(BookMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)
    GSI1PK = UnicodeAttribute(null=True)
    GSI1SK = UnicodeAttribute(null=True)
    Description = UnicodeAttribute(null=True)
    Price = NumberAttribute(null=True)

    gsi1 = Gsi1()


BOOK = (Customer, CustomerEmail, Order, OrderItem)


class OrderInline(TabularInline):
    model = Order
    fk_name = "PK"  # the customer's partition
    extra = 0


class OrderItemInline(TabularInline):
    """An order's items: GSI1PK holds the order's GSI1PK (ORDER#<id>), not its table key."""

    model = OrderItem
    fk_name = "GSI1PK"
    extra = 0

    def parent_key(self, parent):
        return parent.GSI1PK


class CustomerAdmin(ModelAdmin):
    list_display = ("Username", "EmailAddress")
    item_condition = Customer.PK.startswith("CUSTOMER#") & Customer.SK.startswith("CUSTOMER#")
    inlines = (OrderInline,)


class CustomerEmailAdmin(ModelAdmin):
    item_condition = CustomerEmail.PK.startswith("CUSTOMEREMAIL#")


class OrderAdmin(ModelAdmin):
    list_display = ("OrderId", "Status", "Amount")
    item_condition = Order.SK.startswith("#ORDER#")
    inlines = (OrderItemInline,)


class OrderItemAdmin(ModelAdmin):
    item_condition = OrderItem.PK.startswith("ORDER#") & OrderItem.GSI1SK.startswith("ITEM#")


def s(text: str) -> dict:
    return {"S": text}


ITEMS = [
    {
        "PK": s("CUSTOMER#alexdebrie"),
        "SK": s("CUSTOMER#alexdebrie"),
        "Username": s("alexdebrie"),
        "EmailAddress": s("alex@x.test"),
        "Name": s("Alex"),
    },
    {
        "PK": s("CUSTOMEREMAIL#alex@x.test"),
        "SK": s("CUSTOMEREMAIL#alex@x.test"),
        "Username": s("alexdebrie"),
    },
    {
        "PK": s("CUSTOMER#alexdebrie"),
        "SK": s("#ORDER#1VrgXBQ"),
        "GSI1PK": s("ORDER#1VrgXBQ"),
        "GSI1SK": s("ORDER#1VrgXBQ"),
        "OrderId": s("1VrgXBQ"),
        "Status": s("PLACED"),
        "Amount": {"N": "67.43"},
    },
    {
        "PK": s("ORDER#1VrgXBQ#ITEM#1"),
        "SK": s("ORDER#1VrgXBQ#ITEM#1"),
        "GSI1PK": s("ORDER#1VrgXBQ"),
        "GSI1SK": s("ITEM#1"),
        "Description": s("Socks"),
        "Price": {"N": "9.99"},
    },
    {
        "PK": s("ORDER#1VrgXBQ#ITEM#2"),
        "SK": s("ORDER#1VrgXBQ#ITEM#2"),
        "GSI1PK": s("ORDER#1VrgXBQ"),
        "GSI1SK": s("ITEM#2"),
        "Description": s("Book"),
        "Price": {"N": "57.44"},
    },
    {"PK": s("CUSTOMER#sam"), "SK": s("CUSTOMER#sam"), "Username": s("sam")},
]


def make_table(client) -> None:
    client.create_table(
        TableName=TABLE,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "GSI1PK", "GSI1SK")
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI1",
                "KeySchema": [
                    {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )


URLCONF = f"{__package__}.book_urls"


@pytest.fixture(scope="module")
def local_book(dynamodb_local) -> Iterator:
    with tables_dropped_after(dynamodb_local) as engine:
        make_table(engine.client)
        yield engine


@pytest.fixture(params=ENGINES)
def book(request, db, settings) -> Iterator:
    """The table with ITEMS, and a site of this module's own serving the four models."""
    engine = engine_for(request, "local_book", make_table)
    point(BOOK, engine.endpoint)
    for item in ITEMS:
        engine.client.put_item(TableName=TABLE, Item=item)
    site = DynamoAdminSite()
    site.register(Customer, CustomerAdmin)
    site.register(CustomerEmail, CustomerEmailAdmin)
    site.register(Order, OrderAdmin)
    site.register(OrderItem, OrderItemAdmin)
    module = types.ModuleType(URLCONF)
    module.urlpatterns = [path("admin/", site.urls)]
    sys.modules[URLCONF] = module
    settings.ROOT_URLCONF = URLCONF
    yield engine
    sys.modules.pop(URLCONF, None)
    clear_url_caches()
    if request.param == "local":
        engine.resource = SESSION.resource(
            "dynamodb",
            endpoint_url=engine.endpoint,
            region_name="us-east-1",
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        empty(engine, TABLE)


@pytest.fixture
def staff(book) -> Client:
    client = Client()
    client.force_login(StaffUser.objects.create_superuser("pat", "pat@example.com", "pw"))
    return client


def url(model: str, pk: str, sk: str, view: str = "change") -> str:
    return f"/admin/samples/{model}/{quote(pk)},{quote(sk)}/{view}/"


def whole_table(engine) -> list[str]:
    return canonical(engine.client.scan(TableName=TABLE, ConsistentRead=True)["Items"])


@pytest.mark.parametrize(
    ("model", "keys"),
    [
        ("customer", {"CUSTOMER#alexdebrie", "CUSTOMER#sam"}),
        ("customeremail", {"CUSTOMEREMAIL#alex@x.test"}),
        ("order", {"#ORDER#1VrgXBQ"}),
        ("orderitem", {"ORDER#1VrgXBQ#ITEM#1", "ORDER#1VrgXBQ#ITEM#2"}),
    ],
)
def test_each_entity_lists_exactly_its_items(staff, model, keys):
    page = staff.get(f"/admin/samples/{model}/").content.decode()

    shown = {
        item["SK"]["S"] for item in ITEMS if url(model, item["PK"]["S"], item["SK"]["S"]) in page
    }
    assert shown == keys


def test_a_customer_s_orders_and_an_order_s_items_are_inlines(staff):
    customer = staff.get(url("customer", "CUSTOMER#alexdebrie", "CUSTOMER#alexdebrie"))
    order = staff.get(url("order", "CUSTOMER#alexdebrie", "#ORDER#1VrgXBQ"))

    assert 'name="order-INITIAL_FORMS" value="1"' in customer.content.decode()
    page = order.content.decode()
    assert 'name="orderitem-INITIAL_FORMS" value="2"' in page
    assert "Socks" in page and "Book" in page
    targets = sorted(c.targets[0] for c in order.wsgi_request.dynamo_meter.calls)
    assert targets == [("BatchGetItem", TABLE), ("Query", f"{TABLE}/index/GSI1")]


def test_an_edit_of_an_order_item_inline_touches_nothing_else(staff, book):
    change = url("order", "CUSTOMER#alexdebrie", "#ORDER#1VrgXBQ")
    form = form_fields(staff, change)
    before = whole_table(book)
    index = 0 if form["orderitem-0-Description"] == "Socks" else 1
    form[f"orderitem-{index}-Description"] = "Wool socks"

    assert staff.post(change, form).status_code == 302

    after = whole_table(book)
    changed = [line for line in after if line not in before]
    assert len(after) == len(before) and len(changed) == 1 and "Wool socks" in changed[0]


def test_an_order_s_key_under_the_customers_url_does_not_exist(staff):
    response = staff.get(url("customer", "CUSTOMER#alexdebrie", "#ORDER#1VrgXBQ"))

    assert response.status_code == 302
