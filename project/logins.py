"""The admin's login attempts (django-axes' database handler), so guessing cannot lock staff out.

A username is locked only together with the address guessing it (`AXES_FAILURE_LIMIT`), so
failures for `root` from one address leave `root` free everywhere else; an address guessing
many usernames is locked at `AXES_ADDRESS_FAILURE_LIMIT`. On the next successful login, the
staff member is told how many failures their account had since their previous login.
"""

from __future__ import annotations

from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_failure_limit
from axes.models import AccessFailureLog, AccessLog
from django.conf import settings
from django.contrib import messages
from django.db.models import Max, Sum
from django.utils import formats, timezone
from django.utils.translation import ngettext


class LoginAttempts(AxesDatabaseHandler):
    """Count failures per (username, address) and per address, each against its own limit."""

    def get_failures(self, request, credentials: dict | None = None) -> int:
        """Return the failures axes compares with AXES_FAILURE_LIMIT, the address's rescaled.

        axes holds one limit; AXES_LOCKOUT_PARAMETERS lists the pair, then the address. The
        address's count is scaled to that limit (n * FAILURE_LIMIT // ADDRESS_FAILURE_LIMIT
        reaches it exactly when n reaches the address's own limit).
        """
        pair, address = (
            attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
            for attempts in self.get_user_attempts(request, credentials)
        )
        limit = get_failure_limit(request, credentials)
        return max(pair, address * limit // settings.AXES_ADDRESS_FAILURE_LIMIT)

    def user_logged_in(self, sender, request, user, **kwargs) -> None:
        """Log the login as axes does, then tell the staff member of the failures since the last."""
        username = user.get_username()
        # The previous login: axes logs each one, at the time the request began.
        previous = AccessLog.objects.filter(
            username=username, attempt_time__lt=request.axes_attempt_time
        ).aggregate(at=Max("attempt_time"))["at"]
        super().user_logged_in(sender, request, user, **kwargs)
        failures = AccessFailureLog.objects.filter(username=username)
        if previous is not None:
            failures = failures.filter(attempt_time__gt=previous)
        latest = failures.order_by("-attempt_time").first()
        if latest is None:
            return
        count = failures.count()
        when = formats.date_format(timezone.localtime(latest.attempt_time), "DATETIME_FORMAT")
        message = ngettext(
            "There was %(count)d failed login to your account since your last login, "
            "from %(address)s on %(when)s. If it was not you, tell an administrator.",
            "There were %(count)d failed logins to your account since your last login, "
            "the latest from %(address)s on %(when)s. If they were not you, tell an "
            "administrator.",
            count,
        ) % {"count": count, "address": latest.ip_address, "when": when}
        messages.warning(request, message, fail_silently=True)  # force_login has no messages
