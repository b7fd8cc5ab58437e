"""Errors in one shape: RFC 9457 problem details, `application/problem+json`.

The too-large message is here, the lower layer, so the pages (project.errors) share it.
"""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.core.exceptions import ValidationError as ModelValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError, Throttled
from ninja.errors import ValidationError as RequestValidationError

from dynamo.exceptions import (
    AlreadyExists,
    BadKey,
    ConflictError,
    StaleVersion,
    describe,
    outage_cause,
)
from dynamo.middleware import RETRY_AFTER_SECONDS, UNAVAILABLE

CONTENT_TYPE = "application/problem+json"
# The one problem type with extension members; every other problem is about:blank.
INVALID_FIELDS = "urn:skillboard:problem:invalid-fields"
NON_FIELD = "__all__"

logger = logging.getLogger(__name__)


class FieldError(Schema):
    field: str
    message: str


class Problem(Schema):
    """An RFC 9457 problem: what went wrong, and for 422 one entry per bad field."""

    type: str = "about:blank"
    title: str
    status: int
    detail: str
    errors: list[FieldError] | None = None


def problem(
    status: int,
    detail: str,
    *,
    errors: list[dict[str, str]] | None = None,
    headers: dict[str, str] | None = None,
) -> HttpResponse:
    """Return a problem+json response for an HTTP status."""
    body: dict[str, Any] = {
        "type": INVALID_FIELDS if errors is not None else "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
    }
    if errors is not None:
        body["errors"] = errors
    response = JsonResponse(body, status=status, content_type=CONTENT_TYPE)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def invalid(errors: list[dict[str, str]]) -> HttpResponse:
    """Return the 422 problem naming every bad field."""
    fields = ", ".join(dict.fromkeys(e["field"] for e in errors))
    return problem(422, f"Some fields are invalid: {fields}.", errors=errors)


def model_errors(exc: ModelValidationError) -> list[dict[str, str]]:
    """Return one entry per message of a model's ValidationError (field_errors / full_clean)."""
    if hasattr(exc, "error_dict"):
        return [
            {"field": field, "message": message}
            for field, messages in exc.message_dict.items()
            for message in messages
        ]
    return [{"field": NON_FIELD, "message": message} for message in exc.messages]


def request_errors(exc: RequestValidationError) -> list[dict[str, str]]:
    """Return one entry per bad field of a request ninja could not parse."""
    entries = []
    for error in exc.errors:
        # loc is ("body", "payload", "years") or ("query", "cursor"): keep the field's path.
        loc = [str(part) for part in error.get("loc", ()) if part not in ("body", "payload")]
        if loc and loc[0] in ("query", "path", "header"):
            loc = loc[1:]
        entries.append({"field": ".".join(loc) or NON_FIELD, "message": error.get("msg", "")})
    return entries


def too_large() -> str:
    """Say how much of a request body the site reads (DATA_UPLOAD_MAX_MEMORY_SIZE)."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE / 1024 / 1024
    return f"The request is too large: this site reads at most {limit:.1f} MB of a form or body."


def outage() -> HttpResponse:
    """Return the 503 an engine outage gets: the pages' message and Retry-After."""
    return problem(503, UNAVAILABLE, headers={"Retry-After": str(RETRY_AFTER_SECONDS)})


def install(api) -> None:
    """Make every error the API answers a problem+json response."""

    @api.exception_handler(RequestValidationError)
    def on_request_invalid(request: HttpRequest, exc: RequestValidationError) -> HttpResponse:
        return invalid(request_errors(exc))

    @api.exception_handler(ModelValidationError)
    def on_model_invalid(request: HttpRequest, exc: ModelValidationError) -> HttpResponse:
        return invalid(model_errors(exc))

    @api.exception_handler(AuthenticationError)
    def on_unauthenticated(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        return problem(
            401,
            "Authenticate with a staff session or an 'Authorization: Bearer <token>' header.",
            headers={"WWW-Authenticate": 'Bearer realm="skillboard"'},
        )

    @api.exception_handler(RequestDataTooBig)
    def on_too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        return problem(413, too_large())

    @api.exception_handler(Throttled)
    def on_throttled(request: HttpRequest, exc: Throttled) -> HttpResponse:
        return problem(
            429,
            "Too many failed tokens from your address: wait before trying again.",
            headers={"Retry-After": str(exc.wait)},
        )

    @api.exception_handler(HttpError)
    def on_http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        return problem(exc.status_code, exc.message)

    @api.exception_handler(Http404)
    def on_not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return problem(404, str(exc) or "Not found.")

    @api.exception_handler(BadKey)
    def on_bad_key(request: HttpRequest, exc: BadKey) -> HttpResponse:
        return problem(400, str(exc))

    @api.exception_handler(ConflictError)
    def on_conflict(request: HttpRequest, exc: ConflictError) -> HttpResponse:
        return problem(409, str(exc))

    @api.exception_handler(AlreadyExists)
    def on_exists(request: HttpRequest, exc: AlreadyExists) -> HttpResponse:
        return problem(409, str(exc))

    @api.exception_handler(StaleVersion)
    def on_stale(request: HttpRequest, exc: StaleVersion) -> HttpResponse:
        return problem(412, f"{exc} Read it again and send its new ETag in If-Match.")

    @api.exception_handler(Exception)
    def on_error(request: HttpRequest, exc: Exception) -> HttpResponse:
        cause = outage_cause(exc)
        if cause is not None:
            logger.warning(
                "DynamoDB unavailable for %s %s: %s", request.method, request.path, describe(cause)
            )
            return outage()
        logger.exception("API request failed: %s %s", request.method, request.path)
        return problem(500, "Something went wrong on our side; it has been logged.")
