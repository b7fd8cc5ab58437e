"""The API's URLs: ninja's, with 404 and 405 answered as problem+json like every other error."""

from __future__ import annotations

from functools import wraps

from django.http import HttpRequest
from django.urls import URLPattern, re_path
from django.views.decorators.csrf import csrf_exempt

from .api import api
from .problems import problem


def _problem_for_405(view):
    @wraps(view)
    def wrapper(request: HttpRequest, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code == 405 and response.get("Content-Type", "").startswith("text/"):
            allowed = response["Allow"]
            response = problem(405, f"{request.method} is not allowed here; use {allowed}.")
            response["Allow"] = allowed
        return response

    return wrapper


@csrf_exempt
def not_found(request: HttpRequest, path: str):
    """Answer an unknown API path."""
    return problem(404, f"No API endpoint at /api/{path}.")


app_name = api.urls_namespace
urlpatterns = [
    URLPattern(p.pattern, _problem_for_405(p.callback), p.default_args, p.name)
    if isinstance(p, URLPattern)
    else p
    for p in api.urls[0]
] + [re_path(r"^(?P<path>.*)$", not_found)]
