"""The Tables pages: every allowed table, its query console, its items, as staff see them.

Function views, each wrapped by the site's `admin_view` (login, staff, CSRF); the lookup
helpers own the permission question: no permission is a 403 at every URL, a table outside
`DYNAMO_ADMIN_TABLES` a 404.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterator
from decimal import Decimal
from functools import partial, wraps
from html import escape
from itertools import chain, islice
from typing import Any
from urllib.parse import quote_plus

from botocore.exceptions import ClientError
from django.contrib import messages
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from pynamodb.exceptions import PynamoDBException

from dynamo.codec import BadValue, decode_item, encode, encode_item, loads
from dynamo.exceptions import causes, outage_cause

from .. import exports, partiql, table_writes, tables
from ..console import (
    FILTER_OPERATORS,
    SORT_OPERATORS,
    VALUE_TYPES,
    BadQuery,
    Console,
    Filter,
    read_page,
)
from ..csvfiles import csv_lines
from ..meta import meta
from ..models import CHANGE, HIDDEN, AdminLog, unescaped
from ..writes import MAX_TRANSACTION_ITEMS, Cancelled
from .transfer import EXPORT_CONTENT_TYPES

SHOWN_SALT = "dynamo_admin.tables.shown"
MAX_BULK_DELETE = 100  # items one confirmation may delete
MAX_CELL_CHARS = 120
PARTIQL_PAGE = 100  # items a SELECT evaluates per click
EXPORT_SAMPLE = 1000  # items a CSV export reads before its header names their attributes


def table_urls(site) -> list:
    """Return the Tables URLs, each view wrapped by the site's admin_view."""

    def wrap(view):
        return site.admin_view(refusals_answered(partial(view, site=site), site))

    return [
        path("tables/", wrap(tables_view), name="dynamo_tables"),
        path("tables/<str:name>/", wrap(table_view), name="dynamo_table"),
        path("tables/<str:name>/item/", wrap(item_view), name="dynamo_table_item"),
        path("tables/<str:name>/add/", wrap(add_view), name="dynamo_table_add"),
        path("tables/<str:name>/delete/", wrap(delete_view), name="dynamo_table_delete"),
        path("tables/<str:name>/export/", wrap(export_view), name="dynamo_table_export"),
        path("tables/<str:name>/partiql/", wrap(partiql_view), name="dynamo_table_partiql"),
    ]


def refusals_answered(view, site):
    """Wrap a Tables view so DynamoDB refusing one of its calls is a page saying so, not a 500.

    AccessDenied is what a host whose IAM role lacks an action gets on AWS: the page names the
    action, so whoever runs the site knows what to grant.
    """

    @wraps(view)
    def answered(request, *args, **kwargs):
        try:
            return view(request, *args, **kwargs)
        except (ClientError, PynamoDBException) as exc:
            refused = client_error(exc)
            if refused is None:
                raise
            return _refused(request, site, kwargs.get("name"), refused)

    return answered


def client_error(exc: BaseException) -> ClientError | None:
    """Return DynamoDB's answer behind an exception (PynamoDB wraps botocore's), if any."""
    return next((cause for cause in causes(exc) if isinstance(cause, ClientError)), None)


def refusal_status(exc: ClientError) -> int:
    """Return a refusal's status: 503 for the engine's side (denied, throttled), else 400."""
    return 503 if outage_cause(exc) is not None else 400


def refusal_text(exc: ClientError) -> str:
    """Return what DynamoDB refused and why, with what to grant when access was denied."""
    error = exc.response.get("Error", {})
    code, operation = error.get("Code", ""), exc.operation_name
    text = _("DynamoDB refused %(operation)s (%(code)s): %(message)s") % {
        "operation": operation,
        "code": code,
        "message": error.get("Message") or str(exc),
    }
    if code in ("AccessDeniedException", "AccessDenied"):
        # AWS's message names the IAM action and resource (a transaction's item, a PartiQL
        # statement's PartiQLSelect ...), which need not be the operation's own name.
        text += " " + _(
            "The AWS identity this site runs as lacks the IAM permission the message names: "
            "grant it in that identity's IAM policy."
        )
    return text


def _refused(request, site, name: str | None, exc: ClientError):
    # The table by name only: describing it again may be the very call that was refused.
    table = {"name": name} if name else None
    context = {"title": _("DynamoDB refused"), "table": table, "message": refusal_text(exc)}
    return _render(request, site, "bad_request.html", context, status=refusal_status(exc))


