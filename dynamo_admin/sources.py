"""The DynamoDB reads behind a changelist page: a limited Scan, a Query or a GetItem, or an
index read in its sort order across partitions (merged, or month by month); and their planning,
from the model's keys and indexes: which read lists the table in an attribute's order
(`ordered_reads`) and which answers a search (`search_read`)."""

from __future__ import annotations

import heapq
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC
from functools import partial
from itertools import islice
from typing import Any

from django.utils.translation import gettext as _
from pynamodb.attributes import Attribute
from pynamodb.constants import ITEMS, LAST_EVALUATED_KEY
from pynamodb.expressions.condition import Condition
from pynamodb.models import Model
from pynamodb.pagination import ResultIterator

from dynamo.indexes import GlobalIndex
from dynamo.models import DynamoModel

from .claims import fixed_value, split_for_query
from .keys import (
    hash_key_names,
    index_key_attribute,
    indexes_of,
    parse_key_value,
    python_name,
    range_key_names,
    searched,
    stored_key_names,
)
from .meta import meta, pk_of
from .stored import get_item, load, tolerant

Key = dict[str, Any]


@dataclass
class ReadCost:
    """What a filtered read of one page cost: items DynamoDB read, those kept, capacity."""

    read: int
    kept: int
    read_units: float
    budget: int
    spent: bool  # the budget ran out before the page was full


@dataclass
class Page:
    """One page of items and where the next page starts (None: the last page).

    The start is a key the next Query or Scan resumes after, or a merge's place in each of
    its partitions (PartitionMerge): either way shaped as a key, for the signed cursor.
    A read that DynamoDB filters says what it cost (`cost`), to be shown with the page.
    """

    items: list[DynamoModel]
    next_start: Key | None
    cost: ReadCost | None = None


# One filtered call reads at most this many items (fewer when the budget has less left).
SCAN_CALL_ITEMS = 1000
# What a filtered listing may read for one page, in items, unless its admin says otherwise
# (`list_read_budget`): about 125 RCU of a Scan of 1 KB items, eventually consistent.
LIST_READ_BUDGET = 1000


def next_limit(wanted: int, kept: int, read: int) -> int:
    """Return how many items the next call of a filtered read asks for (its Limit).

    `wanted` items to keep, `kept` of the `read` so far: the items still needed over the
    share kept, with a tenth more; all the first time, the most when nothing was kept.
    """
    if read == 0:
        return wanted
    if kept == 0:
        return SCAN_CALL_ITEMS
    return max(1, min(SCAN_CALL_ITEMS, math.ceil((wanted - kept) * read / kept * 1.1)))


def budgeted_page(
    model: type[Model],
    per_page: int,
    start: Key | None,
    call: Callable[[int, Key | None], Any],
    cursor_names: list[str],
    budget: int,
    keep: Callable[[dict[str, Any]], Any] | None = None,
) -> Page:
    """Take a full page from a filtered read, call by call, unless `budget` items are read first.

    `call(limit, start)` makes one Query or Scan call and returns DynamoDB's answer. DynamoDB
    filters what each call read, so a type few items hold may take many calls: they go on
    until the page is full, the data ends or `budget` items were read; the page then says
    so (no silently short page) and Next resumes where reading stopped. The first call
    reads a page and one more; each next one as many as the share kept so far says the page
    still needs (up to SCAN_CALL_ITEMS): few calls for a rare type, little read for a common one.
    `keep(raw)` returns what the page lists of a stored item, or None (default: the model's
    item as load() reads it).
    """
    keep = keep or partial(load, model)
    budget = max(budget, 1)  # a call reads one item at least
    found: list[tuple[dict[str, Any], Model]] = []
    read, units, spent = 0, 0.0, False
    position = start
    while True:
        data = call(min(next_limit(per_page + 1, len(found), read), budget - read), position)
        read += data.get("ScannedCount", 0)
        units += (data.get("ConsumedCapacity") or {}).get("CapacityUnits", 0)
        for raw in data.get(ITEMS, []):
            item = keep(raw)
            if item is not None:
                found.append((raw, item))
        position = data.get(LAST_EVALUATED_KEY)
        if len(found) > per_page or position is None:
            break
        if read >= budget:
            spent = len(found) < per_page
            break
    if len(found) > per_page:
        found = found[:per_page]
        position = {name: found[-1][0][name] for name in cursor_names}
    items = [item for _raw, item in found]
    return Page(items, position, ReadCost(read, len(items), units, budget, spent))


