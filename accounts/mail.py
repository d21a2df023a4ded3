"""The email backend when none is configured outside debug mode (docs/deployment.md#email).

Production never falls back to printing mail (a password-reset link in a server log is a way into
an account) nor to silently dropping it: sending fails with :class:`EmailNotConfigured`, the
account pages say so, and ``check --deploy`` warns (``accounts.W001``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.base import BaseEmailBackend


class EmailNotConfigured(RuntimeError):
    pass


class NotConfiguredBackend(BaseEmailBackend):
    def send_messages(self, email_messages: Sequence[Any]) -> int:
        raise EmailNotConfigured(
            "No email backend is configured: set EMAIL_URL or DJANGO_EMAIL_BACKEND."
        )


def email_configured() -> bool:
    from django.conf import settings

    return settings.EMAIL_BACKEND != "accounts.mail.NotConfiguredBackend"
