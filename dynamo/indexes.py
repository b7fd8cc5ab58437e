"""Global secondary indexes whose keys span several attributes (DynamoDB, November 2025)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pynamodb.attributes import Attribute
from pynamodb.constants import ATTR_NAME, ATTR_TYPE, KEY_TYPE, NON_KEY_ATTRIBUTES, PROJECTION_TYPE
from pynamodb.indexes import AllProjection, GlobalSecondaryIndex
from pynamodb.pagination import ResultIterator
from pynamodb.types import HASH, RANGE

MAX_KEY_ATTRIBUTES = 4

__all__ = ["AllProjection", "GlobalIndex", "KeyedResults"]


class GlobalIndex(GlobalSecondaryIndex):
    """A GSI with up to four partition and four sort attributes, kept in declaration order.

    PynamoDB 6.1 orders an index's key attributes alphabetically and rebuilds a cursor from the
    first hash and range attribute only; this class declares them in the order written (HASH
    first) and hands back cursors carrying every key attribute of the index and the table.
    """

    Meta: Any = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.Meta is None:
            return
        declared: dict[str, Attribute] = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Attribute):
                    declared[name] = value
        hashes = [a for a in declared.values() if a.is_hash_key]
        ranges = [a for a in declared.values() if a.is_range_key]
        if not hashes:
            raise ValueError(f"{cls.__name__} declares no partition (hash) key attribute")
        if len(hashes) > MAX_KEY_ATTRIBUTES or len(ranges) > MAX_KEY_ATTRIBUTES:
            raise ValueError(f"{cls.__name__}: at most {MAX_KEY_ATTRIBUTES} hash and sort keys")
        cls.Meta.key_attributes = hashes + ranges

    @classmethod
    def hash_key_names(cls) -> list[str]:
        """Return the partition key attribute names in declaration order."""
        return [a.attr_name for a in cls.Meta.key_attributes if a.is_hash_key]

    @classmethod
    def range_key_names(cls) -> list[str]:
        """Return the sort key attribute names in declaration order."""
        return [a.attr_name for a in cls.Meta.key_attributes if a.is_range_key]

    @classmethod
    def _get_schema(cls) -> dict[str, Any]:
        schema: dict[str, Any] = {
            "index_name": cls.Meta.index_name,
            "key_schema": [
                {ATTR_NAME: a.attr_name, KEY_TYPE: HASH if a.is_hash_key else RANGE}
                for a in cls.Meta.key_attributes
            ],
            "projection": {PROJECTION_TYPE: cls.Meta.projection.projection_type},
            "attribute_definitions": [
                {ATTR_NAME: a.attr_name, ATTR_TYPE: a.attr_type} for a in cls.Meta.key_attributes
            ],
        }
        if cls.Meta.projection.non_key_attributes:
            schema["projection"][NON_KEY_ATTRIBUTES] = cls.Meta.projection.non_key_attributes
        return schema

    def cursor_key_names(self) -> list[str]:
        """Return every attribute a cursor into this index must carry."""
        names = self._model.key_attribute_names()
        return names + [
            n for n in (a.attr_name for a in self.Meta.key_attributes) if n not in names
        ]

    def query(self, hash_key: Any, *args: Any, **kwargs: Any) -> KeyedResults:
        """Query the index; the results' `last_evaluated_key` carries every key attribute."""
        return KeyedResults(super().query(hash_key, *args, **kwargs), self.cursor_key_names())

    def scan(self, *args: Any, **kwargs: Any) -> KeyedResults:
        """Scan the index; the results' `last_evaluated_key` carries every key attribute."""
        return KeyedResults(super().scan(*args, **kwargs), self.cursor_key_names())


class KeyedResults(Iterator[Any]):
    """A ResultIterator whose mid-page cursor is rebuilt from every key attribute of an index."""

    def __init__(self, results: ResultIterator, key_names: list[str]) -> None:
        self._results = results
        self._key_names = key_names

    def __iter__(self) -> KeyedResults:
        return self

    def __next__(self) -> Any:
        return next(self._results)

    @property
    def last_evaluated_key(self) -> dict[str, Any] | None:
        results = self._results
        if results._index == results._count:
            return results.page_iter.last_evaluated_key
        item = results._items[results._index - 1]
        return {name: item[name] for name in self._key_names if name in item}

    @property
    def total_count(self) -> int:
        return self._results.total_count

    @property
    def page_iter(self):
        return self._results.page_iter
