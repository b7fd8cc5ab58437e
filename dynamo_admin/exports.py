"""Items out: CSV as the admin shows them to the person exporting, JSON Lines as stored.

A CSV cell holds what the change page's field would post (a time in ISO 8601 with its offset,
a set one value per line, a map as JSON), so the file imports back unchanged; a secret shows
masked, as the admin shows it. JSON Lines is the backup's line (`{"item": …, "table": …}`,
DynamoDB JSON), so `load_tables` and `import_items` read each other's files.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from django.contrib import admin
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import CommandError
from django.utils.translation import gettext as _
from pynamodb.attributes import MapAttribute
from pynamodb.models import Model

from dynamo import backup

from .display import masked, number_text, plain
from .meta import meta
from .models import secret_fields
from .stored import load, misfit_text, misfits_of, raw_of

FORMATS = ("csv", "jsonl")


def export_columns(model_admin) -> list[str]:
    """Return the attributes a CSV export holds: `export_fields`, else the listing's attributes.

    The key comes first whatever the listing shows, so each row imports back to its item.
    """
    attributes = model_admin.model.get_attributes()
    names = list(getattr(model_admin, "export_fields", None) or model_admin.list_display)
    keys = meta(model_admin.model).key_names
    return [*keys, *(n for n in names if isinstance(n, str) and n in attributes and n not in keys)]


def csv_row(item: Model, names: list[str]) -> list[str]:
    """Return a CSV row of an item: each attribute as its field would post it, secrets masked."""
    hidden = secret_fields(item)
    misfits = misfits_of(item)
    attributes = item.get_attributes()
    cells = []
    for name in names:
        value = getattr(item, name, None)
        if name in misfits:
            cells.append(misfit_text(attributes[name], misfits[name]))
        elif name in hidden:
            cells.append(masked(value))
        else:
            cells.append(cell_text(value))
    return cells


def cell_text(value: Any) -> str:
    """Return a value as a CSV cell that the attribute's form field reads back to it."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return number_text(value)
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, set | frozenset):
        return "\n".join(number_text(v) if not isinstance(v, str) else v for v in sorted(value))
    if isinstance(value, list | dict | MapAttribute):
        return json.dumps(plain(value), sort_keys=True, ensure_ascii=False)
    return str(value)


def jsonl_line(model: type[Model], raw: dict[str, Any]) -> str:
    """Return a stored item as the backup writes it: one line, DynamoDB JSON, sorted names."""
    return backup.to_line(model, raw)


def shown_raw(model_admin, request, item: Model) -> dict[str, Any]:
    """Return the item as stored, less what the admin never shows this user.

    A secret (a password hash) never leaves, nor an attribute the change page leaves out.
    """
    model = model_admin.model
    attributes = model.get_attributes()
    shown = set(model_admin.get_fields(request, item)) | set(meta(model).key_names)
    hidden = {
        a.attr_name
        for name, a in attributes.items()
        if name in secret_fields(item) or name not in shown
    }
    return {name: value for name, value in raw_of(item).items() if name not in hidden}


def scan_raw(model: type[Model], condition=None) -> Iterator[dict[str, Any]]:
    """Yield the model's items as stored (a paginated Scan): on a shared table, its own only."""
    for raw in backup.scan_items(model, condition, consistent_read=False):
        if load(model, raw) is not None:
            yield raw


def scan_items(model: type[Model], condition=None) -> Iterator[Model]:
    """Yield the model's items as the admin reads them (one Scan, paginated)."""
    return (load(model, raw) for raw in scan_raw(model, condition))


def ended(lines: Iterable[str], kind: str) -> Iterator[str]:
    """Yield the lines, and if reading fails part-way, a last line saying the file is incomplete.

    The response has begun: the status cannot change, so the file itself says it (and no
    import takes that line for an item). The error is raised again after it.
    """
    try:
        yield from lines
    except Exception as exc:
        problem = _("EXPORT INCOMPLETE: reading stopped (%(error)s); export again.") % {
            "error": type(exc).__name__
        }
        yield (json.dumps({"error": problem}) if kind == "jsonl" else problem) + "\n"
        raise


def model_admin_named(label: str):
    """Return the admin of the registered PynamoDB model `app_label.ModelName`, or None.

    The commands' door to a model, as a page's is its admin's view: the admin is connected
    (`DynamoModelAdmin.connect`) before it is returned; a model it cannot serve is the
    command's one-line error.
    """
    app_label, _sep, name = label.partition(".")
    for model, model_admin in admin.site._registry.items():
        opts = meta(model) if isinstance(model, type) and issubclass(model, Model) else None
        if opts and opts.app_label == app_label and opts.model_name == name.lower():
            try:
                model_admin.connect()
            except ImproperlyConfigured as exc:
                raise CommandError(str(exc)) from exc
            return model_admin
    return None
