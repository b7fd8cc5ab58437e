"""Errors the DynamoDB layer raises for failures a user can cause, and what an outage is."""

from __future__ import annotations

from collections.abc import Iterator

from botocore.exceptions import BotoCoreError, ClientError, ParamValidationError
from pynamodb.exceptions import PynamoDBException

# DynamoDB's answers that mean "not now" (or "not with these credentials or tables"), not
# "not this request": throttled past the retries, failing inside, or set up wrongly.
OUTAGE_CODES = frozenset(
    {
        "AccessDeniedException",
        "ExpiredTokenException",
        "InternalServerError",
        "InvalidSignatureException",
        "LimitExceededException",
        "MissingAuthenticationTokenException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "ResourceNotFoundException",
        "ServiceUnavailable",
        "ThrottlingException",
        "UnrecognizedClientException",
    }
)


class ConflictError(Exception):
    """A conditional write lost: the stored item is not what the caller expected."""


class AlreadyExists(ConflictError):
    """An item with this key is stored already."""


class StaleVersion(ConflictError):
    """Someone else changed or deleted the item since it was read."""


class EngineUnavailable(Exception):
    """The DynamoDB endpoint cannot be reached or refuses our credentials."""


class BadKey(ValueError):
    """A key value typed by a user that DynamoDB cannot hold (too long, empty, a bad number)."""


def causes(exc: BaseException) -> Iterator[BaseException]:
    """Yield the exception and what it wraps: PynamoDB's `cause`, then Python's chain."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        wrapped = current.cause if isinstance(current, PynamoDBException) else None
        current = wrapped or current.__cause__ or current.__context__


def outage_cause(exc: BaseException) -> BaseException | None:
    """Return the engine failure behind an exception (unreachable, timed out, throttled), if any."""
    for cause in causes(exc):
        if isinstance(cause, EngineUnavailable):
            return cause
        if isinstance(cause, ParamValidationError):
            return None  # a request we built wrongly: a bug, not an outage
        if isinstance(cause, BotoCoreError):
            return cause
        if isinstance(cause, ClientError):
            code = cause.response.get("Error", {}).get("Code")
            status = cause.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
            return cause if code in OUTAGE_CODES or status >= 500 else None
    return None


def describe(exc: BaseException) -> str:
    """Return a one-line reason for a failed DynamoDB call (for logs and commands, not pages)."""
    cause = exc
    while isinstance(cause, PynamoDBException) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ClientError):
        error = cause.response.get("Error", {})
        return f"DynamoDB refused the request: {error.get('Code')}: {error.get('Message')}"
    if isinstance(cause, BotoCoreError):
        return f"DynamoDB is unreachable: {cause}"
    return str(cause) or type(cause).__name__
