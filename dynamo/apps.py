from django.apps import AppConfig


class DynamoConfig(AppConfig):
    name = "dynamo"
    verbose_name = "DynamoDB"

    def ready(self) -> None:
        from . import jobs  # noqa: F401  (registers the bookkeeping table)
        from .models import configure

        configure()
