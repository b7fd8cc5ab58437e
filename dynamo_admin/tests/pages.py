"""A page as Django's form renderer gives it and as ours does (the project's tests use it too)."""

from __future__ import annotations

import re

DJANGOS = "django.forms.renderers.DjangoTemplates"
OURS = "dynamo_admin.renderers.DjangoTemplates"


def page_text(client, path: str) -> str:
    """Return a page's HTML less what differs between two requests (time, CSRF token)."""
    html = client.get(path).content.decode()
    html = re.sub(r"[\d.]+ ms", "", html)  # the footer's time on DynamoDB
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def with_each_renderer(client, path: str, settings) -> tuple[str, str, str]:
    """Return the page with Django's renderer, then twice with ours."""
    settings.FORM_RENDERER = DJANGOS
    djangos = page_text(client, path)
    settings.FORM_RENDERER = OURS
    return djangos, page_text(client, path), page_text(client, path)
