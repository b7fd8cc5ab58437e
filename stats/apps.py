from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    verbose_name = "Learner statistics"

    def ready(self) -> None:
        from . import receivers  # noqa: F401
        from .boards import tiers  # noqa: F401  (tiers registers the rank-tiers table)
