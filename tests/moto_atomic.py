"""Make moto apply each DynamoDB write atomically, as DynamoDB does, for tests with threads.

moto evaluates a condition and applies an update in plain Python with no lock, so two
threads can interleave inside one UpdateItem; DynamoDB (and DynamoDB Local) never do.
"""

from __future__ import annotations

import functools
import threading

import pytest
from moto.dynamodb.models import DynamoDBBackend

WRITES = ("put_item", "update_item", "delete_item", "get_item", "transact_write_items")


@pytest.fixture
def atomic_writes(engine, monkeypatch):
    """On moto, serialise item reads and writes behind one lock; elsewhere, change nothing."""
    if engine != "moto":
        return
    lock = threading.RLock()
    for name in WRITES:
        original = getattr(DynamoDBBackend, name)

        @functools.wraps(original)
        def locked(*args, _original=original, **kwargs):
            with lock:
                return _original(*args, **kwargs)

        monkeypatch.setattr(DynamoDBBackend, name, locked)
