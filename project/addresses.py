"""The client's address, as far as the settings say which proxies in front are trusted."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """Return REMOTE_ADDR, or behind N trusted proxies the address the first of them saw."""
    proxies = settings.CLIENT_IP_PROXY_COUNT
    entries = [e.strip() for e in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    # Each proxy appends the address it saw: entries left of the trusted ones are the client's
    # own word, and anything that is not an address is ignored (it is stored as an IP).
    if proxies and len(entries) >= proxies and is_address(entries[-proxies]):
        return entries[-proxies]
    return request.META.get("REMOTE_ADDR")


def is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True
