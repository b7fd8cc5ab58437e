"""The prologue of every API write to a stored item: permission, the item or 404, If-Match."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse

from dynamo.models import DynamoModel

from . import history
from .auth import require
from .locking import check_if_match, tag

Item = TypeVar("Item", bound=DynamoModel)


@contextmanager
def editing(
    request: HttpRequest,
    permission: str,
    read: Callable[..., Item],
    *key: str,
    response: HttpResponse | None = None,
) -> Iterator[Item]:
    """Yield the item `read(*key)` finds (or its 404) once the permission and If-Match allow it.

    The block writes the item with its history entry (api.history), conditional on the
    version If-Match named; after it, `response` carries the item's new ETag.
    """
    require(request, permission)
    item = read(*key)
    check_if_match(request, item)
    yield item
    if response is not None:
        tag(response, item)


def edit(
    request: HttpRequest,
    response: HttpResponse,
    permission: str,
    read: Callable[..., Item],
    *key: str,
    changes: dict[str, Any],
) -> Item:
    """Set `changes` on the item editing() gives, write it with its history entry; return it."""
    with editing(request, permission, read, *key, response=response) as item:
        history.change(request, item, changes)
    return item