# --- lookups that own the permission question ------------------------------------------
def _require_browse(request) -> None:
    if not tables.may_browse(request.user):
        raise PermissionDenied


def _table_or_404(request, name: str) -> tables.Table:
    _require_browse(request)
    return tables.describe(name)


def _writable_table_or_404(request, name: str) -> tables.Table:
    _require_browse(request)
    if not tables.may_change(request.user):
        raise PermissionDenied
    return tables.describe(name)


def _render(request, site, template: str, context: dict[str, Any], status: int = 200):
    request.current_app = site.name
    context = {**site.each_context(request), "subtitle": None, **context}
    names = [f"admin/dynamo_admin/tables/{template}", f"dynamo_admin/tables/{template}"]
    return TemplateResponse(request, names, context, status=status)


def _bad_request(request, site, table, message: str):
    context = {"title": _("Bad request"), "table": table, "message": message}
    return _render(request, site, "bad_request.html", context, status=400)


# --- how a stored value reads -----------------------------------------------------------
def value_text(raw: dict[str, Any] | None, limit: int | None = MAX_CELL_CHARS) -> str:
    """Return a stored value (the client's form) as a cell shows it, its type kept apparent."""
    if raw is None:
        return ""
    kind, inner = next(iter(raw.items()))
    if kind in ("S", "N"):
        text = inner
    elif kind == "B":
        text = base64.b64encode(inner).decode("ascii")
    elif kind == "BOOL":
        text = "true" if inner else "false"
    elif kind == "NULL":
        text = "null"
    elif kind in ("SS", "NS"):
        text = "{" + ", ".join(sorted(inner)) + "}"
    elif kind == "BS":
        text = "{" + ", ".join(sorted(base64.b64encode(v).decode("ascii") for v in inner)) + "}"
    else:
        text = json.dumps(encode(raw)[kind], ensure_ascii=False, sort_keys=True)
    if limit and len(text) > limit:
        return text[: limit - 1] + "…"
    return text


def _cells(item: dict[str, Any], columns: list[str], secrets: set[str]) -> list[str]:
    """Return a result row's cells, a secret masked as the model's pages mask it."""
    return [
        HIDDEN if column in secrets and column in item else value_text(item.get(column))
        for column in columns
    ]


def cell_value(raw: dict[str, Any] | None) -> Any:
    """Return a stored value as exports.cell_text takes it (a CSV cell)."""
    if raw is None:
        return None
    kind, inner = next(iter(raw.items()))
    if kind == "N":
        return Decimal(inner)
    if kind == "NS":
        return {Decimal(v) for v in inner}
    if kind in ("B", "BS", "M", "L"):
        return value_text(raw, limit=None)
    if kind == "NULL":
        return None
    return inner


def key_param(table: tables.Table, raw: dict[str, Any]) -> str:
    """Return an item's key as the `key` parameter of its URL: typed JSON."""
    key = table_writes.key_of(table, raw)
    return json.dumps(encode_item(key), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def item_url(table: tables.Table, raw: dict[str, Any]) -> str:
    url = reverse("admin:dynamo_table_item", args=[table.name])
    return f"{url}?{urlencode({'key': key_param(table, raw)})}"


def parse_key(table: tables.Table, text: str) -> dict[str, Any]:
    """Return the key a `key` parameter names; raise BadValue saying what is wrong."""
    key = decode_item(loads(text))
    if sorted(key) != sorted(table.key_names):
        raise BadValue(_("A key holds exactly %(names)s.") % {"names": ", ".join(table.key_names)})
    for name, value in key.items():
        if next(iter(value)) != table.attribute_types[name]:
            raise BadValue(_("Key attribute %(name)s has another type.") % {"name": name})
    return key


def logged_key(table: tables.Table, text: str) -> dict[str, Any]:
    """Return the key a History entry's log key names (`models.object_key_for`'s values:
    escaped, '/'-joined, numbers as stored, binary in base64); raise BadValue if none."""
    texts = [unescaped(part) for part in text.split("/")]
    if len(texts) != len(table.key_names) or "" in texts:
        raise BadValue(_("A key holds exactly %(names)s.") % {"names": ", ".join(table.key_names)})
    key: dict[str, Any] = {}
    for name, value in zip(table.key_names, texts, strict=True):
        kind = table.attribute_types[name]
        try:
            key[name] = {kind: base64.b64decode(value, validate=True) if kind == "B" else value}
        except binascii.Error:
            raise BadValue(_("Key attribute %(name)s is not base64.") % {"name": name}) from None
    return parse_key(table, json.dumps(encode_item(key)))


# --- the tables -------------------------------------------------------------------------
def tables_view(request, site):
    """List every allowed table: keys, indexes, TTL, stream, billing, size and models."""
    _require_browse(request)
    described = [tables.describe(name, fresh=True) for name in tables.table_names()]
    rows = [
        {
            "table": table,
            "models": [
                (meta(model).verbose_name_plural, _model_url(model)) for model in table.models()
            ],
        }
        for table in described
    ]
    context = {"title": _("Tables"), "rows": rows, "patterns": tables.allowed_patterns()}
    return _render(request, site, "index.html", context)


def _model_url(model, view: str = "changelist") -> str | None:
    opts = meta(model)
    try:
        return reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}")
    except Exception:  # registered on another site than this one
        return None


