"""Django's Redis cache, degraded to no cache while Redis cannot be reached.

A shared cache only spares DynamoDB work: when Redis is down or unreachable, reads miss and
writes are dropped, so pages answer from the engine instead of failing. Django's own backend
raises on a connection error; this one logs the outage once per process (and its end once),
then keeps trying Redis on every call, so sharing resumes as soon as it answers again.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from typing import Any

from django.core.cache.backends import redis as django_redis
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger("skillboard.cache")
UNREACHABLE = (RedisConnectionError, RedisTimeoutError)

# Django builds one cache object per thread: the outage is the process's, so is its state.
_unreachable: set[str] = set()
_unreachable_guard = threading.Lock()


class RedisCache(django_redis.RedisCache):
    """Django's RedisCache whose calls miss, or do nothing, while Redis cannot be reached."""

    def __init__(self, server: str | list[str], params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._location = ",".join(self._servers)

    def _guarded(self, call: Callable[..., Any], fallback: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            result = call(*args, **kwargs)
        except UNREACHABLE as exc:
            self._went_down(exc)
            return fallback
        if self._location in _unreachable:
            self._came_back()
        return result

    def _went_down(self, exc: Exception) -> None:
        with _unreachable_guard:
            first = self._location not in _unreachable
            _unreachable.add(self._location)
        if first:
            logger.warning(
                "The cache at %s cannot be reached (%s): pages are served without it",
                self._location,
                " ".join(str(exc).split()) or type(exc).__name__,
                extra={"cache": self._location, "pid": os.getpid()},
            )

    def _came_back(self) -> None:
        with _unreachable_guard:
            was_down = self._location in _unreachable
            _unreachable.discard(self._location)
        if was_down:
            logger.warning(
                "The cache at %s answers again",
                self._location,
                extra={"cache": self._location, "pid": os.getpid()},
            )

    def get(self, key, default=None, version=None):
        return self._guarded(super().get, default, key, default, version)

    def get_many(self, keys, version=None):
        return self._guarded(super().get_many, {}, keys, version)

    def has_key(self, key, version=None):
        return self._guarded(super().has_key, False, key, version)

    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(super().set, None, key, value, timeout, version)

    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(super().add, False, key, value, timeout, version)

    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        # Django's contract: the keys that were not stored.
        return self._guarded(super().set_many, list(data), data, timeout, version)

    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return self._guarded(super().touch, False, key, timeout, version)

    def delete(self, key, version=None):
        return self._guarded(super().delete, False, key, version)

    def delete_many(self, keys, version=None):
        return self._guarded(super().delete_many, None, keys, version)

    def clear(self):
        return self._guarded(super().clear, False)
