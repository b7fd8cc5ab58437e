"""A table page's query, read from its URL: a Query of the table or an index, or a Scan.

The query string is the whole query (bookmarkable): `index`, `mode` (query or scan), `pk`
(and `pk1` to `pk3` for the further partition attributes of an index with a multi-attribute
key), `sk_op`, `sk`, `sk2` (a condition on the first sort attribute; `s1_op`, `s1`, `s1_and`
to `s3_…` on the further sort attributes of such a key, left to right), `order`, filters
`f<n>`/`o<n>`/`v<n>`/`w<n>`/`t<n>`, `columns`, `cursor` and `confirm`. Each value is typed
as its attribute is stored: a key attribute as the table defines it, any other as its
filter's type says (text unless told). A page reads at most MAX_CALLS pages of at most
`per_page` items each, so a request's reads are bounded.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any

from django.http import QueryDict
from django.utils.translation import gettext as _

from dynamo import cursors
from dynamo.codec import NUMBER_RE, BadValue, decode_item, encode_item

from .expressions import Expression
from .tables import Index, Table

SORT_OPERATORS = ("=", "<", "<=", ">", ">=", "between", "begins_with")
FILTER_OPERATORS = (
    "=",
    "<>",
    "<",
    "<=",
    ">",
    ">=",
    "between",
    "begins_with",
    "contains",
    "exists",
    "not_exists",
    "type",
    "in",
)
VALUE_TYPES = ("S", "N", "B", "BOOL", "NULL")
STORED_TYPES = ("S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "M", "L")
MAX_FILTERS = 10
# The query string's names of a further sort attribute's condition (`s1_op`, `s1`, `s1_and`...).
SORT_PARAMS = {"op": "_op", "value": "", "and": "_and"}
MAX_IN_VALUES = 100  # DynamoDB's own limit on IN's list
PER_PAGE, MAX_PER_PAGE = 50, 200
MAX_CALLS = 10  # calls one page may make, whatever its filters leave out
# A Scan of a table over this size says its cost first and runs on a click.
SCAN_CONFIRM_BYTES = 10 * 1024 * 1024


class BadQuery(ValueError):
    """A query the page cannot run; the message says which field and why."""


@dataclass
class Filter:
    name: str
    operator: str
    value: str = ""
    second: str = ""
    type: str = ""


def typed(text: str, kind: str, what: str) -> dict[str, Any]:
    """Return a value typed as DynamoDB takes it; raise BadQuery naming the field."""
    if kind == "S":
        return {"S": text}
    if kind == "N":
        if not NUMBER_RE.fullmatch(text.strip()):
            raise BadQuery(
                _("%(what)s: %(value)r is not a number.") % {"what": what, "value": text}
            )
        return {"N": text.strip()}
    if kind == "B":
        try:
            return {"B": base64.b64decode(text.strip(), validate=True)}
        except (binascii.Error, ValueError):
            message = _("%(what)s: binary values are written in base64.") % {"what": what}
            raise BadQuery(message) from None
    if kind == "BOOL":
        if text.strip().lower() not in ("true", "false"):
            raise BadQuery(_("%(what)s: a boolean is true or false.") % {"what": what})
        return {"BOOL": text.strip().lower() == "true"}
    if kind == "NULL":
        return {"NULL": True}
    raise BadQuery(_("%(what)s: unknown type %(type)r.") % {"what": what, "type": kind})


@dataclass
class Console:
    """The query a table page's URL holds."""

    table: Table
    index: Index | None = None
    mode: str = "scan"
    pk: str = ""
    more_pks: list[str] = field(default_factory=list)  # an index's further partition values
    sk_op: str = ""
    sk: str = ""
    sk2: str = ""
    # An index's further sort attributes: (operator, value, second value) each, in key order.
    more_sorts: list[tuple[str, str, str]] = field(default_factory=list)
    descending: bool = False
    filters: list[Filter] = field(default_factory=list)
    columns: list[str] = field(default_factory=list)
    per_page: int = PER_PAGE
    cursor: str = ""
    confirmed: bool = False

    @classmethod
    def from_query(cls, table: Table, params: QueryDict) -> Console:
        """Read the query string; raise BadQuery for a value the page cannot use."""
        console = cls(table)
        index_name = params.get("index", "")
        if index_name:
            console.index = table.index(index_name)
            if console.index is None:
                raise BadQuery(_("The table has no index %(name)r.") % {"name": index_name})
        console.mode = params.get("mode") or ("query" if params.get("pk") else "scan")
        if console.mode not in ("query", "scan"):
            raise BadQuery(_("Choose Query or Scan."))
        console.pk = params.get("pk", "")
        console.more_pks = [params.get(f"pk{n}", "") for n in range(1, len(console.hash_keys))]
        console.sk_op, console.sk, console.sk2 = (params.get(k, "") for k in ("sk_op", "sk", "sk2"))
        console.more_sorts = [
            (params.get(f"s{n}_op", ""), params.get(f"s{n}", ""), params.get(f"s{n}_and", ""))
            for n in range(1, len(console.range_keys))
        ]
        for op in (console.sk_op, *(sort[0] for sort in console.more_sorts)):
            if op and op not in SORT_OPERATORS:
                raise BadQuery(_("Unknown sort key condition %(op)r.") % {"op": op})
        console.descending = params.get("order") == "desc"
        for n in range(MAX_FILTERS):
            name = params.get(f"f{n}", "").strip()
            if not name:
                continue
            operator = params.get(f"o{n}", "=")
            if operator not in FILTER_OPERATORS:
                raise BadQuery(_("Unknown filter condition %(op)r.") % {"op": operator})
            kind = params.get(f"t{n}", "")
            if kind and kind not in VALUE_TYPES:
                raise BadQuery(_("Unknown value type %(type)r.") % {"type": kind})
            values = (params.get(f"v{n}", ""), params.get(f"w{n}", ""))
            console.filters.append(Filter(name, operator, *values, kind))
        console.columns = [c.strip() for c in params.get("columns", "").split(",") if c.strip()]
        try:
            console.per_page = min(MAX_PER_PAGE, max(1, int(params.get("per_page") or PER_PAGE)))
        except ValueError:
            raise BadQuery(_("Items per page is a whole number.")) from None
        console.cursor = params.get("cursor", "")
        console.confirmed = params.get("confirm") == "1"
        return console

    # --- what the read is ---------------------------------------------------------------
    @property
    def hash_key(self) -> str:
        return self.index.hash_key if self.index else self.table.hash_key

    @property
    def hash_keys(self) -> list[str]:
        """Return the partition attributes a Query gives a value for, in the key's order
        (several for an index with a multi-attribute key)."""
        return self.index.hash_keys if self.index else [self.table.hash_key]

    @property
    def multi_attribute(self) -> bool:
        """Return whether the index read has a key of several attributes."""
        return bool(self.index and self.index.multi_attribute)

    @property
    def key_fields(self) -> list[dict[str, str]]:
        """Return the form's partition fields: each attribute, its parameter and value."""
        params = ["pk", *(f"pk{n}" for n in range(1, len(self.hash_keys)))]
        values = [self.pk, *self.more_pks]
        return [
            {"name": name, "param": param, "value": value}
            for name, param, value in zip(self.hash_keys, params, values, strict=True)
        ]

    @property
    def range_key(self) -> str | None:
        return self.index.range_key if self.index else self.table.range_key

    @property
    def range_keys(self) -> list[str]:
        """Return the sort attributes, in the key's order (several for a multi-attribute key)."""
        if self.index:
            return self.index.range_keys
        return [self.table.range_key] if self.table.range_key else []

    @property
    def sort_fields(self) -> list[dict[str, str]]:
        """Return the form's sort rows: each attribute, its parameters and their values."""
        names = self.range_keys
        first = {"op": "sk_op", "value": "sk", "and": "sk2"}
        params = [first, *({k: f"s{n}{v}" for k, v in SORT_PARAMS.items()} for n in range(1, 4))]
        values = [(self.sk_op, self.sk, self.sk2), *self.more_sorts]
        values += [("", "", "")] * (len(names) - len(values))  # a console not read from a URL
        return [
            {"name": name, "params": param, "op": op, "value": value, "and": second}
            for name, param, (op, value, second) in zip(
                names, params[: len(names)], values[: len(names)], strict=True
            )
        ]

    @property
    def is_query(self) -> bool:
        return self.mode == "query"

    def needs_confirmation(self) -> bool:
        """Return whether this read is a Scan of a table too big to scan without a click."""
        return (
            not self.is_query
            and not self.confirmed
            and not self.cursor
            and self.table.size_bytes > SCAN_CONFIRM_BYTES
        )

    def type_of(self, name: str, told: str = "") -> str:
        """Return a value's type: a key's as the table defines it, else as the filter says,
        else as a registered model declares the attribute, else text."""
        keys = self.table.attribute_types
        return keys.get(name) or told or self.table.declared_types().get(name) or "S"

    def request(self) -> dict[str, Any]:
        """Return the Query or Scan request (without its start key); raise BadQuery."""
        request: dict[str, Any] = {"TableName": self.table.name, "Limit": self.per_page}
        if self.index:
            request["IndexName"] = self.index.name
        expression = Expression()
        if self.is_query:
            request["KeyConditionExpression"] = self.key_condition(expression)
            request["ScanIndexForward"] = not self.descending
        conditions = [self.filter_condition(f, expression) for f in self.filters]
        if conditions:
            request["FilterExpression"] = " AND ".join(conditions)
        if self.columns:
            wanted = [*self.columns, *(k for k in self.table.key_names if k not in self.columns)]
            request["ProjectionExpression"] = ", ".join(expression.name(c) for c in wanted)
        return expression.into(request)

    def key_condition(self, expression: Expression) -> str:
        """Return the key condition: each partition attribute equal to its value, then the
        conditions on the sort attributes. DynamoDB takes a multi-attribute key's sort
        attributes left to right: every one before the last with a condition must be equal to
        a value, and none may be skipped."""
        parts = []
        for key in self.key_fields:
            name, value = key["name"], key["value"]
            if not value:
                raise BadQuery(_("A Query needs the value of %(key)s.") % {"key": name})
            typed_value = expression.value(typed(value, self.type_of(name), name))
            parts.append(f"{expression.name(name)} = {typed_value}")
        sorts = self.sort_fields
        asked = [n for n, sort in enumerate(sorts) if sort["op"]]
        for n in asked:
            before = next((s for s in sorts[:n] if s["op"] != "="), None)
            if before is not None:
                raise BadQuery(
                    _(
                        "A condition on %(later)s needs %(earlier)s = a value first: DynamoDB "
                        "reads the sort attributes of a key left to right."
                    )
                    % {"later": sorts[n]["name"], "earlier": before["name"]}
                )
        for sort in (sorts[n] for n in asked):
            parts.append(self.sort_condition(expression, sort))
        return " AND ".join(parts)

    def sort_condition(self, expression: Expression, sort: dict[str, str]) -> str:
        """Return one sort attribute's condition, its values typed as the attribute is."""
        name, kind = sort["name"], self.type_of(sort["name"])
        key, first = expression.name(name), expression.value(typed(sort["value"], kind, name))
        if sort["op"] == "between":
            second = expression.value(typed(sort["and"], kind, name))
            return f"{key} BETWEEN {first} AND {second}"
        if sort["op"] == "begins_with":
            return f"begins_with({key}, {first})"
        return f"{key} {sort['op']} {first}"

    def filter_condition(self, f: Filter, expression: Expression) -> str:
        name, kind = expression.name(f.name), self.type_of(f.name, f.type)
        what = f.name
        if f.operator == "exists":
            return f"attribute_exists({name})"
        if f.operator == "not_exists":
            return f"attribute_not_exists({name})"
        if f.operator == "type":
            if f.value not in STORED_TYPES:
                raise BadQuery(
                    _("%(what)s: a type is one of %(types)s.")
                    % {"what": what, "types": ", ".join(STORED_TYPES)}
                )
            return f"attribute_type({name}, {expression.value({'S': f.value})})"
        if f.operator == "in":
            texts = [t.strip() for t in f.value.split(",") if t.strip()]
            if not texts or len(texts) > MAX_IN_VALUES:
                raise BadQuery(
                    _("%(what)s: IN takes 1 to 100 values, separated by commas.") % {"what": what}
                )
            values = [expression.value(typed(t, kind, what)) for t in texts]
            return f"{name} IN ({', '.join(values)})"
        value = expression.value(typed(f.value, kind, what))
        if f.operator == "between":
            return f"{name} BETWEEN {value} AND {expression.value(typed(f.second, kind, what))}"
        if f.operator in ("begins_with", "contains"):
            return f"{f.operator}({name}, {value})"
        return f"{name} {f.operator} {value}"


