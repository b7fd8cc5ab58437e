"""The items of a shared table that no registered model claims: listed as stored, deletable.

On a single table, an item whose discriminator no class registered or whose key no model's
item_condition matches is served by no model's admin. This page lists them from any of the
table's models' changelists, read-only as stored, so nothing in a table is invisible to staff;
deleting one takes the delete permission of every model served on the table (the item may be
any of theirs).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.http import Http404, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from pynamodb.models import Model

from dynamo.codec import BadValue, decode_item, encode_item
from dynamo.cursors import InvalidCursor

from .. import pagination, tables
from ..keys import stored_key_names
from ..meta import meta
from ..sources import models_on_table, unclaimed_items
from ..stored import load

CURSOR_VAR, DELETE_VAR = "cursor", "delete"


class UnclaimedViews:
    """The page of a shared table's unclaimed items, as DynamoModelAdmin's method."""

    def table_models(self) -> list[type[Model]]:
        """Return the models this site serves on the admin's table (this one among them)."""
        registered = [m for m in self.admin_site._registry if isinstance(m, type)]
        served = [m for m in registered if issubclass(m, Model)]
        return models_on_table(served, self.model.Meta.table_name)

    def has_unclaimed_view_permission(self, request) -> bool:
        """Return whether this user may see the table's unclaimed items (the table's or a
        model's view permission)."""
        if tables.may_browse(request.user):
            return True
        admins = [self.admin_site._registry.get(m) for m in self.table_models()]
        return any(admin and admin.has_view_permission(request) for admin in admins)

    def has_unclaimed_delete_permission(self, request) -> bool:
        """Return whether this user may delete an unclaimed item: the table's change permission."""
        return tables.may_change(request.user)

    def unclaimed_view(self, request):
        """List the table's items no model claims; confirm and delete one (`?delete=<key>`)."""
        self.require(self.has_unclaimed_view_permission(request))
        models = self.table_models()
        if len(models) < 2:
            raise Http404(_("No other model shares this table."))
        table = self.model.Meta.table_name
        if DELETE_VAR in request.GET or request.method == "POST":
            self.require(self.has_unclaimed_delete_permission(request))
            return self.unclaimed_delete(request, models)
        scope = f"unclaimed:{table}"
        try:
            position = pagination.decode(request.GET.get(CURSOR_VAR), scope)
        except InvalidCursor as exc:
            return self.bad_request(request, str(exc))
        page = unclaimed_items(
            table, models, self.list_per_page, position.start, self.list_read_budget
        )
        names = stored_key_names(self.model)
        rows = [
            {
                "key": json.dumps(encode_item({n: raw[n] for n in names}), sort_keys=True),
                "stored": json.dumps(encode_item(raw), indent=2, sort_keys=True),
            }
            for raw in page.items
        ]

        def link(at: pagination.Position | None) -> str | None:
            token = pagination.encode(at, scope) if at is not None else None
            return None if at is None else (f"?{CURSOR_VAR}={token}" if token else "?")

        context = {
            **self.unclaimed_context(request, models),
            "rows": rows,
            "cost": page.cost,
            "next_url": link(position.next(page.next_start)) if page.next_start else None,
            "previous_url": link(position.previous()),
            "may_delete": self.has_unclaimed_delete_permission(request),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("unclaimed.html"), context)

    def unclaimed_context(self, request, models) -> dict[str, Any]:
        table = self.model.Meta.table_name
        if self.has_view_permission(request):
            crumb = (self.url_for("changelist"), self.opts.verbose_name_plural)
        elif tables.is_allowed(table):
            crumb = (reverse("admin:dynamo_table", args=[table]), table)
        else:
            crumb = (reverse("admin:dynamo_tables"), _("Tables"))
        return {
            **self.admin_site.each_context(request),
            "title": _("Items of %(table)s no model claims")
            % {"table": self.model.Meta.table_name},
            "subtitle": None,
            "opts": self.opts,
            # Whence a person came: the model's listing, or (table permission only) the table.
            "crumb_url": crumb[0],
            "crumb_text": crumb[1],
            "table_name": self.model.Meta.table_name,
            "model_names": ", ".join(str(meta(m).verbose_name_plural) for m in models),
        }

    def unclaimed_delete(self, request, models):
        """Confirm (GET) or make (POST) the delete of one unclaimed item, still unclaimed."""
        text = request.POST.get("key") if request.method == "POST" else request.GET.get(DELETE_VAR)
        try:
            key = decode_item(json.loads(text or ""))
        except (ValueError, BadValue):
            return self.bad_request(request, _("Name the item to delete by its key."))
        if sorted(key) != sorted(stored_key_names(self.model)):
            return self.bad_request(request, _("Name the item to delete by its key."))
        table = self.model.Meta.table_name
        connection = self.model._get_connection().connection
        raw = connection.dispatch(
            "GetItem", {"TableName": table, "Key": key, "ConsistentRead": True}
        ).get("Item")
        if raw is None or any(load(m, raw) is not None for m in models):
            self.message_user(request, _("That item is gone or a model claims it now."))
            return HttpResponseRedirect(request.path)
        if request.method == "POST":
            names = {f"#k{n}": name for n, name in enumerate(key)}
            connection.dispatch(
                "DeleteItem",
                {
                    "TableName": table,
                    "Key": key,
                    # Only the item the page showed: not one written at its key meanwhile.
                    "ConditionExpression": " AND ".join(
                        f"attribute_exists({placeholder})" for placeholder in names
                    ),
                    "ExpressionAttributeNames": names,
                },
            )
            self.message_user(
                request,
                _("The item %(key)s was deleted.") % {"key": json.dumps(encode_item(key))},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(request.path)
        context = {
            **self.unclaimed_context(request, models),
            "title": _("Are you sure?"),
            "confirm_key": text,
            "stored": json.dumps(encode_item(raw), indent=2, sort_keys=True),
        }
        request.current_app = self.admin_site.name
        return TemplateResponse(request, self.templates("unclaimed.html"), context)
