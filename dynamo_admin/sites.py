"""The admin site: Django's own, also serving the DynamoDB models at Django's URL shapes."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.admin import AdminSite
from django.contrib.admin.models import LogEntry
from django.contrib.admin.sites import AlreadyRegistered, NotRegistered
from django.urls import NoReverseMatch, include, path, re_path, reverse
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext_lazy as _

from dynamo.models import DynamoModel

from .models import AdminLog
from .options import DynamoModelAdmin


class DynamoAdminSite(AdminSite):
    """An AdminSite whose registry also takes DynamoDB models with a DynamoModelAdmin."""

    def __init__(self, name: str = "admin") -> None:
        super().__init__(name)
        self._dynamo_registry: dict[type[DynamoModel], DynamoModelAdmin] = {}
        # The project names its site in settings; without it the titles stay Django's.
        site_name = getattr(settings, "ADMIN_SITE_NAME", "")
        if site_name:
            self.site_header = format_lazy(_("{name} administration"), name=site_name)
            self.site_title = format_lazy(_("{name} site admin"), name=site_name)

    # --- registry -------------------------------------------------------------------------
    def register(self, model_or_iterable, admin_class=None, **options: Any) -> None:
        """Register Django models as Django does, and DynamoDB models with a DynamoModelAdmin."""
        models = [model_or_iterable] if isinstance(model_or_iterable, type) else model_or_iterable
        django_models = [m for m in models if not issubclass(m, DynamoModel)]
        if django_models:
            super().register(django_models, admin_class, **options)
        for model in (m for m in models if issubclass(m, DynamoModel)):
            if model in self._dynamo_registry:
                raise AlreadyRegistered(f"The model {model.__name__} is already registered.")
            admin_class = admin_class or DynamoModelAdmin
            if options:
                options["__module__"] = __name__
                admin_class = type(f"{model.__name__}Admin", (admin_class,), options)
            self._dynamo_registry[model] = admin_class(model, self)

    def unregister(self, model_or_iterable) -> None:
        models = [model_or_iterable] if isinstance(model_or_iterable, type) else model_or_iterable
        for model in models:
            if isinstance(model, type) and issubclass(model, DynamoModel):
                if model not in self._dynamo_registry:
                    raise NotRegistered(f"The model {model.__name__} is not registered")
                del self._dynamo_registry[model]
            else:
                super().unregister(model)

    def is_registered(self, model) -> bool:
        return model in self._dynamo_registry or super().is_registered(model)

    def get_model_admin(self, model):
        if model in self._dynamo_registry:
            return self._dynamo_registry[model]
        return super().get_model_admin(model)

    def check(self, app_configs):
        errors = super().check(app_configs)
        labels = None if app_configs is None else {c.label for c in app_configs}
        for model, model_admin in self._dynamo_registry.items():
            if labels is None or model.app_label in labels:
                errors.extend(model_admin.check())
        return errors

    # --- index -------------------------------------------------------------------------
    def index(self, request, extra_context=None):
        """Show Django's index, the user's DynamoDB changes among its Recent actions."""
        context = {"recent_actions": self.recent_actions(request), **(extra_context or {})}
        return super().index(request, context)

    def recent_actions(self, request, limit: int = 10) -> list[Any]:
        """Return the user's latest log entries, DynamoDB's (one Query) and Django's, merged."""
        entries: list[Any] = AdminLog.recent_for(request.user.get_username(), limit)
        entries += LogEntry.objects.filter(user=request.user).select_related("content_type")[:limit]
        return sorted(entries, key=lambda entry: entry.action_time, reverse=True)[:limit]

    # --- URLs -----------------------------------------------------------------------------
    def get_urls(self):
        urls = super().get_urls()
        catch_all = urls.pop() if self.final_catch_all_view else None
        labels = []
        for model, model_admin in self._dynamo_registry.items():
            urls.append(path(f"{model.app_label}/{model.model_name}/", include(model_admin.urls)))
            if model.app_label not in labels:
                labels.append(model.app_label)
        if labels:
            regex = r"^(?P<app_label>" + "|".join(labels) + ")/$"
            urls.append(re_path(regex, self.admin_view(self.app_index), name="app_list"))
        if catch_all is not None:
            urls.append(catch_all)
        return urls

    # --- index and sidebar ----------------------------------------------------------------
    def _build_app_dict(self, request, label=None):
        app_dict = super()._build_app_dict(request, label)
        for model, model_admin in self._dynamo_registry.items():
            if label and model.app_label != label:
                continue
            if not model_admin.has_module_permission(request):
                continue
            perms = model_admin.get_model_perms(request)
            if True not in perms.values():
                continue
            model_dict = self._model_dict(model, perms)
            app_label = model.app_label
            if app_label not in app_dict:
                app_dict[app_label] = {
                    "name": model_admin.opts.app_config.verbose_name,
                    "app_label": app_label,
                    "app_url": reverse(
                        "admin:app_list", kwargs={"app_label": app_label}, current_app=self.name
                    ),
                    "has_module_perms": True,
                    "models": [],
                }
            app_dict[app_label]["models"].append(model_dict)
        return app_dict

    def _model_dict(self, model: type[DynamoModel], perms: dict[str, bool]) -> dict[str, Any]:
        prefix = f"admin:{model.app_label}_{model.model_name}"
        model_dict: dict[str, Any] = {
            "model": model,
            "name": capfirst(model.verbose_name_plural),
            "object_name": model.__name__,
            "perms": perms,
            "admin_url": None,
            "add_url": None,
        }
        try:
            if perms.get("change") or perms.get("view"):
                model_dict["view_only"] = not perms.get("change")
                model_dict["admin_url"] = reverse(f"{prefix}_changelist", current_app=self.name)
            if perms.get("add"):
                model_dict["add_url"] = reverse(f"{prefix}_add", current_app=self.name)
        except NoReverseMatch:
            pass
        return model_dict
