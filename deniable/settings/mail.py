"""The email settings from the environment (docs/deployment.md#email), for base.py and prod.py.

``EMAIL_URL`` (django-environ: ``smtp+tls://user:pw@host:587``, ``consolemail://``,
``filemail:///path``) or ``DJANGO_EMAIL_BACKEND`` (a dotted path). Neither: the console in debug
mode (``make run`` prints the reset link in its terminal); otherwise a backend that refuses to
send, so production never prints reset links to a log nor drops them silently
(accounts/mail.py; ``check --deploy`` warns).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import environ

NOT_CONFIGURED = "accounts.mail.NotConfiguredBackend"
CONSOLE = "django.core.mail.backends.console.EmailBackend"


def email_settings(env: environ.Env, *, debug: bool, var_dir: Path) -> dict[str, Any]:
    if env.str("EMAIL_URL", default=""):
        return dict(env.email_url("EMAIL_URL"))
    backend = env.str("DJANGO_EMAIL_BACKEND", default="")
    if backend:
        return {
            "EMAIL_BACKEND": backend,
            "EMAIL_FILE_PATH": env.str("EMAIL_FILE_PATH", default=str(var_dir / "mail")),
        }
    return {"EMAIL_BACKEND": CONSOLE if debug else NOT_CONFIGURED}
