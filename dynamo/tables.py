"""Create, check and delete the tables and indexes the models declare."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import ClientError
from pynamodb.attributes import TTLAttribute

from .models import DynamoModel, client_for

WAIT_SECONDS = 300
POLL_SECONDS = 0.5
LOCAL_POLL_SECONDS = 0.05  # a local engine builds and drops an index on a small table quickly

Report = Callable[[str], None]


def all_models() -> list[type[DynamoModel]]:
    """Return every DynamoDB model the installed apps declare, in registration order."""
    return list(DynamoModel.registry)


def expected_table(model: type[DynamoModel]) -> dict[str, Any]:
    """Return the CreateTable request for a model: keys, GSIs, on-demand billing."""
    schema = model._get_schema()
    request: dict[str, Any] = {
        "TableName": model.Meta.table_name,
        "AttributeDefinitions": schema["attribute_definitions"],
        # PynamoDB lists keys alphabetically; DynamoDB wants the hash key first.
        "KeySchema": sorted(schema["key_schema"], key=lambda k: k["KeyType"] != "HASH"),
        "BillingMode": getattr(model.Meta, "billing_mode", "PAY_PER_REQUEST"),
    }
    if (view := stream_view_type(model)) is not None:
        request["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": view}
    if schema["global_secondary_indexes"]:
        request["GlobalSecondaryIndexes"] = [
            {
                "IndexName": index["index_name"],
                "KeySchema": index["key_schema"],
                "Projection": index["projection"],
            }
            for index in schema["global_secondary_indexes"]
        ]
    return request


def stream_view_type(model: type[DynamoModel]) -> str | None:
    """Return the view of the table's stream (`Meta.stream_view_type`), or None without one."""
    return getattr(model.Meta, "stream_view_type", None)


def stream_arn(model: type[DynamoModel]) -> str | None:
    """Return the ARN of the table's current stream, or None while it has none."""
    table = describe(model) or {}
    enabled = table.get("StreamSpecification", {}).get("StreamEnabled")
    return table.get("LatestStreamArn") if enabled else None


def ttl_attribute(model: type[DynamoModel]) -> str | None:
    """Return the name of the model's TTLAttribute (DynamoDB deletes items past it), or None."""
    for name, attribute in model.get_attributes().items():
        if isinstance(attribute, TTLAttribute):
            return attribute.attr_name or name
    return None


def time_to_live(model: type[DynamoModel]) -> dict[str, Any]:
    """Return the table's TimeToLiveDescription (status and attribute)."""
    client = client_for(model)
    return client.describe_time_to_live(TableName=model.Meta.table_name)["TimeToLiveDescription"]


def describe(model: type[DynamoModel]) -> dict[str, Any] | None:
    """Return the stored table description, or None when the table does not exist."""
    try:
        return client_for(model).describe_table(TableName=model.Meta.table_name)["Table"]
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ResourceNotFoundException":
            return None
        raise


def _key_schema(entries: Iterable[dict[str, str]]) -> list[tuple[str, str]]:
    return [(entry["AttributeName"], entry["KeyType"]) for entry in entries]


def drift(model: type[DynamoModel]) -> list[str]:
    """Return how the stored table differs from the model; empty when they match."""
    expected = expected_table(model)
    name = expected["TableName"]
    table = describe(model)
    if table is None:
        return [f"{name}: table is missing"]
    problems = []
    if _key_schema(table["KeySchema"]) != _key_schema(expected["KeySchema"]):
        problems.append(
            f"{name}: key schema is {_key_schema(table['KeySchema'])}, "
            f"expected {_key_schema(expected['KeySchema'])}"
        )
    stored = {i["IndexName"]: i for i in table.get("GlobalSecondaryIndexes", [])}
    wanted = {i["IndexName"]: i for i in expected.get("GlobalSecondaryIndexes", [])}
    for index_name, index in wanted.items():
        if index_name not in stored:
            problems.append(f"{name}: index {index_name} is missing")
            continue
        have, want = _key_schema(stored[index_name]["KeySchema"]), _key_schema(index["KeySchema"])
        if have != want:
            problems.append(f"{name}: index {index_name} has keys {have}, expected {want}")
        have_projection = stored[index_name]["Projection"].get("ProjectionType")
        if have_projection != index["Projection"]["ProjectionType"]:
            problems.append(
                f"{name}: index {index_name} projects {have_projection}, "
                f"expected {index['Projection']['ProjectionType']}"
            )
    for index_name in stored.keys() - wanted.keys():
        problems.append(f"{name}: index {index_name} is not declared by the model")
    if (view := stream_view_type(model)) is not None:
        stream = table.get("StreamSpecification") or {}
        have = stream.get("StreamViewType") if stream.get("StreamEnabled") else None
        if have != view:
            problems.append(f"{name}: stream is {have or 'off'}, expected {view}")
    if (attribute := ttl_attribute(model)) is not None:
        ttl = time_to_live(model)
        status, on = ttl.get("TimeToLiveStatus", "DISABLED"), ttl.get("AttributeName")
        if status not in ("ENABLED", "ENABLING") or on != attribute:
            problems.append(
                f"{name}: time to live is {status} on {on or 'no attribute'}, "
                f"expected ENABLED on {attribute}"
            )
    return problems


