"""The survey's budget lock (docs/privacy-model.md#budget): charges and stored-figure writes
take it, so they are serialized per survey."""

from __future__ import annotations

from django.db import connection
from django.db.models import F

from surveys.models import Survey


def lock_survey(survey: Survey) -> Survey:
    """Take the survey's budget lock for the rest of the current transaction.

    PostgreSQL: ``SELECT … FOR UPDATE`` on the survey row. SQLite ignores FOR UPDATE, so a no-op
    UPDATE takes the database write lock up front (SQLite has one writer at a time), which
    serializes concurrent charges as well.
    """
    if connection.vendor == "sqlite":
        Survey.objects.filter(pk=survey.pk).update(budget_epsilon=F("budget_epsilon"))
        return Survey.objects.get(pk=survey.pk)
    return Survey.objects.select_for_update().get(pk=survey.pk)
