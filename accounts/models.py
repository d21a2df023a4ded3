"""API tokens and sign-up invitations. Neither table holds a usable secret: each stores the
SHA-256 digest of a random key that is shown once (docs/accounts.md#what-is-stored)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    """One named API key of a researcher, with an expiry. Revoking deletes the row."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=100)
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    # A date, not a time: enough to spot an unused token, and it is written at most once a day.
    last_used = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return f"{self.name} ({self.user_id})"

    @property
    def is_expired(self) -> bool:
        return self.expires <= timezone.now()


class SignupInvitation(models.Model):
    """A one-time, expiring link an administrator sends to a future researcher."""

    email = models.EmailField()
    digest = models.CharField(max_length=64, unique=True)
    created = models.DateTimeField(default=timezone.now)
    expires = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    used = models.DateTimeField(null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-created", "-id"]

    def __str__(self) -> str:
        return self.email

    @property
    def is_expired(self) -> bool:
        return self.expires <= timezone.now()
