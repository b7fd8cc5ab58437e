"""A request's deadline for DynamoDB: no attempt is sent after it, none waits past it.

Per-call timeouts alone do not bound a page: two attempts of a call to an unresponsive engine
take two read timeouts and botocore's backoff between them, and a page makes several calls. So
a request gets a deadline when it arrives (`within`), and before each attempt of each call,
on whatever thread sends it (the context is copied to a command's threads), the attempt's
read timeout is cut to the time left; with none left the call fails as an outage (a 503).
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .exceptions import EngineUnavailable

# The shortest read timeout worth an attempt: less is a certain failure, sent for nothing.
SHORTEST_ATTEMPT_SECONDS = 0.05

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "dynamo_deadline", default=None
)


@contextmanager
def within(seconds: float | None) -> Iterator[None]:
    """Give the DynamoDB calls made inside the block `seconds` in all (None: no deadline)."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def seconds_left() -> float | None:
    """Return the seconds left before the running request's deadline (None: it has none)."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def before_send(request: Any = None, **_: Any) -> None:
    """Cut one attempt's read timeout to the time left; refuse it when none is left."""
    left = seconds_left()
    if left is None or request is None:
        return
    if left < SHORTEST_ATTEMPT_SECONDS:
        raise EngineUnavailable("DynamoDB did not answer within the request's deadline")
    context = request.context
    configured = getattr(context.get("client_config"), "read_timeout", None) or left
    # botocore reads a per-request read timeout from the context (httpsession.py).
    context["read_timeout"] = min(configured, left)
