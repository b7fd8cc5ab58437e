from django.apps import AppConfig


class LibraryConfig(AppConfig):
    name = "dynamo_admin.tests.library"
    label = "library"
    verbose_name = "Library"
