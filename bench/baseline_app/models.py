from __future__ import annotations

from django.db import models


class BaselineRow(models.Model):
    """One row per request, keyed like a submission (a client uuid4), to compare like with like."""

    id = models.UUIDField(primary_key=True)
    note = models.CharField(max_length=200)
    created_on = models.DateField(auto_now_add=True)
