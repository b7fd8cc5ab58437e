"""Show every DynamoDB call the code makes to the tests' watchers, from whatever thread makes it.

The code meters each client it uses (`dynamo.meter.instrument`); the test session wraps that
function with `instrument_and_watch`, so each such client also gets a botocore handler of the
tests'. The handler passes the call (its endpoint, operation and parameters) to each watcher:
the record of written tables in `tests.conftest` and the IAM audit in `tests.iam_audit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynamo import meter

# Each is called as watcher(endpoint, operation, params) before the call is sent.
watchers: list[Callable[[str, str, dict[str, Any]], None]] = []
_WATCHED = "tests_watched"  # set on a client's event emitter once it has the handler
_instrument = meter.instrument


def instrument_and_watch(client: Any) -> Any:
    """Meter a client as the code does, and show its calls to the watchers (idempotent)."""
    events = client.meta.events
    if not getattr(events, _WATCHED, False):
        endpoint = client.meta.endpoint_url

        def show(params: dict[str, Any], model: Any = None, **_: Any) -> None:
            for watcher in watchers:
                watcher(endpoint, model.name, params)

        service = client.meta.service_model.service_id.hyphenize()  # dynamodb-streams too
        events.register(f"before-parameter-build.{service}", show, unique_id="tests-watch")
        setattr(events, _WATCHED, True)
    return _instrument(client)
