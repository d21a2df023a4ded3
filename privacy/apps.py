from __future__ import annotations

from django.apps import AppConfig


class PrivacyConfig(AppConfig):
    name = "privacy"
    verbose_name = "Privacy (budgets and releases)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Register the Celery tasks in every process (web too): the services enqueue the compute
        # task by its name (privacy.services.enqueue), never by importing privacy.tasks.
        from privacy import tasks  # noqa: F401

        # The survey lists show each survey's budget left; surveys cannot import this app.
        from privacy.selectors import surveys_epsilon_remaining
        from surveys.selectors.summaries import register_budget_remaining

        register_budget_remaining(surveys_epsilon_remaining)
