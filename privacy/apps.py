from __future__ import annotations

from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = "Privacy (budgets and releases)"
    default_auto_field = "django.db.models.BigAutoField"
