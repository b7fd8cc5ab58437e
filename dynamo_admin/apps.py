from django.apps import AppConfig


class DynamoAdminConfig(AppConfig):
    name = "dynamo_admin"
    verbose_name = "DynamoDB admin"
