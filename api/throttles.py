"""Failed bearer tokens per client address, with django-ninja's rate throttle and cache."""

from __future__ import annotations

import math

from axes.helpers import get_client_ip_address
from django.conf import settings
from django.core.cache import BaseCache, caches
from django.http import HttpRequest
from ninja.throttling import SimpleRateThrottle


class TokenFailureThrottle(SimpleRateThrottle):
    """Count failed tokens per client address; past the rate, refuse every token until it passes.

    Only failures are recorded (ninja's throttles count every request), in Django's cache:
    shared by every host once CACHE_URL is Redis. Two concurrent failures may both be counted
    as the last allowed one (a read, then a write): the limit can be passed by a request or two.
    Each host also counts in its own memory (the `host` cache): while Redis is down its reads
    miss and its writes are dropped (project/cache.py), and the host's count still holds.
    """

    scope = "bearer_failures"

    def __init__(self) -> None:
        super().__init__(rate=settings.API_TOKEN_FAILURE_RATE)

    def get_cache_key(self, request: HttpRequest) -> str | None:
        # The login throttle's address: REMOTE_ADDR unless settings trust a proxy in front.
        address = get_client_ip_address(request)
        return self.cache_format % {"scope": self.scope, "ident": address} if address else None

    def blocked(self, request: HttpRequest) -> bool:
        """Say whether this address has used up its failures; record nothing."""
        self.key = self.get_cache_key(request)
        if self.key is None:
            return False
        self.now = self.timer()
        self.history = max(
            (
                [t for t in store.get(self.key, []) if t > self.now - self.duration]
                for store in self.stores()
            ),
            key=len,
        )
        return len(self.history) >= self.num_requests

    def record_failure(self, request: HttpRequest) -> None:
        """Count one failed token for this address, in the shared cache and the host's own."""
        if not self.blocked(request) and self.key is not None:
            self.history.insert(0, self.now)
            for store in self.stores():
                store.set(self.key, self.history, self.duration)

    def stores(self) -> list[BaseCache]:
        """Return where failures are counted: the shared cache, then this host's memory."""
        return [self.cache, caches["host"]]

    def retry_after(self) -> int:
        """Return the whole seconds until the oldest counted failure leaves the window."""
        oldest = self.history[-1] if self.history else self.now
        return max(1, math.ceil(self.duration - (self.now - oldest)))
