"""``check --deploy``: a production server with no email backend cannot reset passwords, and
one must require a second factor of staff (docs/accounts.md#two-factor)."""

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
