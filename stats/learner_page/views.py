"""The learner page at /learners/<username>/, and its JSON variant."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse

from dynamo.models import utcnow
from stats.boards.views import METRIC_LABELS, cache_headers, display_value, problem, wants_json
from stats.models import METRICS

from . import charts
from .page import BadPageRequest, learner_page


def learner(request: HttpRequest, username: str) -> HttpResponse:
    """Show a learner's own page: skills, metrics and ranks, a year of study, recent sessions."""
    cursor = request.GET.get("cursor") or None
    newer = request.GET.get("newer") or None
    try:
        data = learner_page(username, cursor=cursor, newer=newer, today=utcnow().date())
    except BadPageRequest as exc:
        return _learner_error(request, str(exc), 400)
    if data is None:  # unknown and soft-deleted alike: nothing tells them apart
        return _learner_error(request, f"No learner called {username!r}.", 404)
    if wants_json(request):
        response: HttpResponse = JsonResponse(data)
    else:
        response = TemplateResponse(request, "stats/learner.html", _learner_context(data))
    cache_headers(request, response)
    return response


def _learner_context(data: dict[str, Any]) -> dict[str, Any]:
    days = data["calendar"]
    return {
        "learner": data,
        "metrics": [
            {
                "metric": metric,
                "label": METRIC_LABELS[metric],
                "value": display_value(metric, data["metrics"][metric]["value"]),
                "rank": data["metrics"][metric]["rank"],
            }
            for metric in METRICS
        ],
        "calendar": charts.calendar(days["first_day"], days["last_day"], days["days"]),
        "chart": charts.weekly_xp(days["first_day"], days["last_day"], days["days"]),
        "year": charts.year_summary(days["days"]),
        "sessions": [
            s
            | {
                "when": datetime.fromisoformat(s["started_at"]).strftime("%Y-%m-%d %H:%M"),
                "minutes_label": charts.whole_minutes(s["minutes"]),
            }
            for s in data["sessions"]
        ],
        "is_first_page": not data["newer"],
    }


def _learner_error(request: HttpRequest, message: str, status: int) -> HttpResponse:
    if wants_json(request):
        return problem(message, status)
    context = {"message": message, "status": status}
    return TemplateResponse(request, "stats/learner_error.html", context, status=status)
