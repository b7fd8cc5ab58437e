"""Talent search: holders of a skill at a level with enough years, one Query per page."""

from __future__ import annotations

from botocore.exceptions import BotoCoreError, ClientError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from pynamodb.exceptions import PynamoDBException

from dynamo import cursors

from .forms import TalentSearchForm
from .models import UserSkill

PAGE_SIZE = 25
TEMPLATE = "users/search.html"


def talent_search(request: HttpRequest) -> HttpResponse:
    """Show the search form and, for a valid search, one page of matching holders."""
    form = TalentSearchForm(request.GET or None)
    context = {"form": form, "holders": None, "page_size": PAGE_SIZE}
    if not form.is_bound:
        return render(request, TEMPLATE, context)
    if not form.is_valid():
        return render(request, TEMPLATE, context, status=400)
    try:
        start = cursors.decode(request.GET.get("cursor"), form.scope())
    except cursors.InvalidCursor as exc:
        return render(request, TEMPLATE, {**context, "error": str(exc)}, status=400)
    data = form.cleaned_data
    results = UserSkill.search(
        data["skill"],
        data["level"] or None,
        data["min_years"],
        limit=PAGE_SIZE,
        last_evaluated_key=start,
    )
    try:
        holders = list(results)
    except (BotoCoreError, ClientError, PynamoDBException):
        error = "The search is unavailable right now. Please try again in a moment."
        return render(request, TEMPLATE, {**context, "error": error}, status=503)
    next_cursor = cursors.encode(results.last_evaluated_key, form.scope())
    context.update(
        holders=holders,
        is_first_page=start is None,
        first_url=_page_url(request, None),
        next_url=_page_url(request, next_cursor) if next_cursor else "",
    )
    return render(request, TEMPLATE, context)


def _page_url(request: HttpRequest, cursor: str | None) -> str:
    params = request.GET.copy()
    params.pop("cursor", None)
    if cursor:
        params["cursor"] = cursor
    return f"?{params.urlencode()}"
