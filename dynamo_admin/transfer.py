"""Items out and in: CSV as a person reads a listing, JSON Lines as DynamoDB stores an item.

An export walks a read page by page (constant memory, whatever the size). An import is
planned first: each row is new, changed (with what changes), unchanged or refused (with its
line and the model's own message); then each row is written on a condition, a new one only
if its key is still free, a changed one only if the item still holds what the plan read (its
version, or the values it changes). A row that lost such a race is reported, never written
over, and a run that stops half-way is finished by running it again: rows already written
plan as unchanged.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from pynamodb.models import Model

from dynamo import meter
from dynamo.batch import BATCH_GET_LIMIT, get_together, write_rows
from dynamo.exceptions import AlreadyExists, StaleVersion
from dynamo.models import DynamoModel

from .display import display, plain
from .keys import stored_key_names
from .meta import label_of, meta, pk_of
from .models import ADDITION, CHANGE, AdminLog
from .stored import from_json, full_clean, load, misfits_of, raw_of, to_json
from .writes import write_with_history

NEW, CHANGED, UNCHANGED, REFUSED = "new", "changed", "unchanged", "refused"
STATUSES = (NEW, CHANGED, UNCHANGED, REFUSED)
FORMATS = ("csv", "jsonl")


# --- out ----------------------------------------------------------------------------------
def jsonl_line(raw: dict[str, Any]) -> str:
    """Return a stored item as one line of DynamoDB JSON, exactly as stored (sorted names)."""
    return json.dumps(to_json(raw), sort_keys=True, ensure_ascii=False)


def csv_lines(rows: Iterable[list[str]]) -> Iterator[str]:
    """Return CSV text line by line, one line per row (the header is the first row)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    for row in rows:
        writer.writerow(row)
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def export_columns(model_admin) -> tuple[list[Any], list[str]]:
    """Return an export's columns and header: `export_fields`, else the listing's columns.

    A column that is an attribute is headed by its name, so the file imports back.
    """
    names = list(getattr(model_admin, "export_fields", None) or model_admin.list_display)
    attributes = model_admin.model.get_attributes()
    header = [
        name if isinstance(name, str) and name in attributes else model_admin.column_header(name)
        for name in names
    ]
    return names, [str(h) for h in header]


def csv_cells(admin, item: Model, names: list[Any]) -> list[str]:
    """Return a row's cells as the listing shows them."""
    empty = admin.get_empty_value_display()
    return [display(admin.value_for(item, name), "") if name else empty for name in names]


def scan_raw(model: type[Model], condition=None) -> Iterator[dict[str, Any]]:
    """Yield the model's items as stored, one Scan page (1 MB) at a time, for commands.

    Raw, as DynamoDB JSON: an export of whole items needs no model instance. On a table
    shared by several classes (a discriminator), only the model's own items come out.
    """
    client = meter.instrument(model._get_connection().connection.client)
    request: dict[str, Any] = {"TableName": model.Meta.table_name}
    if condition is not None:
        names: dict[str, str] = {}
        values: dict[str, Any] = {}
        request["FilterExpression"] = condition.serialize(names, values)
        request["ExpressionAttributeNames"] = {v: k for k, v in names.items()}
        request["ExpressionAttributeValues"] = values
    own = model._get_discriminator_attribute() is not None
    for page in client.get_paginator("scan").paginate(**request):
        for raw in page["Items"]:
            if own:
                stored_class = model._get_discriminator_class(raw)
                if stored_class is not None and not issubclass(stored_class, model):
                    continue
            yield raw


def scan_items(model: type[Model], condition=None) -> Iterator[Model]:
    """Return every item of a model's table as the admin reads it (for a CSV export)."""
    return (item for item in map(partial(load, model), scan_raw(model, condition)) if item)


# --- in -----------------------------------------------------------------------------------
@dataclass
class Row:
    """One row of an import and what writing it would do."""

    line: int
    status: str
    item: Model | None = None  # the item as it would be written
    stored: dict[str, Any] | None = None  # the item as read when the row was planned
    changes: dict[str, list[Any]] = field(default_factory=dict)
    message: str = ""
    whole: dict[str, Any] | None = None  # a JSON Lines row: the whole item as typed

    @property
    def label(self) -> str:
        return label_of(self.item) if self.item is not None else ""


