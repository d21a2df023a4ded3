from __future__ import annotations

from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Connects the login signal that stamps a session's start (absolute session lifetime),
        # also for logins outside a request cycle that loaded the middleware (tests, shell).
        from deniable import security  # noqa: F401

        # Register the Celery tasks in every process (web too): analysis_jobs enqueues the
        # regression task by its name, never by importing surveys.tasks (no import cycle).
        from surveys import tasks  # noqa: F401
