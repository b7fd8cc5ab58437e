"""API tokens: only a SHA-256 digest of each secret is stored, with a short prefix to show."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone

TOKEN_SCHEME = "sb_"
PREFIX_LENGTH = len(TOKEN_SCHEME) + 8
# Writing last_used_at on every request would make each API call a database write too.
LAST_USED_RESOLUTION = timedelta(minutes=1)


def digest_of(secret: str) -> str:
    """Return the hex SHA-256 digest a token's secret is stored and looked up by."""
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    """A bearer token for one staff user; revoking it keeps the row for the record."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100, blank=True, help_text="What the token is for.")
    prefix = models.CharField(max_length=PREFIX_LENGTH, editable=False)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "API token"
        ordering = ("-created_at",)

    def __str__(self) -> str:
        return f"{self.prefix}… ({self.user})"

    @staticmethod
    def owners_for(maker) -> models.QuerySet:
        """Return who `maker` may create tokens for: themselves, or any staff if a superuser."""
        # A token acts with its owner's permissions, so minting one for someone else lets the
        # maker act as them. "Holds every permission of the owner" was not chosen: it holds only
        # at the moment of minting, while the token follows the owner's later grants.
        owners = get_user_model().objects.filter(is_staff=True, is_active=True)
        return owners if maker.is_superuser else owners.filter(pk=maker.pk)

    @classmethod
    def issue(cls, user, name: str = "") -> tuple[ApiToken, str]:
        """Create a token for a user; return it and its secret, which is never stored."""
        token = cls(user=user, name=name)
        secret = token.set_secret()
        token.save()
        return token, secret

    def set_secret(self) -> str:
        """Give the token a new random secret; return it (only its digest is kept)."""
        secret = TOKEN_SCHEME + secrets.token_urlsafe(32)
        self.prefix = secret[:PREFIX_LENGTH]
        self.digest = digest_of(secret)
        return secret

    @classmethod
    def user_for(cls, secret: str):
        """Return the active staff user a live token belongs to, or None."""
        if not secret.startswith(TOKEN_SCHEME) or len(secret) > 200:
            return None
        token = (
            cls.objects.select_related("user")
            .filter(digest=digest_of(secret), revoked_at__isnull=True)
            .first()
        )
        if token is None or not (token.user.is_active and token.user.is_staff):
            return None
        now = timezone.now()
        if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
            cls.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user

    @property
    def is_revoked(self) -> bool:
        return self.revoked_at is not None

    def revoke(self) -> None:
        """Stop the token from authenticating from now on."""
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])
