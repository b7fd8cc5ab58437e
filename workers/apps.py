from django.apps import AppConfig


class WorkersConfig(AppConfig):
    name = "workers"
    verbose_name = "Background work"

    def ready(self) -> None:
        from . import jobs  # noqa: F401  (registers the jobs table)
