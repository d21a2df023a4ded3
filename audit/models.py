"""The audit log: who did what to a survey's data or settings, and when (docs/accounts.md#audit).

Append-only: :meth:`Entry.save` refuses to change a stored row and :meth:`Entry.delete` refuses
to remove one; migration 0002 adds a trigger on PostgreSQL and SQLite that refuses ``UPDATE``
and ``DELETE`` on the table, so bulk queries and manual SQL are refused too.

No foreign key: the survey and the actor are stored as values (id and slug, id and username),
so an entry outlives the survey it is about (deleting one is itself an entry) and the user who
made it. There is no field for a respondent, an answer, a time of answering or an invitation's
use: the log is about researchers' acts only (tests/audit/test_no_respondent_data.py).
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.utils import timezone


class AppendOnly(Exception):
    """An attempt to change or remove an audit entry."""


class Entry(models.Model):
    at = models.DateTimeField(default=timezone.now, db_index=True)
    # The signed-in researcher (id and username at the time); empty for the system (a
    # management command, a scheduled task).
    actor_pk = models.BigIntegerField(null=True, blank=True)
    actor = models.CharField(max_length=150, blank=True)
    action = models.CharField(max_length=64)
    survey_pk = models.BigIntegerField(null=True, blank=True)
    survey_slug = models.CharField(max_length=32, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    class Meta:
        db_table = "audit_entry"
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["survey_pk", "-at"], name="audit_survey_at")]
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor or 'system'} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise AppendOnly("An audit entry is never changed.")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise AppendOnly("An audit entry is never deleted.")
