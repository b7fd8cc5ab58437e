"""A health probe with its own tight deadline: an answer within 2 s whatever the engine does.

Its answer is shared: one check per process at a time, reused for `max_age` seconds, so any
number of load-balancer probes (or anonymous clients) costs the engine at most one check per
process per interval, and callers arriving during a check wait for that one.
"""

from __future__ import annotations

import contextvars
import threading
import time
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any

import botocore.session
from botocore.config import Config
from botocore.exceptions import ClientError

from . import meter
from .exceptions import EngineUnavailable
from .models import DynamoModel, is_local_endpoint

# The probe's whole budget, and each call's: no retries, so a hung engine costs one timeout.
DEADLINE_SECONDS = 1.8
CONNECT_TIMEOUT = 0.5
READ_TIMEOUT = 1.5

_clients: dict[tuple[Any, ...], Any] = {}
_sessions: list[botocore.session.Session] = []
_lock = threading.Lock()
# Hung calls end at their read timeout; until then they hold a worker, never a request.
_pool = ThreadPoolExecutor(max_workers=8, thread_name_prefix="healthz")
# The last check's end (monotonic) and outcome per set of tables; one check runs at a time.
_checks: dict[tuple[Any, ...], tuple[float, list[str] | BaseException]] = {}
_check_lock = threading.Lock()


def probe_client(model: type[DynamoModel]):
    """Return a DynamoDB client for the model's endpoint with the probe's timeouts (cached)."""
    meta = model.Meta
    key = (meta.host, meta.region)
    with _lock:
        if key not in _clients:
            # One session for every probe client: it loads DynamoDB's service model once.
            if not _sessions:
                _sessions.append(botocore.session.get_session())
            fake = "local" if is_local_endpoint(meta.host) else None
            _clients[key] = meter.instrument(
                _sessions[0].create_client(
                    "dynamodb",
                    region_name=meta.region,
                    endpoint_url=meta.host,
                    aws_access_key_id=fake,
                    aws_secret_access_key=fake,
                    config=Config(
                        connect_timeout=CONNECT_TIMEOUT,
                        read_timeout=READ_TIMEOUT,
                        retries={"total_max_attempts": 1, "mode": "standard"},
                    ),
                )
            )
        return _clients[key]


def _exists(client, model: type[DynamoModel]) -> bool:
    try:
        client.describe_table(TableName=model.Meta.table_name)
    except ClientError as exc:
        if exc.response.get("Error", {}).get("Code") == "ResourceNotFoundException":
            return False
        raise
    return True


def missing_tables(models: list[type[DynamoModel]], *, max_age: float = 0) -> list[str]:
    """Return the names of the tables that do not exist, checked at most `max_age` s ago.

    A check that ends after the call began answers it too, so concurrent callers share one.
    Raise EngineUnavailable past the deadline; any other failure of the engine (unreachable,
    refused) propagates as botocore raised it, to every caller sharing that check.
    """
    key = (models[0].Meta.host, *(model.Meta.table_name for model in models))
    asked = time.monotonic()
    if not _check_lock.acquire(timeout=DEADLINE_SECONDS):
        raise EngineUnavailable(f"no answer within {DEADLINE_SECONDS:g} s")
    try:
        last = _checks.get(key)
        if last is None or last[0] <= asked - max_age:
            try:
                outcome: list[str] | BaseException = _check(models)
            except Exception as exc:
                outcome = exc
            last = _checks[key] = (time.monotonic(), outcome)
    finally:
        _check_lock.release()
    if isinstance(last[1], BaseException):
        raise last[1]
    return list(last[1])


def forget_checks() -> None:
    """Forget the shared outcomes: the next call checks the engine (the engine changed)."""
    with _check_lock:
        _checks.clear()


def _check(models: list[type[DynamoModel]]) -> list[str]:
    """Describe every table at once, within the deadline; return those that do not exist."""
    client = probe_client(models[0])  # every table sits on one endpoint
    # Each call runs in the request's context, so the request's meter counts it.
    futures = {
        _pool.submit(contextvars.copy_context().run, _exists, client, model): model
        for model in models
    }
    done, pending = wait(futures, timeout=DEADLINE_SECONDS, return_when=FIRST_EXCEPTION)
    for future in done:
        if future.exception() is not None:
            raise future.exception()
    if pending:
        raise EngineUnavailable(f"no answer within {DEADLINE_SECONDS:g} s")
    return [futures[f].Meta.table_name for f in done if not f.result()]
