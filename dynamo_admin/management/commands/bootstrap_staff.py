"""Make sure someone can log in to the admin: create the first superuser if there is none."""

from __future__ import annotations

import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError

from dynamo.management.base import DynamoCommand

ADMIN_URL = "http://127.0.0.1:8000/admin/"


class Command(DynamoCommand):
    help = (
        "Create a superuser with a random password and print it once, unless a superuser "
        "exists already (then say how to reset its password). Uses Django's auth database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--username", default="admin", help="Name of the superuser to create (admin)."
        )
        parser.add_argument(
            "--url", default=ADMIN_URL, help=f"The admin's address to print ({ADMIN_URL})."
        )

    def handle(self, *args, username: str, url: str = ADMIN_URL, **options):
        users = get_user_model()
        existing = users.objects.filter(is_superuser=True).order_by("pk").first()
        if existing is not None:
            name = existing.get_username()
            self.stdout.write(
                f"A superuser exists already ({name}). To reset its password: "
                f"python manage.py changepassword {name}"
            )
            return
        if users.objects.filter(**{users.USERNAME_FIELD: username}).exists():
            raise CommandError(
                f"A user named {username!r} exists but is not a superuser: promote it in the "
                "admin or pass --username with another name."
            )
        password = secrets.token_urlsafe(18)
        users.objects.create_superuser(**{users.USERNAME_FIELD: username}, password=password)
        self.stdout.write(f"Staff login: {username} / {password}  ({url})")
