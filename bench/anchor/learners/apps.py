from django.apps import AppConfig


class LearnersConfig(AppConfig):
    name = "anchor.learners"
    verbose_name = "learners"