def _unclaimed_url(table: tables.Table) -> str | None:
    """Return the page of the items no model claims, for a table several models share."""
    models = table.models()
    return _model_url(models[0], "unclaimed") if len(models) > 1 else None


# --- the console ------------------------------------------------------------------------
def table_view(request, site, name: str):
    """Run the query the URL holds, one bounded page of it, and show what it read."""
    table = _table_or_404(request, name)
    context: dict[str, Any] = {"title": table.name, "table": table, "page": None, "error": None}
    try:
        console = Console.from_query(table, request.GET)
    except BadQuery as exc:
        console = Console(table)
        context["error"] = str(exc)
    context["console"] = console
    context["filter_rows"] = _filter_rows(console)
    context["sort_operators"] = SORT_OPERATORS
    context["filter_operators"] = FILTER_OPERATORS
    context["value_types"] = VALUE_TYPES
    context["may_change"] = tables.may_change(request.user)
    context["unclaimed_url"] = _unclaimed_url(table)
    ran = request.GET and not context["error"]
    if ran and console.needs_confirmation():
        context["confirm_url"] = f"?{_with(request.GET, confirm='1', cursor=None)}"
    elif ran:
        try:
            page = read_page(tables.client(), console)
        except BadQuery as exc:
            context["error"] = str(exc)
        except ClientError as exc:
            context["error"], context["status"] = refusal_text(exc), refusal_status(exc)
        else:
            context.update(_results(request, table, console, page))
    status = context.pop("status", 400) if context["error"] else 200
    return _render(request, site, "table.html", context, status=status)


def _filter_rows(console: Console) -> list[dict[str, Any]]:
    """Return the console's filters and two blank ones, each as the form's row shows it.

    A blank row holds an empty Filter rather than None: the template compares its operator
    and type with each option, and a lookup on None costs an exception each time.
    """
    rows = [{"n": n, "filter": f} for n, f in enumerate(console.filters)]
    blank = range(len(rows), len(rows) + 2)
    return [*rows, *({"n": n, "filter": Filter("", "")} for n in blank)]


def _with(params, **changes: str | None) -> str:
    query = params.copy()
    for name, value in changes.items():
        query.pop(name, None)
        if value is not None:
            query[name] = value
    return query.urlencode()


def _columns(console: Console, items: list[dict[str, Any]]) -> list[str]:
    if console.columns:
        keys = console.table.key_names
        return [*keys, *(c for c in console.columns if c not in keys)]
    keys = console.table.key_names
    seen = {name for item in items for name in item} - set(keys)
    return [*keys, *sorted(seen)]


def _results(request, table: tables.Table, console: Console, page) -> dict[str, Any]:
    columns = _columns(console, page.items)
    base = reverse("admin:dynamo_table_item", args=[table.name])
    secrets = table.secret_names()
    row_html = _row_html(tables.may_change(request.user))
    rows = []
    for item in page.items:
        key = key_param(table, item)
        url = f"{base}?key={quote_plus(key)}"  # urlencode({"key": key}), without its checks
        cells = _cells(item, columns, secrets)
        rows.append({"url": url, "key": key, "cells": cells, "html": row_html(key, url, cells)})
    return {
        "page": page,
        "columns": columns,
        "rows": rows,
        "next_url": f"?{_with(request.GET, cursor=page.next_cursor)}" if page.next_cursor else None,
        "first_url": f"?{_with(request.GET, cursor=None)}" if console.cursor else None,
        "export_query": _with(request.GET, cursor=None),
    }


