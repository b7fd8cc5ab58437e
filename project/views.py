"""Project-wide pages: home and health."""

from __future__ import annotations

import logging

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from dynamo import health, tables
from dynamo.exceptions import describe, outage_cause
from dynamo.middleware import RETRY_AFTER_SECONDS

logger = logging.getLogger(__name__)


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def healthz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when the engine answers and every table exists, else 503, within 2 s.

    The check is shared by every request of the process for HEALTHZ_CHECK_SECONDS, so probes
    cannot multiply the engine's load however many arrive.
    """
    try:
        missing = health.missing_tables(tables.all_models(), max_age=settings.HEALTHZ_CHECK_SECONDS)
    except Exception as exc:
        if outage_cause(exc) is None:
            raise
        # The endpoint and the engine's words go to the log, never to whoever asks.
        logger.warning("healthz: DynamoDB unavailable: %s", describe(exc))
        return unavailable({"status": "unavailable"})
    if missing:
        return unavailable({"status": "unavailable", "missing_tables": missing})
    return JsonResponse({"status": "ok"})


def unavailable(body: dict) -> JsonResponse:
    response = JsonResponse(body, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
