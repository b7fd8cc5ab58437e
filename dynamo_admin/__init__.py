"""Django's admin over DynamoDB tables mapped with PynamoDB.

from dynamo_admin import ModelAdmin, StackedInline, TabularInline, register, site
"""

from typing import Any

__all__ = ["ModelAdmin", "StackedInline", "TabularInline", "register", "site"]


def __getattr__(name: str) -> Any:
    # Imported on first use: the admin's modules need Django's settings and app registry.
    if name in ("ModelAdmin", "StackedInline", "TabularInline"):
        from . import options

        return getattr(options, {"ModelAdmin": "DynamoModelAdmin"}.get(name, name))
    if name == "register":
        from .decorators import register

        return register
    if name == "site":
        from django.contrib import admin

        return admin.site
    raise AttributeError(f"module 'dynamo_admin' has no attribute {name!r}")
