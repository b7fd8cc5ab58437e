"""The one DynamoDB read behind a changelist page: a limited Scan, a Query or a GetItem."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from typing import Any

from pynamodb.expressions.condition import Condition

from dynamo.indexes import GlobalIndex
from dynamo.models import DynamoModel

Key = dict[str, Any]


@dataclass
class Page:
    """One page of items and the key the next page starts after (None: the last page)."""

    items: list[DynamoModel]
    next_start: Key | None


def take_page(results: Any, per_page: int) -> Page:
    """Take up to per_page items from results read with Limit=per_page + 1 (one call).

    With an item left over, the iterator's last_evaluated_key is the last item taken; with
    none, it is DynamoDB's own (None at the end of the data): either way the next page's start.
    """
    items = list(islice(results, per_page))
    return Page(items, results.last_evaluated_key)


class Source:
    """What a listing reads; `scope` names it so a cursor cannot move to another listing."""

    sort_keys: tuple[str, ...] = ()
    ordered = False

    def read(self, model: type[DynamoModel], per_page: int, start: Key | None, forward: bool):
        raise NotImplementedError

    def scope(self, forward: bool) -> str:
        raise NotImplementedError

    def page(
        self, model: type[DynamoModel], per_page: int, start: Key | None, forward: bool = True
    ) -> Page:
        return take_page(self.read(model, per_page, start, forward), per_page)


class TableScan(Source):
    """The plain listing: a Scan with a limit, never the whole table."""

    def read(self, model, per_page, start, forward):
        return model.scan(limit=per_page + 1, last_evaluated_key=start)

    def scope(self, forward: bool) -> str:
        return "scan"


@dataclass
class IndexScan(Source):
    """A Scan of a sparse index, with a limit."""

    index: GlobalIndex

    def read(self, model, per_page, start, forward):
        return self.index.scan(limit=per_page + 1, last_evaluated_key=start)

    def scope(self, forward: bool) -> str:
        return f"scan:{self.index.Meta.index_name}"


class PartitionQuery(Source):
    """A Query of one partition, in its sort-key order or the reverse."""

    hash_key: Any
    range_key_condition: Condition | None

    def queried(self, model: type[DynamoModel]) -> Any:
        """Return what is queried: the model (its table) or one of its indexes."""
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError

    def read(self, model, per_page, start, forward):
        return self.queried(model).query(
            self.hash_key,
            range_key_condition=self.range_key_condition,
            scan_index_forward=forward,
            limit=per_page + 1,
            last_evaluated_key=start,
        )

    def scope(self, forward: bool) -> str:
        condition = "" if self.range_key_condition is None else repr(self.range_key_condition)
        direction = "asc" if forward else "desc"
        return f"{self.name()}:{self.hash_key!r}:{condition}:{direction}"


@dataclass
class IndexQuery(PartitionQuery):
    """A Query of one index partition."""

    index: GlobalIndex
    hash_key: Any
    range_key_condition: Condition | None = None

    def __post_init__(self) -> None:
        self.sort_keys = tuple(self.index.range_key_names())
        self.ordered = bool(self.sort_keys)

    def queried(self, model):
        return self.index

    def name(self) -> str:
        return f"query:{self.index.Meta.index_name}"


@dataclass
class TableQuery(PartitionQuery):
    """A Query of one partition of the table, optionally on a sort-key prefix."""

    hash_key: Any
    range_key_condition: Condition | None = None
    range_key: str = ""

    def __post_init__(self) -> None:
        self.sort_keys = (self.range_key,) if self.range_key else ()
        self.ordered = bool(self.range_key)

    def queried(self, model):
        return model

    def name(self) -> str:
        return "table"


@dataclass
class GetItem(Source):
    """A search for one exact key: a GetItem."""

    key: tuple[Any, ...]

    def page(self, model, per_page, start, forward=True) -> Page:
        item = model.get_or_none(*self.key)
        return Page([item] if item is not None else [], None)

    def scope(self, forward: bool) -> str:
        return f"get:{self.key!r}"