def unclaimed_items(
    table_name: str,
    models: Sequence[type[Model]] | None = None,
    per_page: int = 50,
    start: Key | None = None,
    budget: int = LIST_READ_BUDGET,
) -> Page:
    """Return a page of the stored items of a table that no model served on it claims.

    `models` are the models that may claim items (by default those Django's admin site
    registered); an item is claimed by a model of the table whose admin would list it
    (stored.load: its discriminator, its item_condition). The page's items are raw DynamoDB
    items; it is read as a filtered listing is (a Scan, until the page is full or `budget`
    items were read, its cost on the page).
    """
    if models is None:
        from django.contrib import admin

        models = [m for m in admin.site._registry if isinstance(m, type) and issubclass(m, Model)]
    served = models_on_table(models, table_name)
    if not served:
        raise ValueError(f"No model is served on the table {table_name!r}.")
    model = served[0]

    def keep(raw: dict[str, Any]) -> dict[str, Any] | None:
        return None if any(load(m, raw) is not None for m in served) else raw

    def call(limit: int, position: Key | None) -> Any:
        return model._get_connection().scan(limit=limit, exclusive_start_key=position)

    names = stored_key_names(model)
    return budgeted_page(model, per_page, start, call, names, budget, keep=keep)


def models_on_table(models: Sequence[type[Model]], table_name: str) -> list[type[Model]]:
    """Return the models among these whose table is `table_name`, each once."""
    return [m for m in dict.fromkeys(models) if m.Meta.table_name == table_name]


def take_page(results: Any, per_page: int) -> Page:
    """Take up to per_page items from results read with Limit=per_page + 1 (one call).

    With an item left over, the iterator's last_evaluated_key is the last item taken; with
    none, it is DynamoDB's own (None at the end of the data): either way the next page's start.
    """
    items = list(islice((item for item in results if item is not None), per_page))
    return Page(items, results.last_evaluated_key)


class Source:
    """What a listing reads; `scope` names it so a cursor cannot move to another listing."""

    sort_keys: tuple[str, ...] = ()
    ordered = False
    # What the changelist says it read ("Query of the index …"); ours are named there.
    description = ""

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
        return tolerant(model.scan(limit=per_page + 1, last_evaluated_key=start), model)

    def scope(self, forward: bool) -> str:
        return "scan"


@dataclass
class FilteredScan(Source):
    """A type's listing that no key or index serves: a Scan keeping the type's items.

    DynamoDB filters (the item_condition, the discriminator) after reading, and bills what
    it read: each page reads until it is full or `budget` items were read, and says so.
    """

    condition: Condition | None
    budget: int = LIST_READ_BUDGET

    def page(self, model, per_page, start, forward=True) -> Page:
        def call(limit: int, position: Key | None) -> Any:
            return model._get_connection().scan(
                filter_condition=self.condition, limit=limit, exclusive_start_key=position
            )

        return budgeted_page(model, per_page, start, call, stored_key_names(model), self.budget)

    def scope(self, forward: bool) -> str:
        return f"filtered-scan:{self.condition!r}"


@dataclass
class IndexScan(Source):
    """A Scan of a sparse index, with a limit."""

    index: GlobalIndex

    def read(self, model, per_page, start, forward):
        return tolerant(self.index.scan(limit=per_page + 1, last_evaluated_key=start), model)

    def scope(self, forward: bool) -> str:
        return f"scan:{self.index.Meta.index_name}"


# A Query narrowed by a filter expression makes at most this many calls a page: DynamoDB
# filters what each call read, so a value few items hold would otherwise walk the partition.
# Such a page may show fewer rows than a page holds; Next resumes where DynamoDB stopped.
NARROWED_CALLS_PER_PAGE = 3


