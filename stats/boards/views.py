"""The public leaderboard page and its JSON variant."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import urlencode
from django.utils.safestring import mark_safe

from dynamo.middleware import meter_visible
from dynamo.words import BadSearch, normalise
from stats.models import METRICS
from users.models import LearnerWord, User

from .cache import board_entry, fragment
from .ranking import BadLeaderboardRequest, check_metric

# With ?user=: whose rank, the rank, whether it is exact and how it is shown ("≈1,234").
USER_FIELDS = ("user", "user_rank", "user_rank_exact", "user_rank_label", "ranks_exact")
# A board search lists at most this many learners (a Query and a BatchGetItem of them).
MATCHES_SHOWN = 8
# RFC 9457: the board's and the learner page's JSON errors, as the API's (api/problems.py).
PROBLEM_CONTENT_TYPE = "application/problem+json"
METRIC_LABELS = {"xp": "XP", "streak": "Streak", "efficiency": "Efficiency", "accuracy": "Accuracy"}


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Show the top learners by one metric, or one learner's rank and neighbours."""
    metric = request.GET.get("metric", "xp")
    username = request.GET.get("user", "").strip() or None
    cursor = request.GET.get("cursor") or None
    try:
        check_metric(metric)
        entry = board_entry(metric, cursor=cursor, user=username)
    except BadLeaderboardRequest as exc:
        return _bad_request(request, metric, str(exc))
    data = entry["data"]
    if data is None and username:
        # Not a username on the board: the learner search, by name or a username's spelling.
        found = learners_called(username)
        if len(found) == 1:
            entry = board_entry(metric, cursor=cursor, user=found[0].username)
            data = entry["data"]
        elif found:
            return _matches(request, metric, username, found)
    if data is None:
        return _not_found(request, metric, username)
    if wants_json(request):
        response: HttpResponse = JsonResponse(_as_json(request, data))
    else:
        # The board's section (tabs, podium, rows, page links) is rendered once per cache
        # entry; the page around it (the staff meter footer among it) per request.
        board = fragment(entry, "board", lambda: _render_board(data, paged=bool(cursor)))
        response = _page(request, data["metric"], board)
    cache_headers(request, response)
    return response


def learners_called(text: str) -> list[User]:
    """Return the listed learners a board search names, the one it names exactly if any.

    The learner search's public words (users.models.LearnerWord): a prefix of any word of
    the name or the username, case and accents ignored; "kofi mensah", "Kofi.Mensah" and
    "@kofi.mensah" all name kofi.mensah. Never the email: its words are for staff only. One
    Query and one BatchGetItem of a few learners.
    """
    try:
        found = LearnerWord.find(text, limit=MATCHES_SHOWN, public=True)
    except BadSearch:
        return []
    listed = [learner for learner in found if not learner.is_deleted]
    wanted = normalise(text.strip().lstrip("@"))
    exact = [u for u in listed if wanted in (normalise(u.username), normalise(u.name))]
    return exact if len(exact) == 1 else listed


def _matches(request: HttpRequest, metric: str, text: str, found: list[User]) -> HttpResponse:
    """Show the learners a board search matches, each a link to their place on the board."""
    matches = [
        {
            "username": learner.username,
            "name": learner.name,
            "url": f"{request.path}?{urlencode({'metric': metric, 'user': learner.username})}",
        }
        for learner in found
    ]
    if wants_json(request):
        response: HttpResponse = JsonResponse({"metric": metric, "query": text, "matches": matches})
    else:
        context = {
            "metric": metric,
            "tabs": [(m, METRIC_LABELS[m]) for m in METRICS],
            "query": text,
            "matches": matches,
            "more": len(found) >= MATCHES_SHOWN,
            "username": text,
        }
        board = mark_safe(render_to_string("stats/leaderboard_matches.html", context))
        response = _page(request, metric, board)
    cache_headers(request, response)
    return response


def cache_headers(request: HttpRequest, response: HttpResponse) -> None:
    """Let shared caches keep an anonymous board as long as the server does, and no staff one."""
    if meter_visible(request):
        # The meter's headers and footer describe this request to staff: no shared copy.
        patch_cache_control(response, private=True)
    else:
        patch_cache_control(response, public=True, max_age=settings.LEADERBOARD_CACHE_SECONDS)
    # HTML or JSON by Accept; the meter by the login the session cookie carries.
    patch_vary_headers(response, ["Accept", "Cookie"])


