"""Customers, orders and order lines in one table, as a team writes them with PynamoDB.

Plain `pynamodb.models.Model`s over a table the team's own script makes (make_shop_table):

| item       | PK              | SK                      | GSI1PK      | GSI1SK       | type   |
|------------|-----------------|-------------------------|-------------|--------------|--------|
| customer   | `CUSTOMER#<id>` | `PROFILE`               | `CUSTOMERS` | its name     |        |
| order      | `CUSTOMER#<id>` | `ORDER#<number>`        | `ORDERS`    | placed on    |        |
| order line | `CUSTOMER#<id>` | `LINE#<number>#<n>`     |             |              | `LINE` |

`GSI1` is overloaded (customers by name, orders by date); `ByType` is sparse: only the items
that carry a `type` (the lines) are in it. A customer and everything they bought share one
partition, so a customer's page reads their orders and lines with one Query each.
"""

from __future__ import annotations

import datetime
from urllib.parse import urlparse

from django.conf import settings
from pynamodb.attributes import DiscriminatorAttribute, NumberAttribute, UnicodeAttribute
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.models import Model


class ShopMeta:
    table_name = f"{settings.DYNAMODB_TABLE_PREFIX}shop"
    host = settings.DYNAMODB_ENDPOINT
    region = settings.AWS_REGION
    if host and urlparse(host).hostname in ("127.0.0.1", "localhost"):
        aws_access_key_id = aws_secret_access_key = "local"  # DynamoDB Local takes any key


class Gsi1(GlobalSecondaryIndex):
    """The overloaded index: customers under `CUSTOMERS` by name, orders under `ORDERS` by date."""

    class Meta:
        index_name = "GSI1"
        projection = AllProjection()

    GSI1PK = UnicodeAttribute(hash_key=True)
    GSI1SK = UnicodeAttribute(range_key=True)


class ByType(GlobalSecondaryIndex):
    """Sparse: only the items that carry a `type` (order lines) are in it."""

    class Meta:
        index_name = "ByType"
        projection = AllProjection()

    type = UnicodeAttribute(hash_key=True)
    SK = UnicodeAttribute(range_key=True)


class Customer(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True, default="PROFILE")
    GSI1PK = UnicodeAttribute(default="CUSTOMERS")
    name = UnicodeAttribute(attr_name="GSI1SK")  # customers are listed by name
    email = UnicodeAttribute(null=True)

    gsi1 = Gsi1()


def today() -> str:
    return datetime.date.today().isoformat()


class Order(Model):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # the customer's CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True)  # ORDER#<number>
    GSI1PK = UnicodeAttribute(default="ORDERS")
    placed_on = UnicodeAttribute(attr_name="GSI1SK", default=today)  # YYYY-MM-DD
    status = UnicodeAttribute(default="placed")
    total = NumberAttribute(null=True)

    gsi1 = Gsi1()


class OrderLine(Model, discriminator="LINE"):
    class Meta(ShopMeta):
        pass

    PK = UnicodeAttribute(hash_key=True)  # the customer's CUSTOMER#<id>
    SK = UnicodeAttribute(range_key=True)  # LINE#<order number>#<n>
    type = DiscriminatorAttribute()
    product = UnicodeAttribute()
    quantity = NumberAttribute(default=1)
    price = NumberAttribute(null=True)

    by_type = ByType()
