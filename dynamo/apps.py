from django.apps import AppConfig
from django.core import checks


class DynamoConfig(AppConfig):
    name = "dynamo"
    verbose_name = "DynamoDB"

    def ready(self) -> None:
        from .conf import check_settings
        from .models import configure

        checks.register(check_settings)
        configure()
