from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "users"
    verbose_name = "Learners"

    def ready(self) -> None:
        from . import receivers  # noqa: F401
