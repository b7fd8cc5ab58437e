"""DynamoDB Local with boto3 at hand, for tables made elsewhere: one engine for the run, each
module's tables dropped when the module ends.

The tests that can run on either engine are parametrized over ENGINES: "moto" and "local" by
default. `bin/test-package` runs them on both engines on the first Django it tests and on moto
alone on the others (`DYNAMO_ADMIN_TEST_ENGINES=moto`): how DynamoDB Local answers does not
depend on Django's version. The tests whose tables only DynamoDB Local holds run on it always.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

import boto3
from pynamodb.models import Model

from dynamo import local, tables
from dynamo.models import configure
from dynamo_admin.models import AdminLog

# The tests' boto3 clients and resources come from one session: moto's mock empties boto3's
# default session, and each new session reads DynamoDB's service model again (JSON, 1.5 MB)
# before it makes its first client.
SESSION = boto3.session.Session()

# The engines of the tests parametrized over "moto" and "local"; the others keep theirs.
ENGINES = [
    e.strip() for e in (os.environ.get("DYNAMO_ADMIN_TEST_ENGINES") or "moto,local").split(",")
]
if not ENGINES or not set(ENGINES) <= {"moto", "local"}:
    raise ValueError(f"DYNAMO_ADMIN_TEST_ENGINES: moto, local or both, not {ENGINES}")


@contextmanager
def local_engine() -> Iterator[local.Engine]:
    """Run DynamoDB Local; the engine carries a boto3 `client` and `resource` for it."""
    with local.running(allow_moto=False, log=lambda _: None) as engine:
        options = {
            "endpoint_url": engine.endpoint,
            "region_name": "us-east-1",
            "aws_access_key_id": "local",
            "aws_secret_access_key": "local",
        }
        engine.client = SESSION.client("dynamodb", **options)
        engine.resource = SESSION.resource("dynamodb", **options)
        yield engine


@contextmanager
def tables_dropped_after(engine: local.Engine) -> Iterator[local.Engine]:
    """Lend the engine to a module: every table on it is dropped when the block ends, so the
    next module starts from an empty engine."""
    try:
        yield engine
    finally:
        for name in engine.client.list_tables()["TableNames"]:
            engine.client.delete_table(TableName=name)


def engine_for(request: Any, local_fixture: str, make_table: Callable[[Any], None]) -> Any:
    """Return the engine of a test parametrized over "moto" and "local" for a table boto3 makes:
    a fresh moto with the table made, or the module's DynamoDB Local (`local_fixture`, the
    table made once); either way with the admin's log beside it."""
    if request.param == "moto":
        request.getfixturevalue("dynamo")  # a fresh moto, the admin's log made
        options = {"region_name": "us-east-1"}
        engine = SimpleNamespace(
            client=SESSION.client("dynamodb", **options),
            resource=SESSION.resource("dynamodb", **options),
            endpoint=None,
        )
        make_table(engine.client)
        return engine
    engine = request.getfixturevalue(local_fixture)
    configure(endpoint=engine.endpoint, region="us-east-1")
    tables.create_missing(AdminLog)
    return engine


def point(models: Iterable[type[Model]], endpoint: str) -> None:
    """Point plain models at an engine, as a project's settings would set their Meta.host."""
    for model in models:
        model.Meta.host = endpoint
        model._connection = None


def empty(engine: local.Engine, *table_names: str) -> None:
    """Delete every item of these tables (a test's own data, a few items)."""
    for name in table_names:
        table = engine.resource.Table(name)
        keys = [k["AttributeName"] for k in table.key_schema]
        for item in table.scan()["Items"]:
            table.delete_item(Key={k: item[k] for k in keys})


def stored(engine: local.Engine, table: str, **key) -> dict | None:
    """Return an item as DynamoDB holds it (GetItem, typed JSON), or None."""
    typed = {name: ({"N": str(v)} if isinstance(v, int) else {"S": v}) for name, v in key.items()}
    return engine.client.get_item(TableName=table, Key=typed, ConsistentRead=True).get("Item")


def canonical(items: list[dict]) -> list[str]:
    """Return items as sorted JSON texts, each set's members sorted: two scans compare equal."""

    def sort_sets(value):
        if isinstance(value, dict):
            return {
                k: sorted(v) if k in ("SS", "NS", "BS") else sort_sets(v) for k, v in value.items()
            }
        if isinstance(value, list):
            return [sort_sets(v) for v in value]
        return value

    return sorted(json.dumps(sort_sets(item), sort_keys=True, default=str) for item in items)
