"""The export and import pages of a model: what the listing shows out, a previewed file in."""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.core import signing
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from .. import transfer
from ..stored import raw_of, to_json
from .changelist import BadQuery

# An export reads this many items a call once past the listing's first page.
EXPORT_PAGE = 500
EXPORT_CONTENT_TYPES = {"csv": "text/csv", "jsonl": "application/x-ndjson"}
SIGNING_SALT = "dynamo_admin.import"


def stored_digest(raw: dict[str, Any] | None) -> str:
    """Return a short digest of an item as stored (None: absent), to tell it changed."""
    text = json.dumps(to_json(raw), sort_keys=True) if raw is not None else ""
    return hashlib.sha256(text.encode()).hexdigest()[:20]


class TransferViews:
    """export/ and import/ under the model's admin URL, as DynamoModelAdmin methods."""

    # The columns of a CSV export (default: list_display).
    export_fields: tuple[str, ...] | None = None
    # What one import page may read and write; a bigger file is for `manage.py import_items`.
    max_import_rows = 1000
    max_import_bytes = 2_000_000

    # --- export -------------------------------------------------------------------------
    def export_view(self, request):
        """Stream the listing's items (its search, filters and order) as CSV or JSON Lines."""
        self.require(self.has_view_permission(request))
        kind = request.GET.get("format")
        listing = copy.copy(request)
        listing.GET = request.GET.copy()
        listing.GET.pop("format", None)
        try:
            cl = self.get_changelist_instance(listing)
        except BadQuery as exc:
            return self.bad_request(request, str(exc))
        if kind not in transfer.FORMATS:
            return self.render_export_page(request, cl, listing.GET.urlencode())
        response = StreamingHttpResponse(
            self.export_lines(cl, kind), content_type=EXPORT_CONTENT_TYPES[kind]
        )
        filename = f"{self.opts.model_name}.{kind}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def export_lines(self, cl, kind: str) -> Iterator[str]:
        """Yield the export's lines, reading the listing's read one page at a time."""
        items = self.export_items(cl)
        if kind == "jsonl":
            return (transfer.jsonl_line(raw_of(item)) + "\n" for item in items)
        names, header = transfer.export_columns(self)
        rows = (transfer.csv_cells(self, item, names) for item in items)
        return transfer.csv_lines(_with_header(header, rows))

    def export_items(self, cl) -> Iterator[Any]:
        page = cl.page
        while True:
            yield from page.items
            if page.next_start is None:
                return
            page = cl.source.page(self.model, EXPORT_PAGE, page.next_start, cl.forward)

    def render_export_page(self, request, cl, query: str):
        """Say what an export reads before it runs: the table's size, a click to go on."""
        described = self.model.describe_table()
        size = described.get("TableSizeBytes", 0)
        context = {
            **self.admin_site.each_context(request),
            "title": _("Export %(name)s") % {"name": self.opts.verbose_name_plural},
            "subtitle": None,
            "opts": self.opts,
            "cl": cl,
            "query": query,
            "item_count": described.get("ItemCount", 0),
            # A Scan reads 4 KB per read unit, half a unit when eventually consistent.
            "read_units": max(1, -(-size // 4096) // 2),
            "formats": [("csv", _("CSV (the listing's columns)")), ("jsonl", _("JSON Lines"))],
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("export.html"), context)

    # --- import -------------------------------------------------------------------------
    def import_view(self, request):
        """Upload a file, see what each row would do, then confirm: nothing is written before."""
        allowed = self.has_add_permission(request) or self.has_change_permission(request)
        self.require(allowed)
        if request.method == "POST" and "payload" in request.POST:
            return self.confirm_import(request)
        context: dict[str, Any] = {"error": None}
        if request.method == "POST":
            upload = request.FILES.get("file")
            if upload is None:
                context["error"] = _("Choose a file to import.")
            elif upload.size > self.max_import_bytes:
                context["error"] = self.too_big_message(upload.name)
            else:
                try:
                    text = upload.read().decode("utf-8")
                except UnicodeDecodeError:
                    context["error"] = _("The file is not UTF-8 text.")
                else:
                    kind = "csv" if upload.name.lower().endswith(".csv") else "jsonl"
                    return self.preview_import(request, text, kind, upload.name)
        return self.render_import_page(request, context)

    def too_big_message(self, name: str) -> str:
        return _(
            "%(file)s is more than one page may import. Import it from the command line: "
            "python manage.py import_items %(label)s %(file)s"
        ) % {"file": name, "label": f"{self.opts.app_label}.{self.model.__name__}"}

    def planned_rows(self, request, text: str, kind: str) -> list[transfer.Row]:
        """Return each row's plan, refusing those this user may not add or change."""
        lines = text.splitlines(keepends=True)
        records = (
            transfer.read_csv(self, lines)
            if kind == "csv"
            else transfer.read_jsonl(self.model, lines)
        )
        rows = list(transfer.plan(self.model, records))
        may_add, may_change = self.has_add_permission(request), self.has_change_permission(request)
        for row in rows:
            if (row.status == transfer.NEW and not may_add) or (
                row.status == transfer.CHANGED and not may_change
            ):
                row.message = _("You may not %(verb)s %(name)s.") % {
                    "verb": _("add") if row.status == transfer.NEW else _("change"),
                    "name": self.opts.verbose_name_plural,
                }
                row.status = transfer.REFUSED
        return rows

    def preview_import(self, request, text: str, kind: str, name: str):
        try:
            rows = self.planned_rows(request, text, kind)
        except transfer.BadFile as exc:
            return self.render_import_page(request, {"error": f"{name}: {exc}"})
        if len(rows) > self.max_import_rows:
            return self.render_import_page(request, {"error": self.too_big_message(name)})
        payload = signing.dumps(
            {
                "text": text,
                "kind": kind,
                "name": name,
                "seen": {str(row.line): stored_digest(row.stored) for row in rows},
            },
            salt=SIGNING_SALT,
            compress=True,
        )
        counts = {status: sum(r.status == status for r in rows) for status in transfer.STATUSES}
        context = {"rows": rows, "payload": payload, "counts": counts, "file_name": name}
        return self.render_import_page(request, context, preview=True)

    def confirm_import(self, request):
        """Write the previewed rows whose items are still as the preview read them."""
        try:
            payload = signing.loads(request.POST["payload"], salt=SIGNING_SALT)
        except signing.BadSignature:
            return self.bad_request(request, _("The import's preview was altered; upload again."))
        rows = self.planned_rows(request, payload["text"], payload["kind"])
        skip = request.POST.get("skip_refused") == "on"
        if any(row.status == transfer.REFUSED for row in rows) and not skip:
            return self.preview_import(request, payload["text"], payload["kind"], payload["name"])
        lost = []
        counts = {status: 0 for status in (*transfer.STATUSES, "lost")}
        actor = request.user.get_username()
        for row in rows:
            outcome = row.status
            if row.status in (transfer.NEW, transfer.CHANGED):
                # Written only on the item the preview showed: else reported, never overwritten.
                seen = payload["seen"].get(str(row.line))
                if seen != stored_digest(row.stored) or not transfer.write(row, actor):
                    outcome = "lost"
                    lost.append(row)
            counts[outcome] += 1
        message = _(
            "Imported %(file)s: %(new)s new, %(changed)s changed, %(unchanged)s unchanged, "
            "%(refused)s refused."
        ) % {"file": payload["name"], **counts}
        self.message_user(request, message, messages.SUCCESS)
        for row in lost:
            self.message_user(
                request,
                _(
                    "Line %(line)s (%(item)s) was changed by someone else since the preview: not "
                    "written."
                )
                % {"line": row.line, "item": row.label},
                messages.WARNING,
            )
        return HttpResponseRedirect(self.url_for("changelist"))

    def render_import_page(self, request, context: dict[str, Any], preview: bool = False):
        context = {
            **self.admin_site.each_context(request),
            "title": _("Import %(name)s") % {"name": self.opts.verbose_name_plural},
            "subtitle": None,
            "opts": self.opts,
            "preview": preview,
            "max_rows": self.max_import_rows,
            "command": f"python manage.py import_items {self.opts.app_label}.{self.model.__name__}",
            **context,
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("import.html"), context)


def _with_header(header: list[str], rows) -> Iterator[list[str]]:
    yield header
    yield from rows
