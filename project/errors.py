"""Error pages Django's own handlers would answer less clearly: a too large request is a 413."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views import defaults

from api.problems import too_large


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Answer Django's 400s; a body over the limit (RequestDataTooBig) gets the 413 page."""
    # Django files RequestDataTooBig under SuspiciousOperation, so it reaches the 400 handler.
    if isinstance(exception, RequestDataTooBig):
        return render(request, "413.html", {"message": too_large()}, status=413)
    return defaults.bad_request(request, exception)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """Answer a form Django's CSRF check refused: the styled 403, saying how to send it again."""
    # Django logs the reason (django.security.csrf); the page says what the sender can do.
    message = (
        "This form could not be accepted: its security token is missing or out of date. "
        "This happens when cookies are blocked for this site or the page was open for long. "
        "Go back, reload the page and send the form again."
    )
    return render(request, "403.html", {"message": message}, status=403)


def locked_out(request: HttpRequest, response=None, credentials=None) -> HttpResponse:
    """Answer a login django-axes refused: the admin's styled page, a 429 with Retry-After."""
    from django.contrib import admin

    cool_off = int(settings.AXES_COOLOFF_TIME.total_seconds())
    context = {
        **admin.site.each_context(request),
        "title": "Too many failed logins",
        "minutes": max(cool_off // 60, 1),
    }
    page = render(request, "lockout.html", context, status=settings.AXES_HTTP_RESPONSE_CODE)
    page["Retry-After"] = str(cool_off)
    return page
