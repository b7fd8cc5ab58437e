from django.apps import AppConfig
from django.contrib.admin import apps as admin_apps
from django.core import checks
from django.db.models.signals import post_migrate
from django.utils.translation import gettext_lazy as _


class DynamoAdminConfig(AppConfig):
    """The admin over DynamoDB models: permissions, checks and the AdminLog table."""

    default = True
    name = "dynamo_admin"
    verbose_name = _("DynamoDB admin")

    def ready(self) -> None:
        from .checks import check_admin_apps, check_log_table
        from .permissions import create_permissions
        from .tables import create_table_permissions

        checks.register(check_admin_apps)
        checks.register(check_log_table, checks.Tags.database)
        post_migrate.connect(create_permissions, sender=self)
        post_migrate.connect(create_table_permissions, sender=self)


class AdminConfig(admin_apps.AdminConfig):
    """Django's admin app, with the site that also serves the DynamoDB models."""

    default = False
    default_site = "dynamo_admin.sites.DynamoAdminSite"
