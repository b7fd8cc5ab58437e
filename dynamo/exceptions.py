"""Errors the DynamoDB layer raises for failures a user can cause."""

from __future__ import annotations


class ConflictError(Exception):
    """A conditional write lost: the stored item is not what the caller expected."""


class AlreadyExists(ConflictError):
    """An item with this key is stored already."""


class StaleVersion(ConflictError):
    """Someone else changed or deleted the item since it was read."""


class EngineUnavailable(Exception):
    """The DynamoDB endpoint cannot be reached or refuses our credentials."""


class BadKey(ValueError):
    """A key value typed by a user that DynamoDB cannot hold (too long, empty, a bad number)."""
