"""Django's form renderer, keeping the HTML of the widgets that show no value.

A change page with inlines renders blank widgets on every request: the extra rows and the
empty row that `inlines.js` copies for "Add another" hold the same inputs, selects and date
pickers whichever item the page shows, and rendering them took an eighth of the page's time.
This renderer renders such a widget once per distinct context (its name, attributes,
choices, labels and the language) and keeps the HTML in a small store per process. A widget
that shows a value, and every form, field, label and error template, renders each time as
Django's does; so does any context holding something other than plain data (text, numbers,
lists, dicts). With DEBUG on it renders every time (a changed template shows at once).

Set `FORM_RENDERER = "dynamo_admin.renderers.DjangoTemplates"` to use it.
"""

from __future__ import annotations

import datetime
import decimal
from collections import OrderedDict
from threading import Lock
from typing import Any

from django.conf import settings
from django.forms import renderers
from django.utils.functional import Promise
from django.utils.translation import get_language

# Renderings kept per process: each blank widget of each form the admin shows, a few times.
KEPT = 1024
_kept: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_lock = Lock()

_SCALARS = (bool, int, float, str, decimal.Decimal, datetime.date, datetime.time)


class Unkeyable(Exception):
    """A context holds something other than plain data: render it, keep nothing."""


def frozen(value: Any) -> Any:
    """Return a hashable copy of plain data that tells apart whatever renders differently.

    Plain text, whole numbers and None stand as themselves; every other scalar is its type and
    its text (True and 1, 1.0 and 1.00, a safe string and a plain one, equal times in two
    zones: each renders differently); each container its type and items, a dict in its order
    (attributes are written in it).
    """
    kind = type(value)
    if kind is str or kind is int or value is None:
        return value
    if isinstance(value, Promise):  # a lazy translation: the language is in the key
        value = str(value)
        kind = type(value)
        if kind is str:
            return value
    if isinstance(value, _SCALARS):
        return (kind, value if isinstance(value, str) else str(value))
    if kind is dict:
        return (dict, tuple((frozen(key), frozen(item)) for key, item in value.items()))
    if kind is list or kind is tuple:
        return (kind, tuple(frozen(item) for item in value))
    raise Unkeyable(kind.__name__)


def shows_value(widget: dict[str, Any]) -> bool:
    """Say whether a widget's context carries a value (its subwidgets' included)."""
    value = widget.get("value")
    values = value if isinstance(value, list | tuple) else [value]
    if any(item not in (None, "") for item in values):
        return True
    return any(shows_value(sub) for sub in widget.get("subwidgets", ()))


def blank_widget_key(template_name: str, context: Any) -> tuple[Any, ...] | None:
    """Return the key a blank widget's rendering is kept under, or None to render it."""
    widget = context.get("widget") if isinstance(context, dict) else None
    if not isinstance(widget, dict) or shows_value(widget):
        return None
    try:
        return (template_name, get_language(), frozen(context))
    except Unkeyable:
        return None


class DjangoTemplates(renderers.DjangoTemplates):
    """Django's default form renderer, rendering each distinct blank widget once."""

    def render(self, template_name: str, context: Any, request=None) -> str:
        key = None
        if request is None and not settings.DEBUG:
            key = blank_widget_key(template_name, context)
        if key is not None:
            with _lock:
                html = _kept.get(key)
                if html is not None:
                    _kept.move_to_end(key)
                    return html
        html = super().render(template_name, context, request)
        if key is not None:
            with _lock:
                _kept[key] = html
                while len(_kept) > KEPT:
                    _kept.popitem(last=False)
        return html