class PartitionQuery(Source):
    """A Query of one partition, in its sort-key order or the reverse."""

    hash_key: Any
    range_key_condition: Condition | None
    # The chosen list filters that narrow it (a search's or another filter's Query).
    filter_condition: Condition | None = None
    # Set on a type's listing (claimed_read): a filtered page reads on to this many items.
    read_budget: int | None = None

    def queried(self, model: type[DynamoModel]) -> Any:
        """Return what is queried: the model (its table) or one of its indexes."""
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError

    def read(self, model, per_page, start, forward):
        queried = self.queried(model)
        if keyed_by_discriminator(model, queried):
            # PynamoDB would add the discriminator to the filter, which DynamoDB refuses on a
            # key attribute: the connection's own Query, each item then loaded (claimed) here.
            hash_value, index_name = self.serialized_hash_key(model)
            kwargs = {
                "range_key_condition": self.range_key_condition,
                "filter_condition": self.filter_condition,
                "index_name": index_name,
                "scan_index_forward": forward,
                "limit": per_page + 1,
                "exclusive_start_key": start,
            }
            connection = model._get_connection()
            results = ResultIterator(connection.query, (hash_value,), kwargs, limit=per_page + 1)
            return tolerant(results, model)
        results = queried.query(
            self.hash_key,
            range_key_condition=self.range_key_condition,
            filter_condition=self.filter_condition,
            scan_index_forward=forward,
            limit=per_page + 1,
            last_evaluated_key=start,
        )
        return tolerant(results, model)

    def serialized_hash_key(self, model: type[DynamoModel]) -> tuple[Any, str | None]:
        """Return the Query's hash key as stored, and the name of the index queried (or None)."""
        queried = self.queried(model)
        if queried is model:
            return model._serialize_keys(self.hash_key)[0], None
        return queried._hash_key_attribute().serialize(self.hash_key), queried.Meta.index_name

    def page(self, model, per_page, start, forward=True) -> Page:
        """Take a page; narrowed by a filter expression, from NARROWED_CALLS_PER_PAGE calls."""
        if self.read_budget is not None:
            hash_value, index_name = self.serialized_hash_key(model)

            # The connection's own Query: PynamoDB's would add the discriminator to the filter,
            # which DynamoDB refuses where the index is keyed by it.
            def call(limit: int, position: Key | None) -> Any:
                return model._get_connection().query(
                    hash_value,
                    range_key_condition=self.range_key_condition,
                    filter_condition=self.filter_condition,
                    index_name=index_name,
                    scan_index_forward=forward,
                    limit=limit,
                    exclusive_start_key=position,
                )

            names = self.cursor_names(model)
            return budgeted_page(model, per_page, start, call, names, self.read_budget)
        if self.filter_condition is None:
            return super().page(model, per_page, start, forward)
        calls = self.read(model, per_page, start, forward).page_iter  # one DynamoDB call each
        found: list[dict[str, Any]] = []
        for _call in range(NARROWED_CALLS_PER_PAGE):
            found += next(calls).get(ITEMS, [])
            if len(found) >= per_page or calls.last_evaluated_key is None:
                break
        next_start = calls.last_evaluated_key
        if len(found) > per_page:
            found = found[:per_page]
            next_start = {name: found[-1][name] for name in self.cursor_names(model)}
        items = [item for item in map(partial(load, model), found) if item is not None]
        return Page(items, next_start)

    def cursor_names(self, model: type[DynamoModel]) -> list[str]:
        """Return the stored key names a cursor into what is queried carries."""
        return stored_key_names(model)

    def scope(self, forward: bool) -> str:
        condition = "" if self.range_key_condition is None else repr(self.range_key_condition)
        narrowed = "" if self.filter_condition is None else f":{self.filter_condition!r}"
        direction = "asc" if forward else "desc"
        return f"{self.name()}:{self.hash_key!r}:{condition}{narrowed}:{direction}"


@dataclass
class IndexQuery(PartitionQuery):
    """A Query of one index partition."""

    index: GlobalIndex
    hash_key: Any
    range_key_condition: Condition | None = None

    def __post_init__(self) -> None:
        self.sort_keys = tuple(range_key_names(self.index))
        self.ordered = bool(self.sort_keys)

    def queried(self, model):
        return self.index

    def cursor_names(self, model: type[DynamoModel]) -> list[str]:
        names = stored_key_names(model)
        index_names = hash_key_names(self.index) + range_key_names(self.index)
        return names + [name for name in index_names if name not in names]

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
        item = get_item(model, self.key)
        return Page([item] if item is not None else [], None)

    def scope(self, forward: bool) -> str:
        return f"get:{self.key!r}"


