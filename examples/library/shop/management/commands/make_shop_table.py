"""Make the shop's one table with boto3, as a team's own script does, and put its first items."""

from __future__ import annotations

import boto3
from django.core.management.base import BaseCommand

from shop.models import ShopMeta


def s(text: str) -> dict:
    return {"S": text}


# Two customers, an order each with its lines, and a return: a type no model serves yet.
ITEMS = [
    {"PK": s("CUSTOMER#1"), "SK": s("PROFILE"), "GSI1PK": s("CUSTOMERS"), "GSI1SK": s("Ada")},
    {"PK": s("CUSTOMER#2"), "SK": s("PROFILE"), "GSI1PK": s("CUSTOMERS"), "GSI1SK": s("Bob")},
    {
        "PK": s("CUSTOMER#1"),
        "SK": s("ORDER#981"),
        "GSI1PK": s("ORDERS"),
        "GSI1SK": s("2026-12-01"),
        "status": s("paid"),
        "total": {"N": "42"},
    },
    {
        "PK": s("CUSTOMER#1"),
        "SK": s("LINE#981#1"),
        "type": s("LINE"),
        "product": s("Kettle"),
        "quantity": {"N": "1"},
        "price": {"N": "42"},
    },
    {
        "PK": s("CUSTOMER#2"),
        "SK": s("ORDER#982"),
        "GSI1PK": s("ORDERS"),
        "GSI1SK": s("2026-12-02"),
        "status": s("placed"),
        "total": {"N": "9"},
    },
    {
        "PK": s("CUSTOMER#2"),
        "SK": s("LINE#982#1"),
        "type": s("LINE"),
        "product": s("Tea"),
        "quantity": {"N": "3"},
        "price": {"N": "3"},
    },
    {"PK": s("CUSTOMER#1"), "SK": s("RETURN#981"), "type": s("RETURN"), "reason": s("dented")},
]


class Command(BaseCommand):
    help = "Create the shop's table (PK/SK, the overloaded GSI1, the sparse ByType) and its items."

    def handle(self, *args, **options) -> None:
        client = boto3.client(
            "dynamodb",
            endpoint_url=ShopMeta.host,
            region_name=ShopMeta.region,
            aws_access_key_id=getattr(ShopMeta, "aws_access_key_id", None),
            aws_secret_access_key=getattr(ShopMeta, "aws_secret_access_key", None),
        )
        name = ShopMeta.table_name
        client.create_table(
            TableName=name,
            KeySchema=[
                {"AttributeName": "PK", "KeyType": "HASH"},
                {"AttributeName": "SK", "KeyType": "RANGE"},
            ],
            AttributeDefinitions=[
                {"AttributeName": attribute, "AttributeType": "S"}
                for attribute in ("PK", "SK", "GSI1PK", "GSI1SK", "type")
            ],
            GlobalSecondaryIndexes=[
                index("GSI1", "GSI1PK", "GSI1SK"),
                index("ByType", "type", "SK"),
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        client.get_waiter("table_exists").wait(TableName=name)
        for item in ITEMS:
            client.put_item(TableName=name, Item=item)
        self.stdout.write(f"Created table {name} with {len(ITEMS)} items")


def index(name: str, hash_key: str, range_key: str) -> dict:
    return {
        "IndexName": name,
        "KeySchema": [
            {"AttributeName": hash_key, "KeyType": "HASH"},
            {"AttributeName": range_key, "KeyType": "RANGE"},
        ],
        "Projection": {"ProjectionType": "ALL"},
    }
