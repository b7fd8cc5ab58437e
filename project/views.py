"""Project-wide pages: home and health."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from pynamodb.exceptions import PynamoDBException

from dynamo import tables


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def healthz(request: HttpRequest) -> JsonResponse:
    """Answer 200 when the DynamoDB engine answers and every table exists, else 503."""
    try:
        missing = [m.Meta.table_name for m in tables.all_models() if tables.describe(m) is None]
    except (BotoCoreError, ClientError, PynamoDBException) as exc:
        return JsonResponse({"status": "unavailable", "error": str(exc)[:200]}, status=503)
    if missing:
        return JsonResponse({"status": "unavailable", "missing_tables": missing}, status=503)
    return JsonResponse({"status": "ok"})
