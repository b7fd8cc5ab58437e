"""Batch writes that retry unprocessed items with exponential backoff and full jitter."""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import Any

from pynamodb.exceptions import GetError, PutError

from .models import DynamoModel

BATCH_SIZE = 25
MAX_ATTEMPTS = 10
BASE_DELAY = 0.05
MAX_DELAY = 5.0


class UnprocessedItemsError(PutError):
    """DynamoDB kept refusing part of a batch after every retry."""

    def __init__(self, message: str, unprocessed: list[dict[str, Any]]) -> None:
        super().__init__(message)
        self.unprocessed = unprocessed


def backoff_delay(attempt: int, rng: random.Random | None = None) -> float:
    """Return the full-jitter delay before retry number `attempt` (1-based)."""
    ceiling = min(MAX_DELAY, BASE_DELAY * 2 ** (attempt - 1))
    return (rng or random).uniform(0, ceiling)


# DynamoDB's limit of actions in one TransactWriteItems.
TRANSACTION_LIMIT = 100


def in_chunks(iterable: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Yield lists of up to `size` items, drawing lazily from `iterable`."""
    iterator = iter(iterable)
    while chunk := list(islice(iterator, size)):
        yield chunk


def write_requests(
    model: type[DynamoModel],
    requests: list[dict[str, Any]],
    *,
    sleep: Callable[[float], None] | None = None,
) -> int:
    """Send up to 25 raw write requests, resending what comes back unprocessed; return calls."""
    table = model.Meta.table_name
    connection = model._get_connection().connection
    pending = requests
    attempt = 0
    while pending:
        attempt += 1
        data = connection.dispatch("BatchWriteItem", {"RequestItems": {table: pending}})
        pending = (data or {}).get("UnprocessedItems", {}).get(table, [])
        if pending and attempt >= MAX_ATTEMPTS:
            raise UnprocessedItemsError(
                f"{len(pending)} writes to {table} stayed unprocessed after {attempt} attempts",
                pending,
            )
        if pending:
            (sleep or time.sleep)(backoff_delay(attempt))
    return attempt


# DynamoDB's limit of keys in one BatchGetItem.
BATCH_GET_LIMIT = 100


def get_together(
    wanted: list[tuple[type[DynamoModel], tuple[Any, ...]]],
    *,
    consistent_read: bool = False,
    sleep: Callable[[float], None] | None = None,
    load: Callable[[type, dict[str, Any]], Any] | None = None,
) -> list[DynamoModel | None]:
    """Return the items at these keys, of one table or several, in one BatchGetItem.

    None where no item is stored; keys that come back unprocessed are asked again with
    backoff, as write_requests resends writes. At most BATCH_GET_LIMIT keys; with
    `consistent_read` every table is read strongly consistent (twice the capacity). `load`
    makes an item of a model and a raw item (by default the model's from_raw_data).
    """
    if not 0 < len(wanted) <= BATCH_GET_LIMIT:
        raise ValueError(f"get_together takes 1 to {BATCH_GET_LIMIT} keys.")
    models = {model.Meta.table_name: model for model, _ in wanted}
    requested: dict[str, list[dict[str, Any]]] = {}
    for model, key in wanted:
        keys = requested.setdefault(model.Meta.table_name, [])
        if _key_map(model, key) not in keys:  # DynamoDB refuses a key asked twice
            keys.append(_key_map(model, key))
    connection = wanted[0][0]._get_connection().connection
    # Raw items by table and key: several models may share a table (a single-table design),
    # so each is made by the model it was asked for, not by its table's.
    found: dict[tuple[str, str], dict[str, Any]] = {}
    consistency = {"ConsistentRead": True} if consistent_read else {}
    pending = {table: {"Keys": keys, **consistency} for table, keys in requested.items()}
    attempt = 0
    while pending:
        attempt += 1
        data = connection.dispatch("BatchGetItem", {"RequestItems": pending}) or {}
        for table, items in data.get("Responses", {}).items():
            names = _key_names(models[table])
            for raw in items:
                found[(table, repr({name: raw[name] for name in names}))] = raw
        pending = data.get("UnprocessedKeys") or {}
        if pending and attempt >= MAX_ATTEMPTS:
            raise GetError(f"Keys of {', '.join(pending)} stayed unprocessed after {attempt} tries")
        if pending:
            (sleep or time.sleep)(backoff_delay(attempt))
    result = []
    for model, key in wanted:
        raw = found.get((model.Meta.table_name, repr(_key_map(model, key))))
        if raw is None:
            result.append(None)
        else:
            result.append(load(model, raw) if load else model.from_raw_data(raw))
    return result


def _key_map(model: type[DynamoModel], key: tuple[Any, ...]) -> dict[str, Any]:
    hash_value, range_value = model._serialize_keys(*key)
    attributes = [model._hash_key_attribute(), model._range_key_attribute()]
    return {
        attribute.attr_name: {attribute.attr_type: value}
        for attribute, value in zip(attributes, (hash_value, range_value), strict=True)
        if attribute is not None
    }


def _key_names(model: type[DynamoModel]) -> list[str]:
    attributes = [model._hash_key_attribute(), model._range_key_attribute()]
    return [attribute.attr_name for attribute in attributes if attribute is not None]


def put_request(item: DynamoModel) -> dict[str, Any]:
    """Return the BatchWriteItem request that stores an item as it is."""
    return {"PutRequest": {"Item": item.serialize()}}


def delete_request(item: DynamoModel) -> dict[str, Any]:
    """Return the BatchWriteItem request that deletes an item by its key."""
    key = item.serialize(null_check=False)  # an item read with its keys only will do
    return {"DeleteRequest": {"Key": {name: key[name] for name in item.key_attribute_names()}}}


def write_rows(puts: Iterable[DynamoModel], deletes: Iterable[DynamoModel] = ()) -> int:
    """Put and delete rows as they are, unconditionally, 25 a call per table; return calls."""
    by_table: dict[type[DynamoModel], list[dict[str, Any]]] = {}
    for item in puts:
        by_table.setdefault(type(item), []).append(put_request(item))
    for item in deletes:
        by_table.setdefault(type(item), []).append(delete_request(item))
    return sum(
        write_requests(model, chunk)
        for model, requests in by_table.items()
        for chunk in in_chunks(requests, BATCH_SIZE)
    )


def prepare_new(item: DynamoModel) -> DynamoModel:
    """Validate and stamp an item written by a batch (batches carry no version condition)."""
    item.full_clean()
    item.stamp()
    if item.version is None:
        item.version = 1
    return item


def batch_put(
    model: type[DynamoModel],
    items: Iterable[DynamoModel],
    *,
    prepare: bool = True,
    on_batch: Callable[[int], None] | None = None,
) -> int:
    """Store items 25 at a time; `prepare` validates, stamps and versions them first."""
    written = 0
    for chunk in in_chunks(items, BATCH_SIZE):
        if prepare:
            chunk = [prepare_new(item) for item in chunk]
        write_requests(model, [put_request(item) for item in chunk])
        written += len(chunk)
        if on_batch:
            on_batch(len(chunk))
    return written


def batch_delete(model: type[DynamoModel], items: Iterable[DynamoModel]) -> int:
    """Delete items 25 at a time by key; return how many were sent."""
    deleted = 0
    for chunk in in_chunks(items, BATCH_SIZE):
        write_requests(model, [delete_request(item) for item in chunk])
        deleted += len(chunk)
    return deleted


class Partition:
    """The items of one table under one hash key (a learner's sessions): counted, read, deleted.

    What a hard delete takes with an item beyond its inlines: read after the item is claimed,
    so rows landing meanwhile (refused once it is claimed) cannot be missed.
    """

    def __init__(self, model: type[DynamoModel], hash_key: Any) -> None:
        self.model = model
        self.hash_key = hash_key

    def __repr__(self) -> str:
        return f"Partition({self.model.__name__}, {self.hash_key!r})"

    def count(self) -> int:
        """Return how many items the partition holds (COUNT Queries: no item is returned)."""
        return self.model.count(self.hash_key, consistent_read=True)

    def first(self, limit: int) -> list[DynamoModel]:
        """Return up to `limit` of the partition's items, in key order (one Query)."""
        return list(
            self.model.query(self.hash_key, limit=limit, page_size=limit, consistent_read=True)
        )

    def delete(self) -> int:
        """Delete every item of the partition, 25 at a time; return how many were deleted."""
        return batch_delete(self.model, self.model.query(self.hash_key, consistent_read=True))
