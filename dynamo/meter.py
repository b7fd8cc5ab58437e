"""Count each request's or command's DynamoDB calls, their time and consumed capacity."""

from __future__ import annotations

import contextvars
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from . import deadline

READ_OPERATIONS = frozenset(
    {"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems", "ExecuteStatement"}
)
WRITE_OPERATIONS = frozenset(
    {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}
)
_START = "dynamo_meter_started"
_TARGETS = "dynamo_meter_targets"
_INSTRUMENTED = "dynamo_metered"  # set on a client's event emitter once it reports
# What each item of a transaction asks IAM for: DynamoDB authorizes the items, not the call.
TRANSACT_ITEM_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
    "Get": "GetItem",
}

# PartiQL is authorized statement by statement, as the action its first word names on the
# table (or `"table"."index"`) after FROM, INTO or UPDATE; EXISTS is a transaction's check.
PARTIQL_ACTIONS = {
    "SELECT": "PartiQLSelect",
    "EXISTS": "PartiQLSelect",
    "INSERT": "PartiQLInsert",
    "UPDATE": "PartiQLUpdate",
    "DELETE": "PartiQLDelete",
}
PARTIQL_TARGET = re.compile(
    r'\b(?:FROM|INTO|UPDATE)\s+(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_.-]*))'
    r'(?:\s*\.\s*(?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_-]*)))?',
    re.IGNORECASE,
)
PARTIQL_STRING = re.compile(r"'(?:[^']|'')*'")


@dataclass
class Call:
    """One DynamoDB API call as the meter saw it."""

    operation: str
    table: str
    seconds: float
    read_units: float
    write_units: float
    # (IAM action, resource) pairs: resource is a table name, `table/index/name` or `*`.
    targets: tuple[tuple[str, str], ...] = ()
    started: float | None = None  # time.perf_counter() when it was sent


@dataclass
class Meter:
    """The DynamoDB calls made inside one request or command."""

    calls: list[Call] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.calls)

    @property
    def seconds(self) -> float:
        """Return the time spent waiting on DynamoDB: calls sent together count once."""
        spans = sorted(
            (call.started, call.started + call.seconds)
            for call in self.calls
            if call.started is not None
        )
        total = sum(call.seconds for call in self.calls if call.started is None)
        end = float("-inf")
        for start, stop in spans:
            total += max(0.0, stop - max(start, end))
            end = max(end, stop)
        return total

    @property
    def read_units(self) -> float:
        return sum(call.read_units for call in self.calls)

    @property
    def write_units(self) -> float:
        return sum(call.write_units for call in self.calls)

    def count_of(self, operation: str) -> int:
        """Return how many calls of one operation (Query, Scan, ...) were made."""
        return sum(1 for call in self.calls if call.operation == operation)

    def summary(self) -> str:
        """Return a one-line human summary: calls, milliseconds, RCU and WCU."""
        return (
            f"{self.count} DynamoDB call{'s' if self.count != 1 else ''}, "
            f"{self.seconds * 1000:.1f} ms, "
            f"{self.read_units:g} RCU, {self.write_units:g} WCU"
        )

    def as_header(self) -> str:
        """Return the figures as a Server-Timing style header value."""
        return (
            f'dynamodb;dur={self.seconds * 1000:.1f};desc="{self.count} calls, '
            f'{self.read_units:g} RCU, {self.write_units:g} WCU"'
        )


_current: contextvars.ContextVar[Meter | None] = contextvars.ContextVar(
    "dynamo_meter", default=None
)


def current() -> Meter | None:
    """Return the meter of the running request or command, if one is open."""
    return _current.get()


@contextmanager
def metered() -> Iterator[Meter]:
    """Open a meter for the code inside the block; nested blocks each see their own calls."""
    meter = Meter()
    outer = _current.get()
    token = _current.set(meter)
    try:
        yield meter
    finally:
        _current.reset(token)
        if outer is not None:
            outer.calls.extend(meter.calls)


def _capacity(parsed: dict[str, Any], operation: str) -> tuple[float, float]:
    consumed = parsed.get("ConsumedCapacity") or []
    if isinstance(consumed, dict):
        consumed = [consumed]
    read = write = 0.0
    for entry in consumed:
        units = float(entry.get("CapacityUnits", 0) or 0)
        if "ReadCapacityUnits" in entry or "WriteCapacityUnits" in entry:
            read += float(entry.get("ReadCapacityUnits", 0) or 0)
            write += float(entry.get("WriteCapacityUnits", 0) or 0)
        elif operation in WRITE_OPERATIONS:
            write += units
        else:
            read += units
    return read, write


