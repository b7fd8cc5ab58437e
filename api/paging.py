"""Lists move by the pages' signed cursors: `next` in the body and a `Link` header."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja.errors import HttpError

from dynamo import cursors


def next_url(request: HttpRequest, cursor: str) -> str:
    """Return the absolute URL of the next page: this request's query with the new cursor."""
    params = request.GET.copy()
    params["cursor"] = cursor
    return request.build_absolute_uri(f"{request.path}?{params.urlencode()}")


def link_next(request: HttpRequest, response: HttpResponse, cursor: str | None) -> None:
    """Add `Link: <next page>; rel="next"` when there is a next page."""
    if cursor:
        response["Link"] = f'<{next_url(request, cursor)}>; rel="next"'


def cursor_after(results, scope: str) -> str | None:
    """Return the signed cursor of the page after a Query's results (None on the last page)."""
    return cursors.encode(results.last_evaluated_key, scope) or None


def state_cursor(state: dict, scope: str) -> str:
    """Return a signed cursor carrying a listing's own state (a month, a key, a count)."""
    return cursors.sign(state, scope)


def state_of(cursor: str | None, scope: str) -> dict | None:
    """Return the state a cursor from state_cursor() carries, or raise a 400 for a bad one."""
    if not cursor:
        return None
    try:
        state = cursors.unsign(cursor, scope)
    except cursors.InvalidCursor as exc:
        raise HttpError(400, str(exc)) from exc
    key = state.get("k")
    if key is not None and not cursors.is_key(key):
        raise HttpError(400, "This page link is malformed.")
    return state


def start_of(cursor: str | None, scope: str):
    """Return the LastEvaluatedKey a cursor carries, or raise a 400 for a bad one."""
    try:
        return cursors.decode(cursor, scope)
    except cursors.InvalidCursor as exc:
        raise HttpError(400, str(exc)) from exc