def wants_json(request: HttpRequest) -> bool:
    """Return whether the request asks for JSON: ?format=json, or an Accept naming it."""
    if "format" in request.GET:
        return request.GET["format"] == "json"
    return "application/json" in request.headers.get("Accept", "")


def _as_json(request: HttpRequest, data: dict[str, Any]) -> dict[str, Any]:
    page = {name: data[name] for name in ("metric", "results", "next")}
    page["next_url"] = _next_url(request, data)
    if data["user"]:
        page |= {name: data[name] for name in USER_FIELDS}
    return page


def _next_url(request: HttpRequest, data: dict[str, Any]) -> str | None:
    if not data["next"]:
        return None
    query = {"metric": data["metric"], "cursor": data["next"]}
    if request.GET.get("format") == "json":
        query["format"] = "json"
    return f"{request.path}?{urlencode(query)}"


def display_value(metric: str, value: Any) -> str:
    """Return a metric's value as a page shows it: "1,234 XP", "3 days", "87.5%"."""
    if metric == "xp":
        return f"{int(value):,} XP"
    if metric == "streak":
        return f"{int(value)} day{'' if value == 1 else 's'}"
    return f"{value:.1f}%"


def _render_board(data: dict[str, Any], *, paged: bool) -> str:
    # No request: the board depends on its data alone, so one rendering serves every visitor.
    return render_to_string("stats/leaderboard.html", _context(data) | {"paged": paged})


def _page(request: HttpRequest, metric: str, board: str, status: int = 200) -> TemplateResponse:
    """Return the page around a rendered board section: title, styles, header and footer."""
    context = {"metric_label": METRIC_LABELS.get(metric), "board": board}
    return TemplateResponse(request, "stats/leaderboard_base.html", context, status=status)


def _context(data: dict[str, Any]) -> dict[str, Any]:
    metric = data["metric"]
    rows = [
        {
            "rank": row["rank"],
            "username": row["username"],
            "name": row["name"],
            "score": display_value(metric, row[metric]),
            "others": [
                (METRIC_LABELS[m], display_value(m, row[m])) for m in METRICS if m != metric
            ],
            "is_me": row["username"] == data["user"],
        }
        for row in data["results"]
    ]
    first_page = data["user"] is None and bool(rows) and rows[0]["rank"] == 1
    podium = rows[:3] if first_page else []
    return {
        "metric": metric,
        "metric_label": METRIC_LABELS[metric],
        "tabs": [(m, METRIC_LABELS[m]) for m in METRICS],
        "podium": podium,
        "rows": rows[len(podium) :],
        "next_cursor": data["next"],
        "username": data["user"],
        "user_rank": data["user_rank"],
        "user_rank_label": data["user_rank_label"],
        "ranks_exact": data["ranks_exact"],
    }


def _not_found(request: HttpRequest, metric: str, username: str) -> HttpResponse:
    return _error(request, metric, f"No learner called {username!r} is on the leaderboard.", 404)


def _bad_request(request: HttpRequest, metric: str, message: str) -> HttpResponse:
    return _error(request, metric, message, 400)


def _error(request: HttpRequest, metric: str, message: str, status: int) -> HttpResponse:
    if wants_json(request):
        return problem(message, status)
    context = {
        "message": message,
        "status": status,
        "metric": metric if metric in METRICS else "xp",
        "tabs": [(m, METRIC_LABELS[m]) for m in METRICS],
    }
    board = mark_safe(render_to_string("stats/leaderboard_error.html", context))
    return _page(request, metric, board, status)


def problem(message: str, status: int) -> JsonResponse:
    """Return a JSON error as RFC 9457 problem details, the shape of every API error."""
    # The body api/problems.py gives an error without field errors (stats may not import api).
    body = {
        "type": "about:blank",
        "title": HTTPStatus(status).phrase,
        "status": status,
        "detail": message,
    }
    return JsonResponse(body, status=status, content_type=PROBLEM_CONTENT_TYPE)
