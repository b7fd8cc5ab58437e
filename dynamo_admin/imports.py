"""Items in: each row of a file saved as its change page would save it, through the same code.

A row is a form posted for its item: the fields this user may edit on the change page, read
by their own form fields, through the admin's `save_forms` (its `save_model` and `log_*`
hooks, the model's own rules, the History entry in the item's transaction, the write of only
what changed, on the version or the values read). The preview runs the same code without
writing (`commit=False`); the confirm runs it again and writes. Anything else the file holds
must be as stored: a read-only attribute, one the admin leaves out, a secret shown masked, an
attribute the model does not declare. A row that differs there is refused, never written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django import forms
from django.http import HttpRequest
from django.utils import timezone
from django.utils.translation import gettext as _
from pynamodb.models import Model

from dynamo import backup
from dynamo.batch import BATCH_GET_LIMIT, get_together
from dynamo.codec import BadValue, decode_item, encode_item, loads, same_value

from .csvfiles import BadFile, read_rows
from .display import plain
from .exports import csv_row
from .forms import SHOWN_FIELD, VERSION_FIELD, initial_for
from .keys import parse_key_value
from .meta import automatic_fields, label_of, meta, pk_of
from .models import HIDDEN, secret_fields
from .stored import load, misfits_of, raw_of

NEW, CHANGED, UNCHANGED, REFUSED, LOST = "new", "changed", "unchanged", "refused", "lost"
STATUSES = (NEW, CHANGED, UNCHANGED, REFUSED)


@dataclass
class Row:
    """One row of an import and what saving it does (or did)."""

    line: int
    status: str
    item: Model | None = None
    stored: dict[str, Any] | None = None  # the item as read for this row (None: not stored)
    changes: dict[str, list[Any]] = field(default_factory=dict)
    message: str = ""

    @property
    def label(self) -> str:
        return label_of(self.item) if self.item is not None else ""


def stored_digest(raw: dict[str, Any] | None) -> str:
    """Return a short digest of an item as stored (None: absent), to tell it changed."""
    text = json.dumps(encode_item(raw), sort_keys=True) if raw is not None else ""
    return hashlib.sha256(text.encode()).hexdigest()[:20]


# --- reading files ------------------------------------------------------------------------
def jsonl_records(model: type[Model], lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """Yield (line number, raw item or what is wrong) for each line of JSON Lines.

    A line is an item in DynamoDB JSON, AWS's export line (`{"Item": …}`) or a backup's
    (`{"item": …, "table": …}`, other tables' lines skipped).
    """
    keys = [model.get_attributes()[n].attr_name for n in meta(model).key_names]
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            value = loads(line)
            if isinstance(value, dict) and set(value) == {"item", "table"}:
                if value["table"] != backup.table_label(model):
                    continue  # a backup's line of another table
                value = value["item"]
            elif isinstance(value, dict) and set(value) == {"Item"}:
                value = value["Item"]
            raw = decode_item(value)
        except BadValue as exc:
            yield number, str(exc)
            continue
        missing = [name for name in keys if name not in raw]
        if missing:
            yield number, _("the key %(names)s is missing") % {"names": ", ".join(missing)}
            continue
        yield number, raw


def csv_records(model: type[Model], lines: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """Yield (line number, {attribute: cell} or what is wrong) for each row after the header."""
    rows = read_rows(lines)
    first = next(rows, None)
    if first is None:
        raise BadFile(_("The file is empty."))
    header = first[1]
    if isinstance(header, str):
        raise BadFile(_("The header is not readable: %(problem)s.") % {"problem": header})
    attributes = model.get_attributes()
    unknown = [name for name in header if name not in attributes]
    if unknown:
        raise BadFile(
            _("The header names no attribute of the %(model)s: %(names)s.")
            % {"model": meta(model).verbose_name, "names": ", ".join(unknown)}
        )
    twice = sorted({name for name in header if header.count(name) > 1})
    if twice:
        raise BadFile(_("The header names %(names)s twice.") % {"names": ", ".join(twice)})
    missing = [name for name in meta(model).key_names if name not in header]
    if missing:
        raise BadFile(_("The header lacks the key %(names)s.") % {"names": ", ".join(missing)})
    for number, cells in rows:
        if isinstance(cells, str):
            yield number, cells
        elif not any(cell.strip() for cell in cells):
            continue
        elif len(cells) != len(header):
            message = _("%(got)s cells where the header has %(want)s")
            yield number, message % {"got": len(cells), "want": len(header)}
        else:
            yield number, dict(zip(header, cells, strict=True))


def file_format(name: str, text: str) -> str:
    """Return a file's format: by its extension, else JSON Lines if it starts with `{`."""
    suffix = name.lower().rpartition(".")[2]
    if suffix in ("csv", "jsonl", "ndjson", "json"):
        return "csv" if suffix == "csv" else "jsonl"
    return "jsonl" if text.lstrip("\ufeff \t\r\n").startswith("{") else "csv"


def records_of(model: type[Model], kind: str, lines: Iterable[str]):
    return csv_records(model, lines) if kind == "csv" else jsonl_records(model, lines)


# --- saving rows --------------------------------------------------------------------------
class CommandUser:
    """Who a command's import acts as: every permission, named by --user in the History."""

    is_active = is_staff = is_superuser = is_authenticated = True
    pk = None

    def __init__(self, name: str) -> None:
        self.username = name

    def get_username(self) -> str:
        return self.username

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        return True

    def has_module_perms(self, app_label: str) -> bool:
        return True


def command_request(name: str) -> HttpRequest:
    """Return the request a command's import runs under (no page, every permission)."""
    request = HttpRequest()
    request.user = CommandUser(name)
    return request


class Importer:
    """Plans or writes the rows of one file for one admin and one request, row by row."""

    def __init__(self, model_admin, request) -> None:
        self.admin = model_admin
        self.model = model_admin.model
        self.request = request
        self.seen: dict[tuple[Any, ...], int] = {}

    def rows(
        self,
        records: Iterable[tuple[int, Any]],
        commit: bool = False,
        expected: dict[str, str] | None = None,
    ) -> Iterator[Row]:
        """Yield each record's Row, reading the stored items 100 keys at a time.

        With `commit` each new or changed row is written as it is planned; with `expected`
        (line: digest, from a preview) only on the item the preview read.
        """
        self.seen = {}
        batch: list[tuple[int, Any]] = []
        for record in records:
            batch.append(record)
            if len(batch) == BATCH_GET_LIMIT:
                yield from self.batch(batch, commit, expected)
                batch = []
        if batch:
            yield from self.batch(batch, commit, expected)

    def batch(self, batch, commit: bool, expected) -> Iterator[Row]:
        keyed = [(number, record, self.key_of(record)) for number, record in batch]
        keys = list(dict.fromkeys(key for _, _, key in keyed if isinstance(key, tuple)))
        stored = {}
        if keys:  # a batch whose every row is refused reads nothing
            found = get_together([(self.model, k) for k in keys], consistent_read=True, load=load)
            stored = dict(zip(keys, found, strict=True))
        for number, record, key in keyed:
            if isinstance(key, str):
                yield Row(number, REFUSED, message=key)
                continue
            if key in self.seen:
                message = _("the same key as line %(line)s: one row per item")
                yield Row(number, REFUSED, message=message % {"line": self.seen[key]})
                continue
            self.seen[key] = number
            yield self.row(number, record, stored.get(key), commit, expected)

    def key_of(self, record: Any) -> tuple[Any, ...] | str:
        """Return a record's key values, or what is wrong with the record or its key."""
        if isinstance(record, str):
            return record
        names = meta(self.model).key_names
        attributes = self.model.get_attributes()
        if _is_raw(record):  # a whole item (JSON Lines)
            key_raw = {attributes[n].attr_name: record[attributes[n].attr_name] for n in names}
            item = load(
                self.model, key_raw, condition=None
            )  # the key alone: its type is asked later
            if item is None or misfits_of(item):
                return _("the key is not of the model's type")
            return pk_of(item)
        values = []
        for name in names:
            try:
                values.append(parse_key_value(attributes[name], record[name].strip()))
            except ValueError as exc:
                return f"{name}: {exc}"
            if values[-1] in ("", None):
                return _("%(name)s: the key may not be empty") % {"name": name}
        return tuple(values)

    def row(self, number: int, record, current: Model | None, commit: bool, expected) -> Row:
        stored = raw_of(current) if current is not None else None
        row = Row(number, REFUSED, stored=stored)
        if expected is not None and expected.get(str(number)) != stored_digest(stored):
            row.status, row.message = LOST, _("changed by someone else since the preview")
            return row
        admin, request = self.admin, self.request
        allowed = (
            admin.has_add_permission(request)
            if current is None
            else admin.has_change_permission(request, current)
        )
        item = load(self.model, stored) if current is not None else None
        row.item = item
        try:
            values, extra = self.typed(record) if _is_raw(record) else (record, {})
            editable = self.editable(item, values, raw=_is_raw(record))
            undeclared = self.undeclared(item, extra)
        except RowRefused as exc:
            row.message = str(exc)
            return row
        form = self.form_for(item, values, editable, undeclared)
        if not form.is_valid():
            row.message = form_errors(form)
            return row
        # Without the permission the row is only planned: it is refused if it would write.
        saved, stale = admin.save_forms(request, form, item, [], commit=commit and allowed)
        row.item = saved if saved is not None else item
        if saved is None:
            row.status = LOST if stale is not None else REFUSED
            row.message = form_errors(form)
            return row
        changes = form.changes
        if current is None:
            row.status = NEW
        else:
            row.status = CHANGED if changes else UNCHANGED
        if (row.status != UNCHANGED) and not allowed:
            verb = _("add") if current is None else _("change")
            row.status = REFUSED
            row.message = _("You may not %(verb)s %(name)s.") % {
                "verb": verb,
                "name": meta(self.model).verbose_name_plural,
            }
            return row
        hidden = secret_fields(self.model)
        row.changes = {n: [HIDDEN, HIDDEN] if n in hidden else v for n, v in changes.items()}
        return row

    def form_for(self, item: Model | None, values, editable: list[str], undeclared):
        """Return the bound form a change page would post for these values of the item."""
        form_class = self.admin.get_form(
            self.request, item, change=item is not None, fields=editable
        )
        data = {}
        for name in editable:
            data.update(posted(form_class.base_fields[name], name, values[name]))
        if item is not None:  # the version and values read, as the page carries them
            initial = initial_for(item, editable)
            version = initial[VERSION_FIELD]
            data[VERSION_FIELD] = "" if version is None else str(version)
            data[SHOWN_FIELD] = initial[SHOWN_FIELD]
        form = form_class(data, item=item)
        form.undeclared = undeclared
        return form

    def typed(self, raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Return a raw item's declared values by attribute name, typed by the model, and its
        undeclared attributes by stored name, as stored; refuse misfits.

        Two dicts: an undeclared `title` is not the declared `Title` named `title` in Python.
        """
        parsed = load(self.model, raw)
        if parsed is None:
            raise RowRefused(_("an item of another class"))
        if misfits_of(parsed):
            names = ", ".join(misfits_of(parsed))
            raise RowRefused(_("%(names)s: not of the model's type") % {"names": names})
        by_stored = {a.attr_name: n for n, a in self.model.get_attributes().items()}
        values = {by_stored[k]: getattr(parsed, by_stored[k]) for k in raw if k in by_stored}
        return values, {k: v for k, v in raw.items() if k not in by_stored}

    def undeclared(self, item: Model | None, extra: dict[str, Any]) -> dict[str, Any]:
        """Return what a new item is added with that its model does not declare.

        A stored item's undeclared attributes are never written: a row must hold them as
        stored (sets in any order), else it is refused.
        """
        if item is None:
            return extra
        for name, raw in extra.items():
            if not same_value(raw_of(item).get(name), raw):
                message = _("%(name)s: not an attribute of the model; an import writes only those")
                raise RowRefused(message % {"name": name})
        return {}

    def editable(self, item: Model | None, values: dict[str, Any], raw: bool) -> list[str]:
        """Return the names this user may edit; refuse a row that differs anywhere else."""
        request, admin = self.request, self.admin
        readonly = set(admin.get_readonly_fields(request, item))
        fields = [n for n in admin.get_fields(request, item) if n not in readonly]
        if item is None:  # the key of a new item is typed, as on the add page
            fields += [n for n in meta(self.model).key_names if n not in fields]
        editable = [n for n in values if n in fields]
        automatic = automatic_fields(self.model)
        for name, value in values.items():
            if name in editable:
                continue
            if item is None:
                if name in automatic or value in (None, ""):
                    continue  # a new item's version and times are the write's
            elif self.as_stored(item, name, value, raw):
                continue
            message = _("%(name)s: read-only here; leave it out of the file or as exported")
            raise RowRefused(message % {"name": name})
        return editable

    def as_stored(self, item: Model, name: str, value: Any, raw: bool) -> bool:
        """Return whether a value the row may not change is the item's (as stored or shown)."""
        if raw:
            return plain(value) == plain(getattr(item, name, None))
        return value == csv_row(item, [name])[0]


class RowRefused(Exception):
    """A row that may not be written, with the reason."""


def _is_raw(record: dict[str, Any]) -> bool:
    return any(isinstance(v, dict) for v in record.values()) or not record


def posted(form_field: forms.Field, name: str, value: Any) -> dict[str, Any]:
    """Return a value (typed, or a CSV cell) as the field's widget posts it from a page."""
    widget = form_field.widget
    if isinstance(form_field, forms.SplitDateTimeField):
        if isinstance(value, str):
            value = _moment(value)
            if isinstance(value, str):  # not ISO 8601: as typed, for the field to refuse
                date, _sep, time = value.strip().partition(" ")
                return {f"{name}_0": date, f"{name}_1": time}
        parts = widget.decompress(value)
        return {f"{name}_{i}": "" if part is None else part for i, part in enumerate(parts)}
    if isinstance(form_field, forms.NullBooleanField):
        return {name: _boolean(value, "unknown")}
    if isinstance(form_field, forms.BooleanField):
        return {name: "true"} if _boolean(value, value) == "true" else {}
    if isinstance(value, str):
        return {name: value}
    prepared = form_field.prepare_value(value)
    return {name: "" if prepared is None else prepared}


def _boolean(value: Any, otherwise: Any) -> Any:
    words = {
        "true": "true",
        "yes": "true",
        "1": "true",
        "on": "true",
        "false": "false",
        "no": "false",
        "0": "false",
        "off": "false",
    }
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return words.get(value.strip().lower(), otherwise if value.strip() else "unknown")
    return otherwise


def _moment(text: str) -> datetime | str:
    """Return an ISO 8601 time as written, with its offset (else in the current time zone)."""
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        return text
    return moment if timezone.is_aware(moment) else timezone.make_aware(moment)


def form_errors(form) -> str:
    """Return a form's errors on one line: `field: message; …`."""
    parts = []
    for name, errors in form.errors.items():
        text = " ".join(errors)
        parts.append(text if name == "__all__" else f"{name}: {text}")
    return "; ".join(parts)
