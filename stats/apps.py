from django.apps import AppConfig


class StatsConfig(AppConfig):
    name = "stats"
    verbose_name = "Learner statistics"

    def ready(self) -> None:
        from . import receivers, tiers  # noqa: F401  (tiers registers the rank-tiers table)
