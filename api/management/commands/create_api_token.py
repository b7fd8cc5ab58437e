"""Create an API token for a staff user and print it once; only its digest is stored."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from api.models import ApiToken


class Command(BaseCommand):
    help = (
        "Create an API token for a staff user and print it (the token alone, once: only its "
        "SHA-256 digest is stored). Revoke it from the admin. The token acts with the user's "
        "permissions: whoever runs this command may act as anyone, as a superuser may; in the "
        "admin, staff create tokens only for themselves and only a superuser for others."
    )

    def add_arguments(self, parser):
        parser.add_argument("username", help="The staff user the token acts as.")
        parser.add_argument("--name", default="", help="What the token is for (a label).")

    def handle(self, *args, username: str, name: str = "", **options):
        users = get_user_model()
        user = users.objects.filter(**{users.USERNAME_FIELD: username}).first()
        if user is None:
            raise CommandError(f"No user called {username!r}.")
        if not (user.is_staff and user.is_active):
            raise CommandError(f"{username!r} is not an active staff member: tokens are for staff.")
        if len(name) > ApiToken._meta.get_field("name").max_length:
            raise CommandError("The token's name is too long (100 characters at most).")
        _, secret = ApiToken.issue(user, name=name)
        self.stdout.write(secret)