def poll_seconds(model: type[DynamoModel]) -> float:
    """Return how long to wait between two DescribeTable calls on the model's engine."""
    return LOCAL_POLL_SECONDS if model.Meta.host else POLL_SECONDS


def wait_until_active(model: type[DynamoModel], timeout: float = WAIT_SECONDS) -> None:
    """Block until the table and all its indexes are ACTIVE."""
    deadline = time.monotonic() + timeout
    while True:
        table = describe(model)
        statuses = [] if table is None else [table["TableStatus"]]
        statuses += [i["IndexStatus"] for i in (table or {}).get("GlobalSecondaryIndexes", [])]
        if statuses and all(status == "ACTIVE" for status in statuses):
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"{model.Meta.table_name} is not ACTIVE after {timeout:.0f}s")
        time.sleep(poll_seconds(model))


def _ends(key_schema: list[dict[str, str]]) -> frozenset[str]:
    names = [k["AttributeName"] for k in key_schema]
    return frozenset((names[0], names[-1]))


def creatable(request: dict[str, Any], *, local: bool) -> dict[str, Any]:
    """Return the CreateTable request to send: on a local engine, without indexes it would lose.

    DynamoDB Local 3.3 gives the GSIs named in a CreateTable one SQLite index per set of
    first and last key attribute, so of `gsi_leaderboard_*` (all `leaderboard_partition` ..
    `username`) only the first gets one and a Query on the others sorts the whole partition
    (bench/leaderboard_index.py; its figures in bench/RESULTS.md); `gsi_skill_id`,
    the table's keys swapped, gets none. A GSI added by UpdateTable always gets its own, so
    there those are left out here and added one at a time. Amazon DynamoDB gets one request.
    """
    if not local or "GlobalSecondaryIndexes" not in request:
        return request
    seen = {_ends(request["KeySchema"])}
    kept = []
    for index in request["GlobalSecondaryIndexes"]:
        if _ends(index["KeySchema"]) not in seen:
            seen.add(_ends(index["KeySchema"]))
            kept.append(index)
    names = {k["AttributeName"] for i in [request, *kept] for k in i["KeySchema"]}
    request = {k: v for k, v in request.items() if k != "GlobalSecondaryIndexes"}
    request["AttributeDefinitions"] = [
        d for d in request["AttributeDefinitions"] if d["AttributeName"] in names
    ]
    return request | ({"GlobalSecondaryIndexes": kept} if kept else {})


