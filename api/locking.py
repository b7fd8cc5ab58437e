"""Optimistic locking over HTTP: an item's `version` is its ETag; writes need If-Match."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from ninja.errors import HttpError

from dynamo.models import DynamoModel


def etag_of(item: DynamoModel) -> str:
    """Return the strong ETag of an item's stored version."""
    return f'"{item.version}"'


def tag(response: HttpResponse, item: DynamoModel) -> None:
    """Set the ETag header of a response that carries an item."""
    response["ETag"] = etag_of(item)


def check_if_match(request: HttpRequest, item: DynamoModel) -> None:
    """Refuse a write with 428 without If-Match and 412 unless it names the stored version.

    The write that follows stays conditional on that version, so a change slipping in
    between this check and the write is refused too (StaleVersion, also a 412).
    """
    header = request.headers.get("If-Match")
    if header is None or not header.strip():
        raise HttpError(
            428, f"Send If-Match with this {item.verbose_name}'s ETag (from a GET) to change it."
        )
    tags = {value.strip() for value in header.split(",")}
    if "*" in tags or etag_of(item) in tags:
        return
    raise HttpError(
        412,
        f"This {item.verbose_name} ({item}) changed since you read it: its ETag is now "
        f"{etag_of(item)}. Read it again and retry.",
    )
