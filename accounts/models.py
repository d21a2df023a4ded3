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
    # What the login that issued it passed as a second factor: the django-otp device's persistent
    # id ("otp_totp.totpdevice/3"), "sso" (the provider's multi-factor authentication, trusted by
    # DENIABLE_OIDC_TRUST_MFA), or "" (none; every token issued before migration 0004). A token
    # acts only while this meets what the account needs now (accounts.two_factor.token_refusal).
    second_factor = models.CharField(max_length=100, blank=True, default="")

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


class ResearcherSession(models.Model):
    """One signed-in browser session of a researcher, for the sessions page and for signing
    out everywhere (docs/accounts.md#sessions). The session's own data holds a random marker;
    this row holds only its SHA-256 digest, so a database copy cannot be turned into a session.
    Deleting the row ends the session at its next request (accounts.sessions)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="researcher_sessions"
    )
    digest = models.CharField(max_length=64, unique=True)
    # A coarse summary ("Firefox on Linux"), never the whole user agent nor an address.
    device = models.CharField(max_length=100)
    via = models.CharField(max_length=20, default="password")
    created = models.DateTimeField(default=timezone.now)
    last_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-last_seen", "-id"]

    def __str__(self) -> str:
        return f"{self.device} ({self.user_id})"


class KnownDevice(models.Model):
    """A browser a researcher has signed in from: the digest of its device cookie. A sign-in
    from a browser without a known cookie is emailed to the researcher."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="known_devices"
    )
    digest = models.CharField(max_length=64)
    device = models.CharField(max_length=100)
    first_seen = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "digest"], name="known_device_once_per_user")
        ]

    def __str__(self) -> str:
        return f"{self.device} ({self.user_id})"


class OidcIdentity(models.Model):
    """A researcher's account at the single sign-on provider: (issuer, subject) is how a later
    sign-in finds the account, whatever the email says then (docs/accounts.md#sso)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="oidc_identities"
    )
    issuer = models.CharField(max_length=255)
    subject = models.CharField(max_length=255)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issuer", "subject"], name="oidc_identity_once")
        ]

    def __str__(self) -> str:
        return f"{self.subject} at {self.issuer}"
