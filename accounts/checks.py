"""``check --deploy``: a production server with no email backend cannot reset passwords."""

from __future__ import annotations

from typing import Any

from django.core.checks import Warning, register

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
