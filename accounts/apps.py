from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Researcher accounts: sign-up by invitation, password reset and change, API tokens
    (docs/accounts.md)."""

    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # The OpenAPI extension registers itself on import; the checks on decoration; the
        # session tracking's signal receivers too.
        from accounts import checks, schema, sessions  # noqa: F401
