"""``check --deploy``: a production server with no email backend cannot reset passwords, and
one must require a second factor of staff (docs/accounts.md#two-factor), and single sign-on, when
on, must be configured whole (docs/accounts.md#sso)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Warning, register

from accounts.mail import email_configured


@register(deploy=True)
def email_backend_configured(app_configs: Any, **kwargs: Any) -> list[Warning]:
    if email_configured():
        return []
    return [
        Warning(
            "No email backend is configured: password reset and emailed invitations fail.",
            hint="Set EMAIL_URL (e.g. smtp+tls://user:password@host:587) or "
            "DJANGO_EMAIL_BACKEND, and DEFAULT_FROM_EMAIL (docs/deployment.md#email).",
            id="accounts.W001",
        )
    ]


@register(deploy=True)
def staff_second_factor_required(app_configs: Any, **kwargs: Any) -> list[Error]:
    if settings.DENIABLE_OTP_STAFF:
        return []
    return [
        Error(
            "Staff can log in without a second factor (DENIABLE_OTP_STAFF is off).",
            hint="Unset DENIABLE_OTP_STAFF (it defaults to on): an administrator's password alone "
            "must not open every survey's audit log and the sign-up invitations.",
            id="accounts.E001",
        )
    ]


@register(deploy=True)
def single_sign_on_configured(app_configs: Any, **kwargs: Any) -> list[Error]:
    """Single sign-on, when on, must name an https issuer, a client, and who may get in: with no
    allowed domain or group every sign-in would be refused, and a plain-http issuer's keys and
    tokens could be swapped on the way (docs/accounts.md#sso)."""
    issuer = settings.DENIABLE_OIDC_ISSUER
    if not issuer:
        return []
    errors = []
    if not issuer.startswith("https://"):
        errors.append(
            Error(
                f"The single sign-on issuer is not an https URL ({issuer}).",
                hint="Set DENIABLE_OIDC_ISSUER to the provider's https issuer URL.",
                id="accounts.E002",
            )
        )
    if not (settings.DENIABLE_OIDC_ALLOWED_DOMAINS or settings.DENIABLE_OIDC_ALLOWED_GROUPS):
        errors.append(
            Error(
                "Single sign-on is on but no email domain or group is allowed.",
                hint="Set DENIABLE_OIDC_ALLOWED_DOMAINS (e.g. uni.example) or "
                "DENIABLE_OIDC_ALLOWED_GROUPS.",
                id="accounts.E003",
            )
        )
    if not (settings.OIDC_RP_CLIENT_ID and settings.OIDC_RP_CLIENT_SECRET):
        errors.append(
            Error(
                "Single sign-on is on without a client id and secret.",
                hint="Set DENIABLE_OIDC_CLIENT_ID and DENIABLE_OIDC_CLIENT_SECRET.",
                id="accounts.E004",
            )
        )
    return errors