def _row_html(may_change: bool):
    """Return what writes a result row's cells as HTML: its checkbox, its link, its values.

    Built in Python, as Django's `items_for_result` builds a changelist's rows: a template
    loop per cell, then per row, was most of the page's own time (bench/RESULTS.md). Every
    value is escaped as the template's autoescape would.
    """
    select, open_label = escape(_("Select this item")), escape(_("Open"))

    def row_html(key: str, url: str, cells: list[str]) -> str:
        html = f'<td><a href="{escape(url)}">{open_label}</a></td>'
        html += "".join(f"<td>{escape(cell)}</td>" for cell in cells)
        if may_change:
            html = (
                f'<td><input type="checkbox" name="key" value="{escape(key)}" '
                f'class="action-select" aria-label="{select}"></td>{html}'
            )
        return mark_safe(html)

    return row_html


# --- an item ----------------------------------------------------------------------------
def _get_item(table: tables.Table, key: dict[str, Any]) -> dict[str, Any] | None:
    answer = tables.client().get_item(TableName=table.name, Key=key, ConsistentRead=True)
    return answer.get("Item")


def _signed(table: tables.Table, shown: Any) -> str:
    """Return what a page showed, signed for this table's pages only."""
    return signing.dumps(shown, salt=f"{SHOWN_SALT}:{table.name}", compress=True)


def _unsigned(table: tables.Table, text: str) -> Any:
    """Return what `_signed` signed; raise BadSignature if altered or another table's."""
    return signing.loads(text, salt=f"{SHOWN_SALT}:{table.name}")