def index_key(index: GlobalIndex, item: DynamoModel) -> Key:
    """Return the item's key in an index (the table's keys and the index's), as DynamoDB's."""
    model = type(item)
    attributes = model.get_attributes()
    names = list(meta(model).key_names)
    index_names = [python_name(model, n) for n in hash_key_names(index) + range_key_names(index)]
    names += [n for n in index_names if n not in names]
    key = {}
    for name in names:
        attribute = attributes[name]
        key[attribute.attr_name] = {attribute.attr_type: attribute.serialize(getattr(item, name))}
    return key


def key_value(model: type[DynamoModel], key: Key, name: str) -> Any:
    """Return one attribute's value from a DynamoDB key (a cursor's start)."""
    attribute = model.get_attributes()[python_name(model, name)]
    return attribute.deserialize(attribute.get_value(key[attribute.attr_name]))


# A partition's place in a merged listing's cursor: after a key ({"M": key}) or read to its
# end; a partition the cursor does not name starts from its first item. Each place is a
# DynamoDB attribute value, so the cursor keeps the shape of a key.
READ_TO_END = {"NULL": True}


@dataclass
class PartitionMerge(Source):
    """Every partition of an index with few, known partition values, merged in sort-key order.

    One Query per partition, merged and cut to a page, both ways. Where the index's sort key
    ends with the table's key (a sharded leaderboard: `ALL#0` … `ALL#k`, by score then
    username) every item has a unique place, so the cursor is the page's last item and each
    Query resumes at its key with the partition swapped in. Otherwise (the catalog's skills
    by name, one partition per category; any number of items may tie) the cursor holds each
    partition's own place: the key of the last item it gave to a page, or that it was read to
    its end. Items read beyond the page are read again by the next one, so no tie, order or
    page size can skip or repeat an item. Ties go by the table's key across partitions, in
    the engine's order within one.
    """

    index: GlobalIndex
    partitions: tuple[Any, ...]
    unique: bool = False  # the sort key ends with the table's key

    def __post_init__(self) -> None:
        self.sort_keys = tuple(range_key_names(self.index)[:1])
        self.ordered = True

    def order(self, model: type[DynamoModel]) -> Callable[[DynamoModel], tuple[Any, ...]]:
        """Return the merge's order of items: the index's sort key, then the table's key."""
        names = [python_name(model, n) for n in range_key_names(self.index)]
        names += [n for n in meta(model).key_names if n not in names]
        return lambda item: tuple(getattr(item, name) for name in names)

    def page(self, model, per_page, start, forward=True) -> Page:
        if self.unique:
            return self.unique_page(model, per_page, start, forward)
        places = dict(start or {})
        reads = {}  # partition: (its items after its place, a page and one more; its Query's end)
        for partition in self.partitions:
            place = places.get(str(partition))
            if place != READ_TO_END:
                after = place["M"] if place else None
                reads[str(partition)] = self.read_partition(
                    model, partition, per_page + 1, after, forward
                )
        order = self.order(model)
        streams = [[(name, item) for item in items] for name, (items, _) in reads.items()]
        merged = heapq.merge(*streams, key=lambda pair: order(pair[1]), reverse=not forward)
        taken = list(islice(merged, per_page))
        for name, (items, last_key) in reads.items():
            given = [item for taken_from, item in taken if taken_from == name]
            if len(given) == len(items):  # all it read is on the page: next from its Query's end
                places[name] = READ_TO_END if last_key is None else {"M": last_key}
            elif given:
                places[name] = {"M": index_key(self.index, given[-1])}
        more = any(places.get(str(partition)) != READ_TO_END for partition in self.partitions)
        return Page([item for _, item in taken], places if more else None)

    def unique_page(self, model, per_page, start, forward) -> Page:
        """Take a page, each partition read after the previous page's last item (its key there)."""
        hash_attribute = model.get_attributes()[python_name(model, hash_key_names(self.index)[0])]
        found = []
        for partition in self.partitions:
            after = None
            if start:
                typed = {hash_attribute.attr_type: hash_attribute.serialize(partition)}
                after = {**start, hash_attribute.attr_name: typed}
            found += self.read_partition(model, partition, per_page + 1, after, forward)[0]
        found.sort(key=self.order(model), reverse=not forward)
        items = found[:per_page]
        more = len(found) > per_page
        return Page(items, index_key(self.index, items[-1]) if more else None)

    def read_partition(self, model, partition, limit, after, forward) -> tuple[list, Key | None]:
        """Read up to limit items of one partition after a key; return them and where it stopped."""
        query = self.index.query(
            partition, scan_index_forward=forward, limit=limit, last_evaluated_key=after
        )
        items = [item for item in tolerant(query, model) if item is not None]
        return items, query.last_evaluated_key

    def scope(self, forward: bool) -> str:
        # The cursor of a tied merge holds every partition's place, not one key.
        kind = "merge" if self.unique else "merge-places"
        return f"{kind}:{self.index.Meta.index_name}:{'asc' if forward else 'desc'}"


