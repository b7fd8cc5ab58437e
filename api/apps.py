from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The JSON API over the catalog, learners, their skills and stats, and its tokens."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "api"
    verbose_name = "API"
