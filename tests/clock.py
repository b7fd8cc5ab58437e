"""A clock a test moves forward, so it never sleeps out a cache's or a check's lifetime."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest


class Clock:
    """`time.time` and `time.monotonic`, both moved forward by `advance()`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = 0.0
        wall, monotonic = time.time, time.monotonic
        # The time module's own functions: Django's local-memory cache, the standings'
        # freshness and /healthz's interval all read them there.
        monkeypatch.setattr(time, "time", lambda: wall() + self.offset)
        monkeypatch.setattr(time, "monotonic", lambda: monotonic() + self.offset)

    def advance(self, seconds: float) -> None:
        """Move both clocks `seconds` forward."""
        self.offset += seconds


@pytest.fixture
def clock(monkeypatch) -> Iterator[Clock]:
    """A clock the test moves forward with `clock.advance(seconds)`."""
    yield Clock(monkeypatch)