# A walk back through months ends after this many months without a sign-up in a row.
EMPTY_MONTHS_ENDING_A_WALK = 12


@dataclass
class MonthWalk(Source):
    """A month-partitioned index (`YYYY-MM`, the date hierarchy's) newest first, month by month.

    One Query per month read: a page of 50 newest users is one call when the month holds 50,
    a few across quiet months. The walk ends after a year without a sign-up.
    """

    index: GlobalIndex

    def __post_init__(self) -> None:
        self.sort_keys = tuple(range_key_names(self.index)[:1])
        self.ordered = True

    def page(self, model, per_page, start, forward=False) -> Page:
        from django.utils import timezone

        month_name = hash_key_names(self.index)[0]
        if start:
            month = key_value(model, start, month_name)
        else:
            month = timezone.now().astimezone(UTC).strftime("%Y-%m")

        def read(month: str, start: Key | None, limit: int) -> tuple[list, Key | None]:
            query = self.index.query(
                month, scan_index_forward=False, limit=limit, last_evaluated_key=start
            )
            found = [item for item in tolerant(query, model) if item is not None]
            return found, query.last_evaluated_key

        items: list[DynamoModel] = []
        empty = 0
        while len(items) <= per_page and empty < EMPTY_MONTHS_ENDING_A_WALK and month >= "0001-01":
            got, more = read(month, start, per_page + 1 - len(items))
            items += got
            empty = 0 if got else empty + 1
            if more is None:  # the month is done: on to the one before
                month, start = previous_month(month), None
            else:  # the month holds more than it gave: go on inside it
                start = more
        shown = items[:per_page]
        more = len(items) > per_page
        return Page(shown, index_key(self.index, shown[-1]) if more else None)

    def scope(self, forward: bool) -> str:
        return f"walk:{self.index.Meta.index_name}:desc"


def previous_month(month: str) -> str:
    """Return the `YYYY-MM` before this one."""
    year, number = int(month[:4]), int(month[5:7])
    return f"{year - 1:04d}-12" if number == 1 else f"{year:04d}-{number - 1:02d}"


@dataclass
class WordSearch(Source):
    """A word search (dynamo.words): a Query of the word index, the owners in one BatchGetItem.

    The first page Queries each term (up to three) and lists by the narrowest;
    later pages resume that term's Query. Listed in the order of the matched word (a name's
    words, the email, the username), both ways; with `exact`, the item of that key (a
    GetItem) leads the first page, and is not read again when its words match.
    """

    words: Any  # a dynamo.words.WordIndex subclass
    text: str
    exact: tuple[Any, ...] | None = None

    def __post_init__(self) -> None:
        from dynamo.words import search_terms

        self.terms = search_terms(self.text)
        self.queried = self.words.query_terms(self.terms)  # raises BadSearch
        self.sort_keys = self.words.fields[:1]
        self.ordered = True

    def page(self, model, per_page, start, forward=True) -> Page:
        def read(term: str, resume: Key | None = None) -> tuple[list, Key | None]:
            results = self.words.entries_starting(
                term, limit=per_page + 1, last_evaluated_key=resume, forward=forward
            )
            page = take_page(results, per_page)
            return page.items, page.next_start

        if start:
            entries, more = read(self.words.term_resuming(self.queried, start), start)
            lead = None
        else:
            lead = None if self.exact is None else get_item(model, self.exact)
            entries, more = self.words.driving_query(self.queried, read)[1]
        known = () if lead is None else (lead,)
        items = self.words.owners_matching(entries, self.terms, known=known)
        if lead is not None:
            items = [lead, *(i for i in items if pk_of(i) != pk_of(lead))]
        return Page(items, more)

    def scope(self, forward: bool) -> str:
        direction = "asc" if forward else "desc"
        return f"words:{self.words.Meta.table_name}:{' '.join(self.terms)!r}:{direction}"


