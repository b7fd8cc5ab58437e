"""Django permissions for DynamoDB models, so auth and groups know `catalog.change_skill`."""

from __future__ import annotations

from typing import Any

from django.db import DEFAULT_DB_ALIAS, router

from dynamo.models import DynamoModel

ACTIONS = ("add", "change", "delete", "view")


def codename(action: str, model: type[DynamoModel]) -> str:
    """Return a permission's codename, as Django's get_permission_codename does."""
    return f"{action}_{model.model_name}"


def perm_name(action: str, model: type[DynamoModel]) -> str:
    """Return the `app_label.codename` string user.has_perm() takes."""
    return f"{model.app_label}.{codename(action, model)}"


def create_permissions(using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """Create the content type and view/add/change/delete permissions of every DynamoDB model."""
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType

    if not router.allow_migrate_model(using, Permission):
        return
    for model in DynamoModel.registry:
        content_type, _ = ContentType.objects.using(using).get_or_create(
            app_label=model.app_label, model=model.model_name
        )
        for action in ACTIONS:
            Permission.objects.using(using).get_or_create(
                content_type=content_type,
                codename=codename(action, model),
                defaults={"name": f"Can {action} {model.verbose_name}"},
            )
