"""The public leaderboard page and its JSON variant."""

from __future__ import annotations

import hashlib
import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.http import urlencode

from users.models import User

from .leaderboard import BadLeaderboardRequest, Board, around, check_metric, top
from .models import METRICS

CACHE_SECONDS = 30
METRIC_LABELS = {"xp": "XP", "streak": "Streak", "efficiency": "Efficiency", "accuracy": "Accuracy"}


def leaderboard(request: HttpRequest) -> HttpResponse:
    """Show the top learners by one metric, or one learner's rank and neighbours."""
    metric = request.GET.get("metric", "xp")
    username = request.GET.get("user", "").strip()
    try:
        check_metric(metric)
        found, data = _cached(request, metric, username)
    except BadLeaderboardRequest as exc:
        return _bad_request(request, metric, str(exc))
    if not found:
        return _not_found(request, metric, username)
    if _wants_json(request):
        response: HttpResponse = JsonResponse(data)
    else:
        # The rows' HTML is cached beside the data under the same key and TTL ({% cache %}).
        fragment = {"board_seconds": settings.LEADERBOARD_CACHE_SECONDS}
        fragment["board_key"] = _cache_key(request, metric, username)
        response = TemplateResponse(request, "stats/leaderboard.html", data | fragment)
    patch_cache_control(response, public=True, max_age=CACHE_SECONDS)
    patch_vary_headers(response, ["Accept"])
    return response


# One lock per cache key and process: when an entry expires under load, one thread reads the
# board again while the others wait for it, so reads stay bounded per key, TTL and process.
_refill_locks: dict[str, threading.Lock] = {}
_refill_locks_guard = threading.Lock()


def _cached(request: HttpRequest, metric: str, username: str) -> tuple[bool, dict[str, Any]]:
    """Return (found, the page's context or JSON data), from the cache while it is fresh.

    The cache holds plain data, not responses, so each response keeps its own meter, headers
    and CSRF state; the key holds everything the data depends on, and nothing else (unknown
    query parameters cannot bypass it).
    """
    seconds = settings.LEADERBOARD_CACHE_SECONDS
    if seconds <= 0:
        return _read(request, metric, username)
    key = _cache_key(request, metric, username)
    hit = cache.get(key)
    if hit is not None:
        return hit
    with _refill_locks_guard:
        lock = _refill_locks.setdefault(key, threading.Lock())
    try:
        with lock:
            hit = cache.get(key)
            if hit is None:
                hit = _read(request, metric, username)
                cache.set(key, hit, seconds)
    finally:
        with _refill_locks_guard:
            _refill_locks.pop(key, None)
    return hit


def _cache_key(request: HttpRequest, metric: str, username: str) -> str:
    variant = "json" if _wants_json(request) else "html"
    if variant == "json" and request.GET.get("format") == "json":
        variant = "json-format"  # its next_url keeps ?format=json
    parts = (metric, request.GET.get("cursor", ""), username, variant, settings.LEADERBOARD_SHARDS)
    return "leaderboard:" + hashlib.sha256(repr(parts).encode()).hexdigest()


def _read(request: HttpRequest, metric: str, username: str) -> tuple[bool, dict[str, Any]]:
    board = around(metric, username) if username else _top(request, metric)
    if board is None:
        return False, {}
    names = _names(board.rows)
    if _wants_json(request):
        return True, _as_json(request, board, names)
    return True, _context(board, names)


def _top(request: HttpRequest, metric: str) -> Board:
    return top(metric, cursor=request.GET.get("cursor") or None)


def _wants_json(request: HttpRequest) -> bool:
    if "format" in request.GET:
        return request.GET["format"] == "json"
    return "application/json" in request.headers.get("Accept", "")


def _names(rows) -> dict[str, str]:
    """Return the learners' display names: copied into their stats, else one BatchGetItem."""
    names = {row.stats.username: row.stats.name for row in rows if row.stats.name}
    missing = list(dict.fromkeys(row.stats.username for row in rows if not row.stats.name))
    if missing:
        names |= {user.username: user.name for user in User.batch_get(missing)}
    return names


def _row_json(row, names: dict[str, str]) -> dict[str, Any]:
    stats = row.stats
    return {"rank": row.rank, "username": stats.username, "name": names.get(stats.username, "")} | {
        metric: getattr(stats, metric) for metric in METRICS
    }


def _next_url(request: HttpRequest, board: Board) -> str | None:
    if not board.next_cursor:
        return None
    query = {"metric": board.metric, "cursor": board.next_cursor}
    if request.GET.get("format") == "json":
        query["format"] = "json"
    return f"{request.path}?{urlencode(query)}"


def _as_json(request: HttpRequest, board: Board, names: dict[str, str]) -> dict[str, Any]:
    data: dict[str, Any] = {
        "metric": board.metric,
        "results": [_row_json(row, names) for row in board.rows],
        "next": board.next_cursor or None,
        "next_url": _next_url(request, board),
    }
    if board.username:
        data |= {"user": board.username, "user_rank": board.user_rank}
    return data


def _display(metric: str, value: Any) -> str:
    if metric == "xp":
        return f"{int(value):,} XP"
    if metric == "streak":
        return f"{int(value)} day{'' if value == 1 else 's'}"
    return f"{value:.1f}%"


def _context(board: Board, names: dict[str, str]) -> dict[str, Any]:
    rows = [
        {
            "rank": row.rank,
            "username": row.username,
            "name": names.get(row.username, ""),
            "score": _display(board.metric, getattr(row.stats, board.metric)),
            "others": [
                (METRIC_LABELS[m], _display(m, getattr(row.stats, m)))
                for m in METRICS
                if m != board.metric
            ],
            "is_me": row.username == board.username,
        }
        for row in board.rows
    ]
    first_page = board.username is None and bool(rows) and rows[0]["rank"] == 1
    podium = rows[:3] if first_page else []
    return {
        "metric": board.metric,
        "metric_label": METRIC_LABELS[board.metric],
        "tabs": [(m, METRIC_LABELS[m]) for m in METRICS],
        "podium": podium,
        "rows": rows[len(podium) :],
        "next_cursor": board.next_cursor,
        "username": board.username,
        "user_rank": board.user_rank,
    }


def _not_found(request: HttpRequest, metric: str, username: str) -> HttpResponse:
    return _error(request, metric, f"No learner called {username!r} is on the leaderboard.", 404)


def _bad_request(request: HttpRequest, metric: str, message: str) -> HttpResponse:
    return _error(request, metric, message, 400)


def _error(request: HttpRequest, metric: str, message: str, status: int) -> HttpResponse:
    if _wants_json(request):
        return JsonResponse({"error": message}, status=status)
    context = {
        "message": message,
        "status": status,
        "metric": metric if metric in METRICS else "xp",
        "tabs": [(m, METRIC_LABELS[m]) for m in METRICS],
    }
    return TemplateResponse(request, "stats/leaderboard_error.html", context, status=status)