def create_missing(model: type[DynamoModel], report: Report = lambda _: None) -> list[str]:
    """Create the table or add its missing indexes, wait until ACTIVE; return what was done."""
    expected = expected_table(model)
    client = client_for(model)
    table = describe(model)
    done: list[str] = []
    created = table is None
    if created:
        report(f"Creating table {expected['TableName']}")
        try:
            client.create_table(**creatable(expected, local=bool(model.Meta.host)))
        except ClientError as exc:
            # A retry after a timed-out CreateTable that did succeed: the table is there.
            if exc.response["Error"]["Code"] != "ResourceInUseException":
                raise
        done.append(f"created table {expected['TableName']}")
        wait_until_active(model)
        table = describe(model) or {}
    stored = {i["IndexName"] for i in table.get("GlobalSecondaryIndexes", [])}
    definitions = {d["AttributeName"]: d for d in expected["AttributeDefinitions"]}
    for index in expected.get("GlobalSecondaryIndexes", []):
        if index["IndexName"] in stored:
            continue
        if not created:
            report(f"Adding index {index['IndexName']} to {expected['TableName']}")
        wait_until_active(model)  # DynamoDB builds one new index at a time
        client.update_table(
            TableName=expected["TableName"],
            AttributeDefinitions=[definitions[k["AttributeName"]] for k in index["KeySchema"]],
            GlobalSecondaryIndexUpdates=[{"Create": index}],
        )
        if not created:
            done.append(f"added index {index['IndexName']} to {expected['TableName']}")
    if (view := stream_view_type(model)) is not None:
        stream = table.get("StreamSpecification") or {}
        if not stream.get("StreamEnabled"):
            report(f"Adding a {view} stream to {expected['TableName']}")
            wait_until_active(model)
            client.update_table(
                TableName=expected["TableName"],
                StreamSpecification={"StreamEnabled": True, "StreamViewType": view},
            )
            done.append(f"added a {view} stream to {expected['TableName']}")
    if done:
        wait_until_active(model)
    if (attribute := ttl_attribute(model)) is not None:
        status = time_to_live(model).get("TimeToLiveStatus", "DISABLED")
        if status not in ("ENABLED", "ENABLING"):
            client.update_time_to_live(
                TableName=expected["TableName"],
                TimeToLiveSpecification={"Enabled": True, "AttributeName": attribute},
            )
            done.append(f"enabled time to live on {expected['TableName']}.{attribute}")
    return done


def delete(model: type[DynamoModel]) -> bool:
    """Delete the model's table; return False when it did not exist."""
    try:
        client_for(model).delete_table(TableName=model.Meta.table_name)
    except ClientError as exc:
        if exc.response["Error"]["Code"] == "ResourceNotFoundException":
            return False
        raise
    return True


def list_table_names(model: type[DynamoModel]) -> list[str]:
    """Return every table name on the model's endpoint and region."""
    client = client_for(model)
    names: list[str] = []
    kwargs: dict[str, Any] = {}
    while True:
        page = client.list_tables(**kwargs)
        names += page["TableNames"]
        if "LastEvaluatedTableName" not in page:
            return names
        kwargs["ExclusiveStartTableName"] = page["LastEvaluatedTableName"]


def replace_index(
    model: type[DynamoModel], index_name: str, report: Report = lambda _: None
) -> bool:
    """Drop an index whose keys differ from the model's and build it again; return if it did.

    DynamoDB cannot change a GSI's keys in place: the old index is deleted (waiting until it
    is gone) and the declared one created, waiting until ACTIVE. Safe to run again.
    """
    table = describe(model)
    if table is None:
        return False
    stored = {i["IndexName"]: i for i in table.get("GlobalSecondaryIndexes", [])}
    wanted = {i["IndexName"]: i for i in expected_table(model).get("GlobalSecondaryIndexes", [])}
    replaced = False
    if index_name in stored and _key_schema(stored[index_name]["KeySchema"]) != _key_schema(
        wanted[index_name]["KeySchema"]
    ):
        wait_until_active(model)  # DynamoDB changes one index at a time
        report(f"Deleting index {index_name} of {model.Meta.table_name} (its keys changed)")
        client_for(model).update_table(
            TableName=model.Meta.table_name,
            GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": index_name}}],
        )
        wait_until_index_gone(model, index_name)
        replaced = True
    return bool(create_missing(model, report)) or replaced


def wait_until_index_gone(
    model: type[DynamoModel], index_name: str, timeout: float = WAIT_SECONDS
) -> None:
    """Block until a deleted index no longer appears in the table's description."""
    deadline = time.monotonic() + timeout
    while True:
        table = describe(model) or {}
        if index_name not in {i["IndexName"] for i in table.get("GlobalSecondaryIndexes", [])}:
            return
        if time.monotonic() > deadline:
            raise TimeoutError(f"Index {index_name} is still being deleted after {timeout:.0f}s")
        time.sleep(poll_seconds(model))