@dataclass
class Read:
    """One Query or Scan call of a page: what it evaluated, matched and consumed."""

    scanned: int
    matched: int
    read_units: float


@dataclass
class Page:
    items: list[dict[str, Any]]
    reads: list[Read]
    next_cursor: str = ""

    @property
    def read_units(self) -> float:
        return sum(read.read_units for read in self.reads)

    @property
    def scanned(self) -> int:
        return sum(read.scanned for read in self.reads)


def scope_of(console: Console) -> str:
    """Return what a cursor is bound to: the table, the index and the read's direction."""
    return f"tables:{console.table.name}:{console.index.name if console.index else ''}"


def read_page(dynamodb, console: Console) -> Page:
    """Read one page of the console's query: at most `per_page` items in MAX_CALLS calls.

    Each call asks for no more items than the page still lacks, so no item is read twice and
    the next page starts at the last call's LastEvaluatedKey; raise BadQuery for a bad cursor.
    """
    request = console.request()
    try:
        start = cursors.decode(console.cursor, scope_of(console))
        if start is not None:
            request["ExclusiveStartKey"] = decode_item(start)
    except (cursors.InvalidCursor, BadValue) as exc:
        raise BadQuery(str(exc)) from None
    call = dynamodb.query if console.is_query else dynamodb.scan
    page = Page([], [])
    last_key = None
    for _call in range(MAX_CALLS):
        request["Limit"] = console.per_page - len(page.items)
        answer = call(**request, ReturnConsumedCapacity="TOTAL")
        page.items += answer.get("Items", [])
        capacity = (answer.get("ConsumedCapacity") or {}).get("CapacityUnits", 0)
        page.reads.append(Read(answer.get("ScannedCount", 0), answer.get("Count", 0), capacity))
        last_key = answer.get("LastEvaluatedKey")
        if not last_key or len(page.items) >= console.per_page:
            break
        request["ExclusiveStartKey"] = last_key
    if last_key:
        page.next_cursor = cursors.encode(encode_item(last_key), scope_of(console))
    return page
