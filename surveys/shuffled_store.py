"""The stored shuffled file of a closed survey (issue 27; docs/exports.md#the-shuffled-file).

Write-once: a second, differently shuffled file of the same reports could be differenced with the
first, so a stored row is never saved again (also a database trigger, migration 0012) and is
deleted only with its survey — by instance or queryset, the admin included. Registered with the
surveys app through :mod:`surveys.models`, which re-exports it.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.signals import pre_delete
from django.utils import timezone


class ShuffledExportImmutable(Exception):
    """Raised when code tries to change or delete a stored shuffled file (other than with its
    survey): a new one would be a second shuffle of the same reports."""


class ShuffledExport(models.Model):
    """A closed survey's shuffled file: produced once, from the published reports, then served
    byte-identical, so no two downloads can be differenced. Both encodings come from the same
    shuffle; ``guarantee`` is the one the JSON states."""

    survey = models.OneToOneField(
        "surveys.Survey", on_delete=models.CASCADE, related_name="shuffled_export"
    )
    csv_text = models.TextField()
    json_text = models.TextField()
    csv_sha256 = models.CharField(max_length=64)
    json_sha256 = models.CharField(max_length=64)
    guarantee = models.JSONField()
    produced_on = models.DateField(default=timezone.localdate)

    class Meta:
        app_label = "surveys"

    def __str__(self) -> str:
        return f"{self.survey_id}:shuffled"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Write-once (module notes)."""
        if not self._state.adding:
            raise ShuffledExportImmutable(f"shuffled file {self.pk} is stored; never changed")
        super().save(*args, **kwargs)


def _shuffled_export_pre_delete(
    sender: Any, instance: ShuffledExport, origin: Any = None, **kwargs: Any
) -> None:
    """Deleting the file alone is refused (the next download would make a second file); the
    cascade of its survey's deletion (the origin a survey or a queryset of surveys) is not."""
    model = getattr(origin, "model", type(origin))
    if getattr(getattr(model, "_meta", None), "label", None) != "surveys.Survey":
        raise ShuffledExportImmutable(f"shuffled file {instance.pk}: deleted with its survey only")


pre_delete.connect(
    _shuffled_export_pre_delete, sender=ShuffledExport, dispatch_uid="surveys_shuffled_kept"
)
