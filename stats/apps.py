from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    verbose_name = "Learner statistics"

    def ready(self) -> None:
        from . import receivers  # noqa: F401
