"""A single-table design as teams write it: customers, their orders, settings under one
constant partition and a discriminated family of payment events, all in the table `Shop`.

`PK`/`SK` keys (`CUSTOMER#42` / `PROFILE`, `CUSTOMER#42` / `ORDER#2026-12-01#981`), an
overloaded `GSI1` (orders under `GSI1PK = "ORDERS"` by date; anything else may use it) and a
sparse `ByType` index on the discriminator `type`, which only the events carry. Customers,
orders and settings have no discriminator: their admins say which items are theirs with
`item_condition`. The table is made by boto3 in the tests, as a team's own script makes it.
"""

from __future__ import annotations

from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model

from .models import SampleMeta


class ShopMeta(SampleMeta):
    table_name = "Shop"


class Gsi1(GlobalSecondaryIndex):
    """The overloaded index: each type puts what it needs under GSI1PK and GSI1SK."""

    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    GSI1PK = UnicodeAttribute(hash_key=True)
    GSI1SK = UnicodeAttribute(range_key=True)


class ByType(GlobalSecondaryIndex):
    """Sparse: only the items that carry a `type` (the events) are in it."""

    class Meta:
        index_name = "ByType"
        projection = AllProjection()

    type = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)


class Customer(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True)  # PROFILE
    name = UnicodeAttribute()
    email = UnicodeAttribute(null=True)


class Order(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # the customer's CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True)  # ORDER#<date>#<number>
    GSI1PK = UnicodeAttribute(null=True)  # ORDERS
    GSI1SK = UnicodeAttribute(null=True)  # <date>
    total = NumberAttribute(null=True)
    status = UnicodeAttribute(null=True)

    gsi1 = Gsi1()


class Shipment(Model):
    """An adjacency list: a shipment's own key, its customer's key in GSI1PK."""

    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # SHIPMENT#<number>
    SK = UnicodeAttribute(range_key=True)  # SHIPMENT
    GSI1PK = UnicodeAttribute(null=True)  # the customer's CUSTOMER#<id>
    GSI1SK = UnicodeAttribute(null=True)  # SHIPMENT#<date>
    carrier = UnicodeAttribute(null=True)

    gsi1 = Gsi1()


class Setting(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # SETTING, for every setting
    SK = UnicodeAttribute(range_key=True)  # SETTING#<name>
    value = UnicodeAttribute(null=True)


class Event(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # the customer's CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True)  # EVENT#<time>
    type = DiscriminatorAttribute()
    amount = NumberAttribute(null=True)

    by_type = ByType()


class Payment(Event, discriminator="PAYMENT"):
    method = UnicodeAttribute(null=True)


class Refund(Event, discriminator="REFUND"):
    reason = UnicodeAttribute(null=True)


SHOP = (Customer, Order, Shipment, Setting, Event, Payment, Refund)


def make_shop_table(client) -> None:
    """Create `Shop` as a team's boto3 script does: PK/SK, GSI1 and the sparse ByType."""
    client.create_table(
        TableName="Shop",
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": "S"}
            for name in ("PK", "SK", "GSI1PK", "GSI1SK", "type")
        ],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "GSI1",
                "KeySchema": [
                    {"AttributeName": "GSI1PK", "KeyType": "HASH"},
                    {"AttributeName": "GSI1SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
            {
                "IndexName": "ByType",
                "KeySchema": [
                    {"AttributeName": "type", "KeyType": "HASH"},
                    {"AttributeName": "SK", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "ALL"},
            },
        ],
        BillingMode="PAY_PER_REQUEST",
    )
