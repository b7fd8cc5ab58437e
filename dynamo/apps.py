from django.apps import AppConfig


class DynamoConfig(AppConfig):
    name = "dynamo"
    verbose_name = "DynamoDB"

    def ready(self) -> None:
        from .models import configure

        configure()
