"""Meter every request's DynamoDB calls; answer an engine outage with a 503, a bad key with 400."""

from __future__ import annotations

import logging
from functools import partial

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import NoReverseMatch, reverse

from . import deadline, meter
from .conf import dynamo_settings
from .exceptions import BadKey, describe, outage_cause

logger = logging.getLogger(__name__)

# Seconds a client should wait before trying again: a throttle or a restart is over by then.
RETRY_AFTER_SECONDS = 5
UNAVAILABLE = "The data store is unavailable right now. Please try again in a moment."


class RequestMeterMiddleware:
    """Meter the request's DynamoDB calls: `request.dynamo_meter`, and headers for staff.

    A page (GET, HEAD) gets `DYNAMODB_REQUEST_DEADLINE` for all its calls from its arrival
    (dynamo.deadline); a write keeps each call's own timeouts, so it is never cut half-way,
    and so does a page of the admin: staff wait for a long listing rather than get a 503.

    The figures tell how the tables are read, so they go to staff and to DEBUG only: the
    `X-DynamoDB-*` and `Server-Timing` headers, and the footers (`request.show_dynamo_meter`).
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = dynamo_settings.DYNAMODB_REQUEST_DEADLINE
        if request.method not in ("GET", "HEAD") or is_admin_path(request.path_info):
            seconds = None
        with deadline.within(seconds), meter.metered() as request_meter:
            request.dynamo_meter = request_meter
            request.show_dynamo_meter = partial(meter_visible, request)
            response = self.get_response(request)
        if not meter_visible(request):
            return response
        response["X-DynamoDB-Calls"] = str(request_meter.count)
        response["X-DynamoDB-Capacity"] = (
            f"read={request_meter.read_units:g}; write={request_meter.write_units:g}"
        )
        response["Server-Timing"] = request_meter.as_header()
        return response


def is_admin_path(path: str) -> bool:
    """Return whether a path is under the admin site's (a project without one has none)."""
    try:
        return path.startswith(reverse("admin:index"))
    except NoReverseMatch:
        return False


class EngineFailureMiddleware:
    """Turn an engine failure raised by any view into a 503 with Retry-After, in one place.

    Views need not catch DynamoDB's errors: unreachable, timed out or throttled past the
    retries (botocore's errors, also wrapped in PynamoDB's) all end here as a 503 page, or
    JSON for a JSON client. A key DynamoDB cannot hold (BadKey) is the user's: a 400.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception):
        if isinstance(exception, BadKey):
            return error_response(request, 400, str(exception))
        cause = outage_cause(exception)
        if cause is None:
            return None  # not the engine's: Django's own handling (a 500) applies
        logger.warning(
            "DynamoDB unavailable for %s %s: %s", request.method, request.path, describe(cause)
        )
        response = error_response(request, 503, UNAVAILABLE)
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response


def meter_visible(request: HttpRequest) -> bool:
    """Return whether the request may see its DynamoDB figures: DEBUG, or a staff user."""
    if settings.DEBUG:
        return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated and user.is_staff)


def wants_json(request: HttpRequest) -> bool:
    """Return whether the client asked for JSON (`?format=json` or Accept preferring it)."""
    if request.GET.get("format") == "json":
        return True
    return request.get_preferred_type(["text/html", "application/json"]) == "application/json"


def error_response(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """Return an error page in the site's look, or a JSON body for a JSON client."""
    if wants_json(request):
        return JsonResponse({"status": status, "detail": message}, status=status)
    return render(request, f"{status}.html", {"message": message}, status=status)
