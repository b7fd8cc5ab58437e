"""Who may call the API: a staff session (with Django's CSRF check) or a bearer token."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja.errors import AuthorizationError, Throttled
from ninja.security import APIKeyCookie, HttpBearer
from ninja.utils import check_csrf

from .models import ApiToken
from .throttles import TokenFailureThrottle


class BearerToken(HttpBearer):
    """`Authorization: Bearer <token>` with a live token of an active staff user."""

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        throttle = TokenFailureThrottle()
        # Checked before the lookup: a guessing client costs no database read once refused.
        if throttle.blocked(request):
            raise Throttled(wait=throttle.retry_after())
        user = ApiToken.user_for(token)
        if user is None:
            throttle.record_failure(request)
        else:
            # The owner acts: permissions, history entries and the meter's headers follow them.
            request.user = user
        return user


class StaffSession(APIKeyCookie):
    """A logged-in staff member's session; unsafe methods need Django's CSRF token too."""

    param_name = settings.SESSION_COOKIE_NAME

    def _get_key(self, request: HttpRequest) -> str | None:
        return request.COOKIES.get(self.param_name)

    def authenticate(self, request: HttpRequest, key: str | None) -> Any:
        user = getattr(request, "user", None)
        if user is None or not (user.is_authenticated and user.is_active and user.is_staff):
            return None
        if check_csrf(request) is not None:
            raise AuthorizationError(
                message="CSRF check failed: send the csrftoken cookie's value as X-CSRFToken."
            )
        return user


def require(request: HttpRequest, *perms: str) -> None:
    """Refuse the request with a 403 unless its user holds every one of Django's permissions."""
    missing = [perm for perm in perms if not request.user.has_perm(perm)]
    if missing:
        raise AuthorizationError(message=f"You need the permission {', '.join(missing)}.")


STAFF = [BearerToken(), StaffSession()]