def _attribute_rows(table: tables.Table, raw: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    secrets = table.secret_names()
    for name in [*table.key_names, *sorted(n for n in raw if n not in table.key_names)]:
        value = raw[name]
        text = HIDDEN if name in secrets else value_text(value, limit=None)
        row = {"name": name, "type": next(iter(value)), "text": text}
        if name == table.ttl_attribute:
            row["expiry"] = tables.expiry(value)
        row["key"] = name in table.key_names
        rows.append(row)
    return rows


def item_view(request, site, name: str):
    """Show an item as attributes and typed JSON; a POST saves what changed, on condition."""
    table = _table_or_404(request, name)
    if "logged" in request.GET and "key" not in request.GET:  # a History entry's link
        try:
            return HttpResponseRedirect(item_url(table, logged_key(table, request.GET["logged"])))
        except BadValue as exc:
            return _bad_request(request, site, table, _("This History link is broken: %s") % exc)
    try:
        key = parse_key(table, request.GET.get("key", ""))
    except BadValue as exc:
        return _bad_request(request, site, table, _("This item link is broken: %s") % exc)
    context: dict[str, Any] = {"table": table, "key": key, "error": None, "stored_now": None}
    if request.method == "POST":
        if not tables.may_change(request.user):
            raise PermissionDenied
        response = _save(request, site, table, key, context)
        if response is not None:
            return response
        raw, text = context.pop("shown"), request.POST.get("item", "")
        stored = context.pop("stored", None) or raw
    else:
        raw = _get_item(table, key)
        if raw is None:
            return _render(
                request,
                site,
                "missing.html",
                {
                    "title": _("No such item"),
                    "table": table,
                    "key_text": key_param(table, key),
                    "add_query": urlencode({"key": key_param(table, key)}),
                    "may_change": tables.may_change(request.user),
                },
                status=404,
            )
        stored, raw = raw, table.without_secrets(raw)
        text = table_writes.item_text(raw)
    context.update(
        {
            "title": _("Item of %(table)s") % {"table": table.name},
            "raw": raw,
            "attributes": _attribute_rows(table, stored),
            "item_text": text,
            "shown": _signed(table, encode_item(raw)),
            "may_change": tables.may_change(request.user),
            "delete_url": f"{reverse('admin:dynamo_table_delete', args=[table.name])}?"
            + urlencode({"key": key_param(table, key)}),
            "history": _history(table, raw),
        }
    )
    # A refused save is the form again with its error, as Django's change form answers.
    return _render(request, site, "item.html", context)


def _history(table: tables.Table, raw: dict[str, Any]) -> list[Any]:
    return AdminLog.history(tables.logged_item(table, raw), limit=20)


def _save(request, site, table, key, context):
    """Save the posted item; return the redirect, or None with the page's error in context."""
    try:
        shown = decode_item(_unsigned(table, request.POST.get("shown", "")))
    except (signing.BadSignature, BadValue):
        return _bad_request(request, site, table, _("The page's item was altered; open it again."))
    context["shown"] = shown
    if table_writes.key_of(table, shown) != key:
        return _bad_request(request, site, table, _("The page's item is another item."))
    try:
        saved = table_writes.parse_item(request.POST.get("item", ""), table)
    except table_writes.BadItem as exc:
        context["error"] = str(exc)
        return None
    if secret := _secret_in(table, saved):
        context["error"] = secret
        return None
    if table_writes.key_of(table, saved) != key:
        context["error"] = _("The key is read-only: %(names)s must stay as they are.") % {
            "names": ", ".join(table.key_names)
        }
        return None
    try:
        change = table_writes.save(table, shown, saved, request.user.get_username())
    except Cancelled:
        context["error"] = _(
            "The item changed since this page read it: nothing was saved. Your version is in "
            "the box; the stored one is below. Save again to write yours over it."
        )
        stored = _get_item(table, key)
        if stored:
            context["stored"], context["shown"] = stored, table.without_secrets(stored)
        context["stored_now"] = (
            table_writes.item_text(context["shown"]) if stored else _("(deleted)")
        )
        return None
    except (PynamoDBException, ClientError) as exc:
        context["error"] = _("DynamoDB refused the save: %s") % _refusal(exc)
        return None
    if change.names:
        messages.success(request, _("Saved %(names)s.") % {"names": ", ".join(change.names)})
    else:
        messages.info(request, _("No attribute changed."))
    return HttpResponseRedirect(item_url(table, key))


def _secret_in(table: tables.Table, item: dict[str, Any]) -> str | None:
    """Return why an item naming a secret attribute is refused, or None."""
    named = sorted(set(item) & table.secret_names())
    if not named:
        return None
    return _("%(names)s is secret: it is never shown nor written here.") % {
        "names": ", ".join(named)
    }


def _refusal(exc: Exception) -> str:
    if (answer := client_error(exc)) is not None:
        return refusal_text(answer)
    return getattr(exc, "cause_response_message", None) or str(exc)


def _new_item_text(table: tables.Table, key_text: str) -> str:
    """Return a new item's starting text: the key the link names, else each key attribute
    with its type and an empty value."""
    try:
        return table_writes.item_text(parse_key(table, key_text))
    except BadValue:
        types = table.attribute_types
        start = {n: {types[n]: "0" if types[n] == "N" else ""} for n in table.key_names}
        return json.dumps(start, indent=2)


def add_view(request, site, name: str):
    """Make a new item on a free key, from typed JSON."""
    table = _writable_table_or_404(request, name)
    error = None
    text = request.POST.get("item") if request.method == "POST" else None
    if text is None:
        text = _new_item_text(table, request.GET.get("key", ""))
    if request.method == "POST":
        try:
            item = table_writes.parse_item(text, table)
            if secret := _secret_in(table, item):
                raise table_writes.BadItem(secret)
            table_writes.add(table, item, request.user.get_username())
        except table_writes.BadItem as exc:
            error = str(exc)
        except Cancelled:
            error = _("An item with this key already exists: nothing was written.")
        except (PynamoDBException, ClientError) as exc:
            error = _("DynamoDB refused the item: %s") % _refusal(exc)
        else:
            messages.success(request, _("Added the item."))
            return HttpResponseRedirect(item_url(table, item))
    context = {
        "title": _("Add an item to %(table)s") % {"table": table.name},
        "table": table,
        "item_text": text,
        "error": error,
    }
    return _render(request, site, "add.html", context)


def delete_view(request, site, name: str):
    """Confirm, then delete the chosen items, each on its still holding what was shown."""
    table = _writable_table_or_404(request, name)
    if request.method == "POST" and "shown" in request.POST:
        return _delete(request, site, table)
    texts = request.POST.getlist("key") if request.method == "POST" else request.GET.getlist("key")
    if not texts:
        return _bad_request(request, site, table, _("Choose the items to delete."))
    if len(texts) > MAX_BULK_DELETE:
        return _bad_request(request, site, table, _("At most %s items at once.") % MAX_BULK_DELETE)
    try:
        keys = [parse_key(table, text) for text in texts]
    except BadValue as exc:
        return _bad_request(request, site, table, str(exc))
    found = [raw for raw in (_get_item(table, key) for key in keys) if raw is not None]
    context = {
        "title": _("Are you sure?"),
        "table": table,
        "items": [{"url": item_url(table, raw), "label": key_param(table, raw)} for raw in found],
        "shown": _signed(table, [encode_item(table.without_secrets(raw)) for raw in found]),
        "back": request.POST.get("back") or request.GET.get("back") or "",
    }
    return _render(request, site, "delete.html", context)


def _delete(request, site, table):
    try:
        shown = [decode_item(raw) for raw in _unsigned(table, request.POST["shown"])]
    except (signing.BadSignature, BadValue, TypeError):
        return _bad_request(request, site, table, _("The confirmation was altered; choose again."))
    deleted = refused = 0
    actor = request.user.get_username()
    try:
        for start in range(0, len(shown), MAX_TRANSACTION_ITEMS):
            done, lost = _delete_chunk(table, shown[start : start + MAX_TRANSACTION_ITEMS], actor)
            deleted, refused = deleted + done, refused + lost
    except (PynamoDBException, ClientError) as exc:
        messages.error(request, _("DynamoDB refused the deletes: %s") % _refusal(exc))
    if deleted:
        message = ngettext("Deleted %(count)s item.", "Deleted %(count)s items.", deleted)
        messages.success(request, message % {"count": deleted})
    if refused:
        message = ngettext(
            "%(count)s item changed or went since the confirmation and was not deleted.",
            "%(count)s items changed or went since the confirmation and were not deleted.",
            refused,
        )
        messages.warning(request, message % {"count": refused})
    back = request.POST.get("back", "")
    url = reverse("admin:dynamo_table", args=[table.name])
    return HttpResponseRedirect(f"{url}?{back}" if back else url)


def _delete_chunk(table: tables.Table, chunk: list[dict[str, Any]], actor: str) -> tuple[int, int]:
    """Delete one transaction's items; return how many were deleted and how many refused."""
    try:
        table_writes.delete(table, chunk, actor)
        return len(chunk), 0
    except Cancelled as exc:
        # The others of the chunk may still hold what was shown: delete them on their own.
        lost = [write.request["Delete"]["Key"] for write, _code in exc.failures]
    rest = [raw for raw in chunk if table_writes.key_of(table, raw) not in lost]
    if not rest:
        return 0, len(lost)
    try:
        table_writes.delete(table, rest, actor)
    except Cancelled:
        return 0, len(chunk)
    return len(rest), len(lost)


# --- PartiQL ---------------------------------------------------------------------------
def partiql_view(request, site, name: str):
    """Run one PartiQL statement on the table: a SELECT for browsers, any for changers.

    A SELECT that would read the whole table says what it costs and runs on a click; a write
    goes in one ExecuteTransaction with its History entry.
    """
    table = _table_or_404(request, name)
    may_change = tables.may_change(request.user)
    text = request.POST.get("statement", "") if request.method == "POST" else ""
    context: dict[str, Any] = {
        "title": _("PartiQL on %(table)s") % {"table": table.name},
        "table": table,
        "statement": text or f'SELECT * FROM "{table.name}" WHERE "{table.hash_key}" = ?',
        "may_change": may_change,
        "error": None,
        "confirmed": request.POST.get("confirm") == "1",
    }
    status = 200
    if request.method == "POST":
        try:
            statement = partiql.read(text, table)
            if not statement.is_select and not may_change:
                status = 403
                raise partiql.BadStatement(_("You may run SELECT statements only."))
            if partiql.is_full_scan(statement, table) and request.POST.get("confirm") != "1":
                context["scan_units"] = table.scan_read_units
            elif statement.is_select:
                context.update(_select(request, table, statement))
            else:
                _write_statement(table, statement, request.user.get_username())
                messages.success(request, _("The statement ran, and is in the History."))
                return HttpResponseRedirect(reverse("admin:dynamo_table_partiql", args=[name]))
        except partiql.BadStatement as exc:
            context["error"], status = str(exc), status if status != 200 else 400
        except ClientError as exc:
            context["error"], status = _statement_refusal(exc), refusal_status(exc)
    return _render(request, site, "partiql.html", context, status=status)


def _select(request, table: tables.Table, statement) -> dict[str, Any]:
    options: dict[str, Any] = {"Statement": statement.text, "Limit": PARTIQL_PAGE}
    if request.POST.get("next_token"):
        options["NextToken"] = request.POST["next_token"]
    answer = tables.client().execute_statement(**options, ReturnConsumedCapacity="TOTAL")
    items = answer.get("Items", [])
    keyed = all(name in item for item in items for name in table.key_names)
    secrets = table.secret_names()
    columns = _columns(Console(table), items)
    rows = [
        {
            "url": item_url(table, item) if keyed else None,
            "cells": _cells(item, columns, secrets),
        }
        for item in items
    ]
    units = (answer.get("ConsumedCapacity") or {}).get("CapacityUnits", 0)
    return {
        "columns": columns,
        "rows": rows,
        "read_units": units,
        "ran": True,
        "next_token": answer.get("NextToken", ""),
    }


def _write_statement(table: tables.Table, statement, actor: str) -> None:
    entry = AdminLog.entry_for(
        partiql.LoggedStatement(table.name), CHANGE, actor, {"PartiQL": [None, statement.text]}
    )
    tables.client().execute_transaction(
        TransactStatements=[
            {"Statement": statement.text},
            partiql.logged_insert(entry, AdminLog.Meta.table_name),
        ]
    )


def _statement_refusal(exc: ClientError) -> str:
    error = exc.response.get("Error", {})
    reasons = [r.get("Code") for r in exc.response.get("CancellationReasons", []) or []]
    if "ConditionalCheckFailed" in reasons:
        return _("The statement's item is not as it expects (taken, or missing): nothing ran.")
    if error.get("Code") == "ValidationException":
        return _("DynamoDB refused the statement: %s") % error.get("Message", str(exc))
    return refusal_text(exc)


# --- export -----------------------------------------------------------------------------
def export_view(request, site, name: str):
    """Stream every item the console's query matches, as CSV or JSON Lines."""
    table = _table_or_404(request, name)
    kind = request.GET.get("format", "")
    if kind not in exports.FORMATS:
        return _bad_request(request, site, table, _("Choose CSV or JSON Lines."))
    try:
        console = Console.from_query(table, request.GET)
        console.request()
    except BadQuery as exc:
        return _bad_request(request, site, table, str(exc))
    if console.needs_confirmation():
        return _bad_request(
            request,
            site,
            table,
            _("A Scan of %(table)s reads about %(units)s read units: confirm it on its page first.")
            % {"table": table.name, "units": table.scan_read_units},
        )
    console.per_page = 1000
    response = StreamingHttpResponse(
        exports.ended(_export_lines(table, console, kind), kind),
        content_type=EXPORT_CONTENT_TYPES[kind],
    )
    response["Content-Disposition"] = f'attachment; filename="{table.name}.{kind}"'
    return response


def _all_items(console: Console) -> Iterator[dict[str, Any]]:
    """Return every item the console's query matches; the first page is read at once, so a
    refusal is the page's answer rather than a broken download."""
    dynamodb = tables.client()
    first = read_page(dynamodb, console)

    def rest(page) -> Iterator[dict[str, Any]]:
        while page.next_cursor:
            console.cursor = page.next_cursor
            page = read_page(dynamodb, console)
            yield from page.items

    return chain(first.items, rest(first))


def _export_lines(table: tables.Table, console: Console, kind: str) -> Iterator[str]:
    items = (table.without_secrets(raw) for raw in _all_items(console))
    if kind == "jsonl":
        model = tables.item_model(table)
        return (exports.jsonl_line(model, raw) + "\n" for raw in items)
    # The columns: those chosen, else every attribute of the first EXPORT_SAMPLE items.
    first = list(islice(items, EXPORT_SAMPLE))
    names = console.columns or sorted({name for raw in first for name in raw})
    columns = [*table.key_names, *(c for c in names if c not in table.key_names)]
    rows = (
        [exports.cell_text(cell_value(raw.get(c))) for c in columns] for raw in chain(first, items)
    )
    return csv_lines(chain([columns], rows))