# --- planning --------------------------------------------------------------------------------
# Each ordered read of a listing, by the attribute it lists by: the read and its directions.
OrderedReads = dict[str, tuple[Source, tuple[bool, ...]]]


def word_index_of(model: type[DynamoModel]) -> Any:
    """Return the model's word index (a dynamo.words.WordIndex subclass), or None."""
    return getattr(model, "word_index", None)


def ordered_reads(
    model: type[DynamoModel],
    index_partitions: Callable[[GlobalIndex], Sequence[Any]],
    date_index: GlobalIndex | None = None,
) -> OrderedReads:
    """Return the reads that list the whole table in an attribute's order, and their directions.

    An index whose partition key has few known values (`index_partitions(index)`, the admin's
    get_index_partitions) is read by merging its partitions, both ways; the date hierarchy's
    month index is walked newest first. Any other order would take a Scan of everything: the
    listing is then in Scan order.
    """
    table_keys = stored_key_names(model)
    reads: OrderedReads = {}
    for index in indexes_of(model).values():
        range_names = range_key_names(index)
        partitions = index_partitions(index)
        if not partitions or not range_names:
            continue
        if len(partitions) == 1:
            read: Source = IndexQuery(index, partitions[0])
        else:
            unique = range_names[-len(table_keys) :] == table_keys
            read = PartitionMerge(index, tuple(partitions), unique=unique)
        reads.setdefault(range_names[0], (read, (True, False)))
    if date_index is not None and range_key_names(date_index):
        reads[range_key_names(date_index)[0]] = (MonthWalk(date_index), (False,))
    return reads


def keyed_by_discriminator(model: type[Model], queried: Any) -> bool:
    """Return whether the model's discriminator is a key attribute of the table or index
    queried (a type index): DynamoDB then refuses it in a Query's filter."""
    discriminator = model._get_discriminator_attribute()
    if discriminator is None:
        return False
    if queried is model:
        keys = stored_key_names(model)
    else:
        keys = [*hash_key_names(queried), *range_key_names(queried)]
    return discriminator.attr_name in keys


def claimed_read(
    model: type[Model], condition: Condition | None, budget: int = LIST_READ_BUDGET
) -> Source | None:
    """Return the cheapest exact read of a type's items on a shared table (None: no condition).

    A condition fixing the table's hash key (`PK = "SETTING"`) is a Query of that partition,
    its range part the key condition; one fixing an index's partition key, or a discriminator
    an index is partitioned by (a sparse or type index), a Query of that index; otherwise a
    Scan, filtered. What the key condition cannot hold is the Query's filter.
    """
    if condition is None:
        return None
    attributes = model.get_attributes()
    hash_name, *range_names = stored_key_names(model)
    fixed = fixed_value(condition, hash_name)
    if fixed is not None:
        range_condition, rest = split_for_query(
            condition, hash_name, range_names[0] if range_names else None
        )
        hash_attribute = attributes[python_name(model, hash_name)]
        range_key = python_name(model, range_names[0]) if range_names else ""
        read: PartitionQuery = TableQuery(
            typed_value(hash_attribute, fixed), range_condition, range_key=range_key
        )
        read.filter_condition, read.read_budget = rest, budget
        return read
    for index in indexes_of(model).values():
        index_hash = hash_key_names(index)
        if len(index_hash) != 1:
            continue
        fixed = fixed_value(condition, index_hash[0])
        if fixed is None:
            continue
        index_range = range_key_names(index)
        range_condition, rest = split_for_query(
            condition, index_hash[0], index_range[0] if len(index_range) == 1 else None
        )
        hash_attribute = index_key_attribute(index, index_hash[0])
        read = IndexQuery(index, typed_value(hash_attribute, fixed), range_condition)
        read.filter_condition, read.read_budget = rest, budget
        return read
    return FilteredScan(condition, budget)


def typed_value(attribute: Attribute, stored: dict[str, Any]) -> Any:
    """Return a stored value ({type: value}) as the attribute's Python value."""
    return attribute.deserialize(attribute.get_value(stored))


