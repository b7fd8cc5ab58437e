"""Production logs: JSON lines, and one line per HTTP request with its DynamoDB cost."""

from __future__ import annotations

import ipaddress
import json
import logging
import re
import time
import uuid
from datetime import UTC, datetime
from functools import lru_cache

from django.conf import settings
from django.http import HttpRequest

request_logger = logging.getLogger("skillboard.request")
# Attributes every LogRecord has; anything else was passed in `extra` and is logged as a field.
STANDARD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {
    "message",
    "asctime",
    "taskName",
}
# A request id from a trusted proxy is kept when it looks like one; anything else is replaced.
REQUEST_ID = re.compile(r"[A-Za-z0-9=;._:-]{1,200}")
# How much of a request id we did not keep goes into the log line beside ours.
CLIENT_ID_CHARS = 200


class JsonFormatter(logging.Formatter):
    """Format a record as one line of JSON: time, level, logger, message and its extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        entry.update(
            (key, value) for key, value in vars(record).items() if key not in STANDARD_ATTRIBUTES
        )
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


class RequestLogMiddleware:
    """Log one line per request: id, method, path, status, time and the DynamoDB meter's figures."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        incoming = request.headers.get("X-Request-ID", "")
        kept = REQUEST_ID.fullmatch(incoming) is not None and from_trusted_proxy(request)
        request.id = incoming if kept else uuid.uuid4().hex
        # Not ours to trust, but worth keeping: it may be the caller's own trace.
        client_id = (
            {"client_request_id": incoming[:CLIENT_ID_CHARS]} if incoming and not kept else {}
        )
        started = time.perf_counter()
        response = self.get_response(request)
        meter = getattr(request, "dynamo_meter", None)
        response["X-Request-ID"] = request.id
        request_logger.info(
            "%s %s %s",
            request.method,
            request.path,
            response.status_code,
            extra={
                "request_id": request.id,
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "ms": round((time.perf_counter() - started) * 1000, 1),
                "dynamodb_calls": meter.count if meter else 0,
                "dynamodb_ms": round(meter.seconds * 1000, 1) if meter else 0,
                "rcu": meter.read_units if meter else 0,
                "wcu": meter.write_units if meter else 0,
                **client_id,
            },
        )
        return response


def from_trusted_proxy(request: HttpRequest) -> bool:
    """Return whether the request's peer is one of DJANGO_TRUSTED_PROXIES."""
    networks = trusted_networks(tuple(settings.TRUSTED_PROXIES))
    try:
        peer = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(peer in network for network in networks)


@lru_cache(maxsize=8)
def trusted_networks(
    proxies: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """Return the proxies' networks (parsed once per setting's value)."""
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)