class BadFile(ValueError):
    """A file that cannot be read as the format says (not a row's problem: the whole file's)."""


def read_jsonl(model: type[Model], text: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """Yield (line number, raw item or error message) for each line of JSON Lines."""
    key_names = [model.get_attributes()[n].attr_name for n in meta(model).key_names]
    for number, line in enumerate(text, start=1):
        if not line.strip():
            continue
        try:
            raw = from_json(json.loads(line))
        except ValueError as exc:
            yield number, _("not JSON: %(problem)s") % {"problem": exc}
            continue
        if not isinstance(raw, dict) or not all(
            isinstance(v, dict) and len(v) == 1 for v in raw.values()
        ):
            yield number, _('not an item in DynamoDB JSON ({"Name": {"S": "…"}})')
            continue
        missing = [name for name in key_names if name not in raw]
        if missing:
            yield number, _("the key %(names)s is missing") % {"names": ", ".join(missing)}
            continue
        yield number, raw


def read_csv(admin, text: Iterable[str]) -> Iterator[tuple[int, Any]]:
    """Yield (line number, {attribute: value} or error message) for each CSV row.

    The header names attributes; each cell is read by the attribute's form field, as the
    change page reads what is typed.
    """
    reader = csv.reader(text)
    try:
        header = next(reader)
    except StopIteration:
        raise BadFile(_("The file is empty.")) from None
    except csv.Error as exc:
        raise BadFile(_("Not CSV: %(problem)s") % {"problem": exc}) from None
    model = admin.model
    attributes = model.get_attributes()
    unknown = [name for name in header if name not in attributes]
    if unknown:
        raise BadFile(
            _("The header names no attribute of the %(model)s: %(names)s.")
            % {"model": meta(model).verbose_name, "names": ", ".join(unknown)}
        )
    missing = [name for name in meta(model).key_names if name not in header]
    if missing:
        raise BadFile(_("The header lacks the key %(names)s.") % {"names": ", ".join(missing)})
    fields = {name: admin.formfield_for_dbfield(attributes[name], None) for name in header}
    try:
        for cells in reader:
            number = reader.line_num
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) != len(header):
                yield (
                    number,
                    _("%(got)s cells where the header has %(want)s")
                    % {
                        "got": len(cells),
                        "want": len(header),
                    },
                )
                continue
            values, problems = {}, []
            for name, cell in zip(header, cells, strict=True):
                try:
                    values[name] = fields[name].clean(_widget_value(fields[name], cell))
                except ValidationError as exc:
                    problems.append(f"{name}: {' '.join(exc.messages)}")
            yield number, "; ".join(problems) if problems else values
    except csv.Error as exc:
        raise BadFile(_("Not CSV: %(problem)s") % {"problem": exc}) from None


def _widget_value(form_field, cell: str) -> Any:
    """Return a CSV cell as the field's widget would post it (a date and time in two parts)."""
    if isinstance(form_field, forms.SplitDateTimeField):
        date, _, time = cell.strip().replace("T", " ").partition(" ")
        return [date, time.split("+")[0].rstrip("Z")]
    if isinstance(form_field, forms.NullBooleanField):
        return {"yes": True, "true": True, "no": False, "false": False}.get(cell.lower())
    if isinstance(form_field, forms.BooleanField):
        return cell.strip().lower() in ("yes", "true", "1", "on")
    return cell


def plan(model: type[Model], records: Iterable[tuple[int, Any]]) -> Iterator[Row]:
    """Yield each record's Row, reading the stored items 100 keys at a time."""
    batch: list[tuple[int, Any]] = []
    for record in records:
        batch.append(record)
        if len(batch) == BATCH_GET_LIMIT:
            yield from _plan_batch(model, batch)
            batch = []
    if batch:
        yield from _plan_batch(model, batch)


