"""Django permissions for DynamoDB models, so auth and groups know `catalog.change_skill`."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, router
from pynamodb.models import Model

from dynamo.models import DynamoModel

from .meta import meta

ACTIONS = ("add", "change", "delete", "view")


def codename(action: str, model: type[Model]) -> str:
    """Return a permission's codename, as Django's get_permission_codename does."""
    return f"{action}_{meta(model).model_name}"


def perm_name(action: str, model: type[Model]) -> str:
    """Return the `app_label.codename` string user.has_perm() takes."""
    return f"{meta(model).app_label}.{codename(action, model)}"


# Plain PynamoDB models an admin site registered: they have permissions like DynamoModels.
registered_models: list[type[Model]] = []


def served_models() -> list[type[Model]]:
    """Return every model the admin may name: each DynamoModel and each registered plain one."""
    return [*DynamoModel.registry, *(m for m in registered_models if m not in DynamoModel.registry)]


def create_permissions(using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """Create the content type and view/add/change/delete permissions of every DynamoDB model."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    if not router.allow_migrate_model(using, Permission):
        return
    for model in served_models():
        opts = meta(model)
        content_type, _ = ContentType.objects.using(using).get_or_create(
            app_label=opts.app_label, model=opts.model_name
        )
        for action in ACTIONS:
            Permission.objects.using(using).get_or_create(
                content_type=content_type,
                codename=codename(action, model),
                defaults={"name": f"Can {action} {opts.verbose_name}"},
            )