def key_terms(text: str) -> list[str]:
    """Split a search into key terms: `alice python`, `alice/python` or one term."""
    return [term for term in re.split(r"[\s/]+", text.strip()) if term][:2]


def search_read(model: type[DynamoModel], search_fields: Sequence[str], text: str) -> Source:
    """Return the read a search asks for: a word search, a GetItem or a Query by key.

    Raises ValueError (dynamo.words.BadSearch among them) with the problem, for a 400 page.
    """
    words = word_index_of(model)
    if words is not None and set(words.fields) & {f.lstrip("=^") for f in search_fields}:
        return word_search(model, words, search_fields, text)
    return key_search(model, search_fields, text)


def word_search(
    model: type[DynamoModel], words: Any, search_fields: Sequence[str], text: str
) -> WordSearch:
    """Return the word search, led by the exact key when `=<hash key>` is searched too."""
    hash_name = meta(model).key_names[0]
    exact = None
    if searched(model, search_fields, hash_name, "=") and len(key_terms(text)) == 1:
        try:
            exact = (parse_key_value(model.get_attributes()[hash_name], text.strip()),)
        except ValueError:
            exact = None  # not a key: the words alone answer
    return WordSearch(words, text, exact)


@dataclass
class FirstFound(Source):
    """The search read term by term, else the whole search as one hash key value.

    "Amazon DynamoDB" or "a/b#c" names no item as a hash key and a range key: it is then
    read as one key value. A cursor resumes whichever read its page came from.
    """

    terms: Source
    whole: Source
    whole_hash: Any

    def page(self, model, per_page, start, forward=True) -> Page:
        hash_attribute = model.get_attributes()[meta(model).key_names[0]]
        if start is not None:
            stored = start.get(hash_attribute.attr_name, {})
            own = stored == {hash_attribute.attr_type: hash_attribute.serialize(self.whole_hash)}
            return (self.whole if own else self.terms).page(model, per_page, start, forward)
        found = self.terms.page(model, per_page, start, forward)
        return found if found.items else self.whole.page(model, per_page, start, forward)

    def scope(self, forward: bool) -> str:
        return f"first:{self.terms.scope(forward)}|{self.whole.scope(forward)}"


def whole_key(model: type[Model], text: str, terms: Source) -> Source:
    """Return the search read term by term, then taken whole as the hash key (FirstFound)."""
    if len(key_terms(text)) < 2:
        return terms  # one term: read whole already
    hash_name, *range_names = meta(model).key_names
    try:
        value = parse_key_value(model.get_attributes()[hash_name], text)
    except ValueError:
        return terms
    whole = TableQuery(value, range_key=range_names[0]) if range_names else GetItem((value,))
    return FirstFound(terms, whole, value)


def key_search(model: type[DynamoModel], search_fields: Sequence[str], text: str) -> Source:
    """Return the key lookup a search asks for: its terms as the keys, else the whole text."""
    return whole_key(model, text.strip(), terms_search(model, search_fields, text))


def terms_search(model: type[DynamoModel], search_fields: Sequence[str], text: str) -> Source:
    """Return the key lookup of a search's terms: a GetItem or a Query on the table."""
    attributes = model.get_attributes()
    hash_name, *range_names = meta(model).key_names
    prefix = bool(range_names) and searched(model, search_fields, range_names[0], "^")
    terms = key_terms(text)
    if not terms:
        raise ValueError(_("Search by key: type a key value, not only separators."))
    try:
        hash_value = parse_key_value(attributes[hash_name], terms[0])
        if not range_names:
            return GetItem((hash_value,))
        if len(terms) == 1:
            return TableQuery(hash_value, range_key=range_names[0])
        range_attribute: Attribute = attributes[range_names[0]]
        # `ychen ^k`: the help's `^` typed as well, as Django's search_fields spell it.
        range_value = parse_key_value(range_attribute, terms[1].lstrip("^") or terms[1])
    except ValueError as exc:
        raise ValueError(_("Bad search: %(problem)s") % {"problem": exc}) from exc
    if prefix:
        return TableQuery(
            hash_value, range_attribute.startswith(range_value), range_key=range_names[0]
        )
    return GetItem((hash_value, range_value))
