"""The engine probe behind /healthz: every table described at once, an answer within 2 s.

One check runs per process at a time and its outcome answers every caller for `max_age`
seconds, so no number of probes costs the engine more than one check per interval.
"""

from __future__ import annotations

import contextvars
import functools
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

import botocore.session
from botocore.config import Config

from . import meter
from .exceptions import EngineUnavailable
from .models import DynamoModel, is_local_endpoint

# The probe's whole budget; each call has no retry, so a hung engine costs one read timeout.
DEADLINE_SECONDS = 1.8
TIMEOUTS = Config(connect_timeout=0.5, read_timeout=1.5, retries={"total_max_attempts": 1})
# Calls still hung at the deadline hold a worker until their read timeout, never a request.
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="healthz")
_lock = threading.Lock()
_checks: dict[tuple[str | None, ...], tuple[float, list[str] | Exception]] = {}


@functools.cache
def _session() -> botocore.session.Session:
    """One botocore session a process (used under the check's lock): its DynamoDB model is
    loaded once, not again for each endpoint's client inside a probe's time."""
    return botocore.session.get_session()


@functools.cache
def _client(host: str | None, region: str):
    keys = "local" if is_local_endpoint(host) else None  # fake keys for an engine on this host
    client = _session().create_client(
        "dynamodb",
        region,
        endpoint_url=host,
        config=TIMEOUTS,
        aws_access_key_id=keys,
        aws_secret_access_key=keys,
    )
    return meter.instrument(client)


def _exists(client, table: str) -> bool:
    try:
        client.describe_table(TableName=table)
    except client.exceptions.ResourceNotFoundException:
        return False
    return True


def _check(models: list[type[DynamoModel]]) -> list[str]:
    client = _client(models[0].Meta.host, models[0].Meta.region)  # one endpoint for every table
    names = [model.Meta.table_name for model in models]
    # Each call runs in the caller's context, so the request's meter counts it.
    futures = [_pool.submit(contextvars.copy_context().run, _exists, client, n) for n in names]
    done, pending = wait(futures, timeout=DEADLINE_SECONDS, return_when=FIRST_EXCEPTION)
    for future in done:
        future.result()  # the engine's own failure says more than the deadline
    if pending:
        raise EngineUnavailable(f"no answer within {DEADLINE_SECONDS:g} s")
    return [name for name, future in zip(names, futures, strict=True) if not future.result()]


def missing_tables(models: list[type[DynamoModel]], *, max_age: float = 0) -> list[str]:
    """Return the names of the tables that do not exist, from a check at most `max_age` s old.

    Raise EngineUnavailable past the deadline, and the engine's own failures as botocore does.
    """
    key = (models[0].Meta.host, *(model.Meta.table_name for model in models))
    asked = time.monotonic()
    if not _lock.acquire(timeout=DEADLINE_SECONDS):
        raise EngineUnavailable(f"no answer within {DEADLINE_SECONDS:g} s")
    try:
        # A check that ended after this call began answers it too: callers share one in flight.
        if key not in _checks or _checks[key][0] <= asked - max_age:
            try:
                outcome: list[str] | Exception = _check(models)
            except Exception as exc:
                outcome = exc
            _checks[key] = (time.monotonic(), outcome)
        outcome = _checks[key][1]
    finally:
        _lock.release()
    if isinstance(outcome, Exception):
        raise outcome
    return list(outcome)


def forget_checks() -> None:
    """Forget the shared outcomes, so the next call checks the engine."""
    with _lock:
        _checks.clear()
