"""Small checks that collect one clear message per bad field."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from django.core.exceptions import ValidationError


class FieldErrors(dict[str, list[str]]):
    """Messages keyed by field name; `check` runs a Django validator and keeps its message."""

    def check(self, field: str, validator: Callable[[Any], None], value: Any) -> None:
        try:
            validator(value)
        except ValidationError as exc:
            self.setdefault(field, []).extend(exc.messages)

    def add(self, field: str, message: str) -> None:
        self.setdefault(field, []).append(message)

    def require(self, field: str, value: Any) -> bool:
        if value is None or value == "":
            self.add(field, "This field is required.")
            return False
        return True


def length_between(low: int, high: int) -> Callable[[str], None]:
    """Return a validator for a string of `low` to `high` characters."""

    def validate(value: str) -> None:
        if not isinstance(value, str) or not low <= len(value) <= high:
            raise ValidationError(f"Must be {low} to {high} characters long.")

    return validate


def one_of(choices: Iterable[str]) -> Callable[[str], None]:
    """Return a validator for a value among fixed choices."""
    allowed = tuple(choices)

    def validate(value: str) -> None:
        if value not in allowed:
            raise ValidationError(f"{value!r} is not one of {', '.join(allowed)}.")

    return validate


def whole_number(low: int, high: int | None = None) -> Callable[[Any], None]:
    """Return a validator for a whole number in [low, high]."""

    def validate(value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
            raise ValidationError("Must be a whole number.")
        if value < low or (high is not None and value > high):
            bound = f"between {low} and {high}" if high is not None else f"{low} or more"
            raise ValidationError(f"Must be {bound}.")

    return validate


def number_between(low: float, high: float) -> Callable[[Any], None]:
    """Return a validator for a number in [low, high]."""

    def validate(value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValidationError("Must be a number.")
        if not low <= value <= high:
            raise ValidationError(f"Must be between {low:g} and {high:g}.")

    return validate


# Characters that show nothing or change how the text around them shows: controls (C0, C1),
# format characters (zero-width ones, bidi controls, the soft hyphen), surrogates, private use,
# unassigned code points, line and paragraph separators; and fillers drawn as blanks.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
BLANK_FILLERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def hidden_character(text: str) -> str | None:
    """Return the first invisible or control character of text (any space but U+0020 too)."""
    for char in text:
        category = unicodedata.category(char)
        if (
            category in HIDDEN_CATEGORIES
            or char in BLANK_FILLERS
            or (category == "Zs" and char != " ")
        ):
            return char
    return None


def validate_visible(value: str) -> None:
    """Refuse text holding an invisible or control character, naming it."""
    char = hidden_character(value) if isinstance(value, str) else None
    if char is not None:
        fallback = "a lone surrogate" if unicodedata.category(char) == "Cs" else "unnamed"
        name = unicodedata.name(char, fallback)
        raise ValidationError(
            f"Remove the invisible or control character U+{ord(char):04X} ({name}) at "
            f"position {value.index(char) + 1}; use visible characters and plain spaces."
        )