def _plan_batch(model: type[Model], batch: list[tuple[int, Any]]) -> Iterator[Row]:
    keys = []
    for _number, record in batch:
        key = _key_of(model, record) if not isinstance(record, str) else None
        if key is not None and key not in keys:
            keys.append(key)
    found = get_together([(model, key) for key in keys], consistent_read=True, load=load)
    stored = dict(zip(keys, found, strict=True)) if keys else {}
    for number, record in batch:
        if isinstance(record, str):
            yield Row(number, REFUSED, message=record)
            continue
        yield _plan_row(model, number, record, stored.get(_key_of(model, record)))


def _key_of(model: type[Model], record: dict[str, Any]) -> tuple[Any, ...] | None:
    names = meta(model).key_names
    if _is_raw(model, record):
        attributes = model.get_attributes()
        item = load(
            model, {attributes[n].attr_name: record[attributes[n].attr_name] for n in names}
        )
        return pk_of(item) if item is not None and not misfits_of(item) else None
    values = tuple(record.get(n) for n in names)
    return values if all(v is not None for v in values) else None


def _plan_row(model: type[Model], number: int, record: dict[str, Any], current) -> Row:
    attributes = model.get_attributes()
    keys = meta(model).key_names
    whole = record if _is_raw(model, record) else None
    if whole is not None:
        parsed = load(model, whole)
        if parsed is None:
            return Row(number, REFUSED, message=_("an item of another class"))
        if misfits_of(parsed):
            names = ", ".join(misfits_of(parsed))
            return Row(
                number, REFUSED, message=_("%(names)s: not of the model's type") % {"names": names}
            )
        values = {n: getattr(parsed, n) for n, a in attributes.items() if a.attr_name in whole}
    else:
        parsed, values = None, record
    if current is None:
        item = parsed if parsed is not None else model()
        for name, value in values.items():
            setattr(item, name, value)
        changes = {name: [None, plain(v)] for name, v in values.items() if v is not None}
        status = NEW
    else:
        item = load(model, raw_of(current))
        changes = {}
        for name, value in values.items():
            old = getattr(item, name, None)
            if name not in keys and plain(old) != plain(value):
                changes[name] = [plain(old), plain(value)]
                setattr(item, name, value)
        declared = {a.attr_name for a in attributes.values()}
        for stored_name, raw in (whole or {}).items():
            before = raw_of(current).get(stored_name)
            if stored_name not in declared and before != raw:
                changes[stored_name] = [to_json(before), to_json(raw)]
        status = CHANGED if changes else UNCHANGED
    if status != UNCHANGED:
        try:
            full_clean(item)
        except ValidationError as exc:
            return Row(number, REFUSED, item=item, message=validation_text(exc))
    stored = raw_of(current) if current is not None else None
    return Row(number, status, item=item, stored=stored, changes=changes, whole=whole)


def _is_raw(model: type[Model], record: dict[str, Any]) -> bool:
    """Return whether a record is a whole item in DynamoDB JSON (its keys by stored name)."""
    stored = [model.get_attributes()[n].attr_name for n in meta(model).key_names]
    return all(isinstance(record.get(name), dict) for name in stored)


def validation_text(exc: ValidationError) -> str:
    """Return a model's validation errors on one line: `field: message; …`."""
    if hasattr(exc, "error_dict"):
        return "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
    return "; ".join(exc.messages)


def attributes_by_stored(model: type[Model]) -> dict[str, str]:
    return {a.attr_name: name for name, a in model.get_attributes().items()}


def write(row: Row, actor: str) -> bool:
    """Write one planned row on its condition; return False if the item changed meanwhile."""
    model, item = type(row.item), row.item
    try:
        if row.status == NEW and row.whole is not None:
            _put_new(model, row.whole)
            if isinstance(item, DynamoModel):
                write_rows(*item.derived_rows())
            AdminLog.record(item, ADDITION, actor, row.changes)
        elif isinstance(item, DynamoModel):
            write_with_history(item, ADDITION if row.status == NEW else CHANGE, actor, row.changes)
        elif row.status == NEW:
            _put_new(model, item.serialize())
            AdminLog.record(item, ADDITION, actor, row.changes)
        else:
            _update(model, row)
            AdminLog.record(item, CHANGE, actor, row.changes)
    except (AlreadyExists, StaleVersion, LostRace):
        return False
    return True


