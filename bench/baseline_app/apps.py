from __future__ import annotations

from django.apps import AppConfig


class BaselineAppConfig(AppConfig):
    name = "bench.baseline_app"
    label = "baseline_app"
    default_auto_field = "django.db.models.BigAutoField"
