"""The admin site: Django's own, also serving the DynamoDB models at Django's URL shapes."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.admin import AdminSite
from django.contrib.admin.models import LogEntry
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _
from pynamodb.exceptions import PynamoDBException
from pynamodb.models import Model

from dynamo.conf import dynamo_settings

from .autocomplete import autocomplete_view as dynamo_autocomplete_view
from .autocomplete import dynamo_model_named
from .meta import ModelOpts
from .models import MISSING_LOG, AdminLog, is_missing_table
from .options import DynamoModelAdmin
from .permissions import registered_models
from .tables import may_browse
from .views.tables import table_urls


class DynamoAdminSite(AdminSite):
    """Django's AdminSite, whose one registry also takes DynamoDB models.

    A DynamoDB model registered here gets a `_meta` (ModelOpts) holding what Django's site
    reads from a model's `_meta`, so Django's own code builds its URLs, the index, the app
    pages, the sidebar and the checks. tests/test_admin_site.py pins that list.
    """

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
        # The project names its site in settings; without it the titles stay Django's.
        site_name = dynamo_settings.ADMIN_SITE_NAME
        if site_name:
            self.site_header = format_lazy(_("{name} administration"), name=site_name)
            self.site_title = format_lazy(_("{name} site admin"), name=site_name)

    def register(self, model_or_iterable, admin_class=None, **options: Any) -> None:
        """Register models as Django does; a PynamoDB model's default admin is DynamoModelAdmin.

        Any `pynamodb.models.Model` subclass is served, a DynamoModel or a plain one.
        """
        models = [model_or_iterable] if isinstance(model_or_iterable, type) else model_or_iterable
        django_models = [m for m in models if not issubclass(m, Model)]
        if django_models:
            super().register(django_models, admin_class, **options)
        dynamo_models = [m for m in models if issubclass(m, Model)]
        for model in dynamo_models:
            # Django's site reads `_meta`; the model's own class is otherwise left as written.
            model._meta = ModelOpts(model, admin_class)
            if model not in registered_models:
                registered_models.append(model)
        if dynamo_models:
            super().register(dynamo_models, admin_class or DynamoModelAdmin, **options)

    def unregister(self, model_or_iterable) -> None:
        models = [model_or_iterable] if isinstance(model_or_iterable, type) else model_or_iterable
        super().unregister(list(models))

    def autocomplete_view(self, request):
        """Answer Django's autocomplete widget; for a DynamoDB model's reference, by Query."""
        names = (request.GET.get("app_label"), request.GET.get("model_name"))
        if dynamo_model_named(self, *names) is None:
            return super().autocomplete_view(request)
        return dynamo_autocomplete_view(self, request)

    def get_urls(self):
        """Django's URLs, after the Tables pages (`tables/`) of any allowed DynamoDB table."""
        return [*table_urls(self), *super().get_urls()]

    # --- index -------------------------------------------------------------------------
    def index(self, request, extra_context=None):
        """Show Django's index, the user's DynamoDB changes among its Recent actions."""
        context = {
            "recent_actions": self.recent_actions(request),
            "may_browse_tables": may_browse(request.user),
            **(extra_context or {}),
        }
        return super().index(request, context)

    def recent_actions(self, request, limit: int = 10) -> list[Any]:
        """Return the user's latest log entries, DynamoDB's (one Query) and Django's, merged."""
        try:
            entries: list[Any] = AdminLog.recent_for(request.user.get_username(), limit)
        except PynamoDBException as exc:
            if not is_missing_table(exc):
                raise
            messages.warning(request, MISSING_LOG % {"table": AdminLog.Meta.table_name})
            entries = []
        entries += LogEntry.objects.filter(user=request.user).select_related("content_type")[:limit]
        return sorted(entries, key=lambda entry: entry.action_time, reverse=True)[:limit]