def stream_target(arn: str) -> str:
    """Return `table/stream` for a stream's ARN (`arn:...:table/NAME/stream/LABEL`), else `*`."""
    resource = arn.split(":", 5)[-1] if arn.startswith("arn:") else ""
    kind, _, rest = resource.partition("/")
    table, _, tail = rest.partition("/")
    return f"{table}/stream" if kind == "table" and tail.startswith("stream/") else "*"


def targets(operation: str, params: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Return the (IAM action, table or index) pairs one call needs permission for."""
    if "StreamArn" in params or "ShardIterator" in params:  # DynamoDB Streams
        # An iterator starts with its stream's ARN (`arn:...|1|...`), as AWS documents it.
        arn = params.get("StreamArn") or str(params["ShardIterator"]).split("|", 1)[0]
        return ((operation, stream_target(arn)),)
    if "TableName" in params:
        index = params.get("IndexName")
        return ((operation, params["TableName"] + (f"/index/{index}" if index else "")),)
    if "RequestItems" in params:  # BatchGetItem, BatchWriteItem
        return tuple((operation, table) for table in params["RequestItems"])
    if "TransactItems" in params:
        return tuple(
            (TRANSACT_ITEM_ACTIONS[kind], body["TableName"])
            for item in params["TransactItems"]
            for kind, body in item.items()
        )
    # ExecuteStatement, ExecuteTransaction, BatchExecuteStatement
    statements = params.get("TransactStatements") or params.get("Statements")
    if statements is None and "Statement" in params:
        statements = [params]
    if statements is not None:
        return tuple(statement_target(s["Statement"]) or (operation, "*") for s in statements)
    return ((operation, "*"),)  # ListTables and other account-wide calls


def statement_target(text: str) -> tuple[str, str] | None:
    """Return the (IAM action, table or index) of one PartiQL statement, or None if unread."""
    first = re.match(r"\s*([A-Za-z]+)", text)
    action = PARTIQL_ACTIONS.get(first.group(1).upper()) if first else None
    target = PARTIQL_TARGET.search(PARTIQL_STRING.sub("''", text))
    if action is None or target is None:
        return None
    quoted, plain, index_quoted, index_plain = target.groups()
    table = (quoted or plain).replace('""', '"')
    index = (index_quoted or index_plain or "").replace('""', '"')
    return action, table + (f"/index/{index}" if index else "")


def _ask_for_capacity(
    params: dict[str, Any], model: Any = None, context: dict[str, Any] | None = None, **_: Any
) -> None:
    members = getattr(getattr(model, "input_shape", None), "members", {})
    if "ReturnConsumedCapacity" in members:
        params.setdefault("ReturnConsumedCapacity", "TOTAL")
    if context is not None and model is not None:
        context[_TARGETS] = targets(model.name, params)


def _before_call(context: dict[str, Any] | None = None, **_: Any) -> None:
    if context is not None:
        context[_START] = time.perf_counter()


def _after_call(
    model: Any = None,
    parsed: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    **_: Any,
) -> None:
    meter = _current.get()
    if meter is None:
        return
    started = (context or {}).get(_START)
    seconds = time.perf_counter() - started if started is not None else 0.0
    operation = getattr(model, "name", "?")
    read, write = _capacity(parsed or {}, operation)
    table = ""
    if isinstance(parsed, dict):
        consumed = parsed.get("ConsumedCapacity")
        if isinstance(consumed, dict):
            table = consumed.get("TableName", "")
    targets = (context or {}).get(_TARGETS, ())
    meter.calls.append(Call(operation, table, seconds, read, write, targets, started))


def instrument(client: Any) -> Any:
    """Make a botocore DynamoDB client report its calls to the open meter (idempotent)."""
    events = client.meta.events
    # Models ask on every call: botocore inspects each handler's signature before it sees the
    # unique id already registered (four getfullargspec calls, half a millisecond a call).
    if getattr(events, _INSTRUMENTED, False):
        return client
    # Every call reports what it consumed, whoever makes it (PynamoDB or a raw client call);
    # a DynamoDB Streams client's events are named for its own service.
    service = client.meta.service_model.service_id.hyphenize()
    events.register(
        f"before-parameter-build.{service}", _ask_for_capacity, unique_id="dynamo-meter-ask"
    )
    events.register(f"before-call.{service}", _before_call, unique_id="dynamo-meter-before")
    # Each attempt waits no longer than the request has left (dynamo.deadline).
    events.register(f"before-send.{service}", deadline.before_send, unique_id="dynamo-deadline")
    events.register(f"after-call.{service}", _after_call, unique_id="dynamo-meter-after")
    events.register(
        f"after-call-error.{service}", _after_call_error, unique_id="dynamo-meter-error"
    )
    setattr(events, _INSTRUMENTED, True)
    return client


def _after_call_error(model: Any = None, context: dict[str, Any] | None = None, **_: Any) -> None:
    _after_call(model=model, parsed={}, context=context)
