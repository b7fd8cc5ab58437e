"""`@register(Model)`: register a DynamoModelAdmin with the admin site, like admin.register."""

from __future__ import annotations

from pynamodb.models import Model


def register(*models: type[Model], site=None):
    """Register the decorated DynamoModelAdmin class for these PynamoDB models."""
    from django.contrib.admin import site as default_site

    def wrapper(admin_class):
        (site or default_site).register(models, admin_class=admin_class)
        return admin_class

    return wrapper
