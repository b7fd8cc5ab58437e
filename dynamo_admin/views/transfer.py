"""The export and import pages of a model: what the listing shows out, a previewed file in."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from itertools import chain
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.http import HttpResponseRedirect, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _

from .. import exports, imports
from ..csvfiles import BadFile, csv_lines, lines_of
from .changelist import BadQuery

# An export reads this many items a call once past the listing's first page.
EXPORT_PAGE = 500
EXPORT_CONTENT_TYPES = {"csv": "text/csv", "jsonl": "application/x-ndjson"}
SIGNING_SALT = "dynamo_admin.import"


def preview_max_age() -> int:
    """Return how long an import's preview may be confirmed, in seconds (one hour by default)."""
    return getattr(settings, "DYNAMO_ADMIN_IMPORT_PREVIEW_SECONDS", 3600)


class TransferViews:
    """export/ and import/ under the model's admin URL, as DynamoModelAdmin methods."""

    # The columns of a CSV export (default: the listing's attributes, the key first).
    export_fields: tuple[str, ...] | None = None
    # Cells a spreadsheet would run as formulas are written with a leading apostrophe.
    export_escape_formulas = True
    # What one import page may read and write; a bigger file is for `manage.py import_items`.
    max_import_rows = 1000
    max_import_bytes = 2_000_000

    # --- export -------------------------------------------------------------------------
    def export_view(self, request):
        """Stream the listing's items (its search, filters and order) as CSV or JSON Lines.

        Values go out as this user sees them in the admin: secrets masked, attributes the
        change page leaves out left out. Whole items (JSON Lines) only to those who may change
        them.
        """
        self.require(self.has_view_permission(request))
        kind = request.GET.get("format")
        listing = copy.copy(request)
        listing.GET = request.GET.copy()
        listing.GET.pop("format", None)
        try:
            cl = self.get_changelist_instance(listing)
        except BadQuery as exc:
            return self.bad_request(request, str(exc))
        if cl.not_applied:  # the listing says so on its page; a file could only lose it
            message = _(
                "An export holds exactly what the listing chose, but only the %(applied)s filter "
                "applies to this read, not %(others)s. Export with one of them at a time."
            )
            others = ", ".join(cl.not_applied)
            return self.bad_request(request, message % {"applied": cl.applied, "others": others})
        if kind not in exports.FORMATS:
            return self.render_export_page(request, cl, listing.GET.urlencode())
        if kind == "jsonl":
            self.require(self.has_change_permission(request))
        response = StreamingHttpResponse(
            exports.ended(self.export_lines(request, cl, kind), kind),
            content_type=EXPORT_CONTENT_TYPES[kind],
        )
        filename = f"{self.opts.model_name}.{kind}"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def export_lines(self, request, cl, kind: str) -> Iterator[str]:
        """Yield the export's lines, reading the listing's read one page at a time."""
        items = self.export_items(cl)
        if kind == "jsonl":
            return (
                exports.jsonl_line(self.model, exports.shown_raw(self, request, item)) + "\n"
                for item in items
            )
        names = exports.export_columns(self)
        rows = (exports.csv_row(item, names) for item in items)
        return csv_lines(chain([names], rows), escape=self.export_escape_formulas)

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
        formats = [("csv", _("CSV (the listing's columns)"))]
        if self.has_change_permission(request):
            formats.append(("jsonl", _("JSON Lines")))
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
            "formats": formats,
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
                    kind = imports.file_format(upload.name, text)
                    return self.preview_import(request, text, kind, upload.name)
        return self.render_import_page(request, context)

    def too_big_message(self, name: str) -> str:
        return _(
            "%(file)s is more than one page may import. Import it from the command line: "
            "python manage.py import_items %(label)s %(file)s"
        ) % {"file": name, "label": f"{self.opts.app_label}.{self.model.__name__}"}

    def import_records(self, text: str, kind: str) -> list[tuple[int, Any]]:
        """Return the file's rows, read before any item is: at most max_import_rows.

        Raise BadFile for a file that is not of its format or has too many rows.
        """
        records = []
        for record in imports.records_of(self.model, kind, lines_of(text)):
            records.append(record)
            if len(records) > self.max_import_rows:
                raise BadFile(_("It has more than %(most)s rows.") % {"most": self.max_import_rows})
        return records

    def preview_import(self, request, text: str, kind: str, name: str):
        try:
            records = self.import_records(text, kind)
        except BadFile as exc:
            return self.render_import_page(request, {"error": f"{name}: {exc}"})
        rows = list(imports.Importer(self, request).rows(records))
        payload = signing.dumps(
            {
                "text": text,
                "kind": kind,
                "name": name,
                "user": request.user.pk,
                "model": f"{self.opts.app_label}.{self.opts.model_name}",
                "seen": {str(row.line): imports.stored_digest(row.stored) for row in rows},
            },
            salt=SIGNING_SALT,
            compress=True,
        )
        counts = {status: sum(r.status == status for r in rows) for status in imports.STATUSES}
        context = {"rows": rows, "payload": payload, "counts": counts, "file_name": name}
        return self.render_import_page(request, context, preview=True)

    def confirm_import(self, request):
        """Write the previewed rows whose items are still as the preview read them."""
        try:
            payload = signing.loads(
                request.POST["payload"], salt=SIGNING_SALT, max_age=preview_max_age()
            )
        except signing.SignatureExpired:
            return self.bad_request(request, _("The import's preview has expired; upload again."))
        except signing.BadSignature:
            return self.bad_request(request, _("The import's preview was altered; upload again."))
        if (
            payload.get("user") != request.user.pk
            or payload.get("model") != f"{self.opts.app_label}.{self.opts.model_name}"
        ):
            return self.bad_request(request, _("This preview is not yours; upload the file again."))
        try:
            records = self.import_records(payload["text"], payload["kind"])
        except BadFile as exc:
            return self.bad_request(request, str(exc))
        importer = imports.Importer(self, request)
        planned = list(importer.rows(records))
        skip = request.POST.get("skip_refused") == "on"
        if any(row.status == imports.REFUSED for row in planned) and not skip:
            return self.preview_import(request, payload["text"], payload["kind"], payload["name"])
        counts = {status: 0 for status in (*imports.STATUSES, imports.LOST)}
        trouble = []
        for row in importer.rows(records, commit=True, expected=payload["seen"]):
            counts[row.status] += 1
            if row.status in (imports.LOST, imports.REFUSED):
                trouble.append(row)
        message = _(
            "Imported %(file)s: %(new)s new, %(changed)s changed, %(unchanged)s unchanged, "
            "%(refused)s refused."
        ) % {"file": payload["name"], **counts}
        self.message_user(request, message, messages.SUCCESS)
        for row in trouble:
            self.message_user(
                request,
                _("Line %(line)s (%(item)s) was not written: %(reason)s")
                % {"line": row.line, "item": row.label, "reason": row.message},
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