class LostRace(Exception):
    """The item changed between the plan and the write."""


def _client(model: type[Model]):
    return meter.instrument(model._get_connection().connection.client)


def _put_new(model: type[Model], raw: dict[str, Any]) -> None:
    hash_name = model.get_attributes()[meta(model).key_names[0]].attr_name
    try:
        _client(model).put_item(
            TableName=model.Meta.table_name,
            Item=raw,
            ConditionExpression="attribute_not_exists(#h)",
            ExpressionAttributeNames={"#h": hash_name},
        )
    except _client(model).exceptions.ConditionalCheckFailedException as exc:
        raise LostRace from exc


def _update(model: type[Model], row: Row) -> None:
    """Set the changed attributes, each on the condition it still holds what the plan read."""
    by_stored = attributes_by_stored(model)
    new_raw = row.whole if row.whole is not None else row.item.serialize(null_check=False)
    stored = row.stored or {}
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    sets, conditions = [], []
    hash_name = model.get_attributes()[meta(model).key_names[0]].attr_name
    names["#h"] = hash_name
    conditions.append("attribute_exists(#h)")
    changed = [
        a.attr_name
        for n, a in model.get_attributes().items()
        if n in row.changes and a.attr_name in new_raw
    ]
    changed += [k for k in row.changes if k not in by_stored and k in new_raw]
    for at, attr_name in enumerate(changed):
        names[f"#a{at}"] = attr_name
        values[f":v{at}"] = new_raw[attr_name]
        sets.append(f"#a{at} = :v{at}")
        if attr_name in stored:
            values[f":o{at}"] = stored[attr_name]
            conditions.append(f"#a{at} = :o{at}")
        else:
            conditions.append(f"attribute_not_exists(#a{at})")
    removed = [
        a.attr_name
        for n, a in model.get_attributes().items()
        if n in row.changes and a.attr_name not in new_raw and a.attr_name in stored
    ]
    removes = []
    for at, attr_name in enumerate(removed):
        names[f"#r{at}"] = attr_name
        values[f":p{at}"] = stored[attr_name]
        removes.append(f"#r{at}")
        conditions.append(f"#r{at} = :p{at}")
    expression = " ".join(
        part
        for part in (
            f"SET {', '.join(sets)}" if sets else "",
            f"REMOVE {', '.join(removes)}" if removes else "",
        )
        if part
    )
    if not expression:
        return
    client = _client(model)
    key = {k: v for k, v in (row.stored or {}).items() if k in stored_key_names(model)}
    try:
        client.update_item(
            TableName=model.Meta.table_name,
            Key=key,
            UpdateExpression=expression,
            ConditionExpression=" AND ".join(conditions),
            ExpressionAttributeNames=names,
            **({"ExpressionAttributeValues": values} if values else {}),
        )
    except client.exceptions.ConditionalCheckFailedException as exc:
        raise LostRace from exc


def run(
    rows: Iterable[Row],
    actor: str,
    *,
    skip_refused: bool = False,
    on_row: Callable[[Row, str], None] | None = None,
) -> dict[str, int]:
    """Write the new and changed rows; return counts by outcome (`lost`: changed meanwhile)."""
    counts = {NEW: 0, CHANGED: 0, UNCHANGED: 0, REFUSED: 0, "lost": 0}
    for row in rows:
        outcome = row.status
        if row.status in (NEW, CHANGED):
            outcome = row.status if write(row, actor) else "lost"
        elif row.status == REFUSED and not skip_refused:
            raise ValueError(row.message)
        counts[outcome] += 1
        if on_row is not None:
            on_row(row, outcome)
    return counts


def model_admin_named(label: str):
    """Return the admin of the registered PynamoDB model `app_label.ModelName`, or None."""
    app_label, _, name = label.partition(".")
    for model, model_admin in admin.site._registry.items():
        opts = meta(model) if isinstance(model, type) and issubclass(model, Model) else None
        if opts and opts.app_label == app_label and opts.model_name == name.lower():
            return model_admin
    return None
