"""Render stored values as the admin shows them: sets, maps, exact numbers, local times."""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from django.contrib.admin.utils import display_for_value
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX, identify_hasher, mask_hash
from django.utils import timezone
from django.utils.formats import date_format, localize
from django.utils.text import capfirst
from django.utils.translation import gettext
from pynamodb.attributes import MapAttribute


def plain(value: Any) -> Any:
    """Return a value with PynamoDB containers turned into JSON-ready Python values."""
    if isinstance(value, MapAttribute):
        value = value.as_dict()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, set | frozenset):
        return sorted(plain(v) for v in value)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):  # binary inside a map or a list: shown as base64 text
        return base64.b64encode(value).decode("ascii")
    return value


def number_text(value: int | float | Decimal) -> str:
    """Return a number's exact stored digits: no rounding, no exponent, no separators."""
    if isinstance(value, int):
        return str(value)
    text = format(Decimal(repr(value)) if isinstance(value, float) else value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def display(value: Any, empty_value_display: str) -> str:
    """Return the text a changelist cell or read-only field shows for a value."""
    if isinstance(value, bool):
        return gettext("Yes") if value else gettext("No")
    if isinstance(value, int | float | Decimal):
        return number_text(value)
    if value is None or (isinstance(value, str | list | dict | set | frozenset) and not value):
        return empty_value_display
    if isinstance(value, set | frozenset):
        return ", ".join(str(v) for v in sorted(value))
    if isinstance(value, Mapping | MapAttribute | list):
        return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)
    if isinstance(value, datetime):
        return time_text(value)
    return display_for_value(value, empty_value_display)


def time_text(value: datetime) -> str:
    """Return a time in the current time zone; a naive one as stored, taken as UTC, said so."""
    if timezone.is_naive(value):
        # A table the admin did not write may keep times without an offset: UTC by convention.
        return f"{localize(timezone.make_aware(value, UTC))} UTC"
    return localize(timezone.localtime(value))


# A time or a day as plain() stores it: `2026-12-02T06:38:24.870000+00:00`, `2026-12-02`; a
# naive time (from a table the admin did not write) has no offset.
ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?")
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def logged_text(value: Any, empty_value_display: str = "-") -> str:
    """Return a logged (JSON) value in words: times in the current time zone, maps as lines."""
    if isinstance(value, str) and ISO_TIME.fullmatch(value):
        return time_text(datetime.fromisoformat(value.replace("Z", "+00:00")))
    if isinstance(value, str) and ISO_DAY.fullmatch(value):
        return date_format(date.fromisoformat(value), "DATE_FORMAT")
    if isinstance(value, Mapping):
        parts = [
            f"{capfirst(str(name).replace('_', ' '))}: {logged_text(v, empty_value_display)}"
            for name, v in value.items()
            if v is not None
        ]
        return "; ".join(parts) or empty_value_display
    if isinstance(value, list):
        return ", ".join(logged_text(v, empty_value_display) for v in value) or empty_value_display
    return display(value, empty_value_display)


def masked(value: Any) -> str:
    """Return a secret as Django's ReadOnlyPasswordHashWidget shows a hash: a masked summary."""
    if not value or str(value).startswith(UNUSABLE_PASSWORD_PREFIX):
        return gettext("No password set.")  # Django's words for an unusable password
    try:
        summary = identify_hasher(str(value)).safe_summary(str(value))
    except ValueError:
        return gettext("Invalid password format or unknown hashing algorithm.")
    return " ".join(f"{key}: {text}" for key, text in summary.items())


def masked_stored(value: Any) -> str:
    """Return a stored secret as the Stored item page shows it: masked, never reworded.

    A hash reads as masked() summarises it; Django's unusable password (`!` and random
    characters), which its widget calls "No password set.", keeps its `!`, the rest masked.
    """
    text = "" if value is None else str(value)
    if text.startswith(UNUSABLE_PASSWORD_PREFIX):
        return mask_hash(text, show=len(UNUSABLE_PASSWORD_PREFIX))
    return masked(value)
