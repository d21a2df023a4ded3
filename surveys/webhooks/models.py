"""A survey's webhooks and their deliveries (one per published batch and hook).

Loaded by :mod:`surveys.models` (the surveys app's models), so they need no app of their own.
"""

from __future__ import annotations

from django.db import models


class Webhook(models.Model):
    """A URL the owner asked to be told of each published batch. The secret is kept as it is
    (not hashed): signing each body needs it (SECURITY.md, "Webhooks")."""

    survey = models.ForeignKey("surveys.Survey", on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(max_length=2000)
    secret = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "surveys"
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.survey_id}:{self.url}"


class WebhookDelivery(models.Model):
    """One batch announced to one hook: the exact body (a retry signs and sends the same bytes),
    and how the attempts went. ``respondents`` (the published count after the batch) names the
    batch, so a second enqueue of the same batch finds the same row."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    respondents = models.PositiveIntegerField()
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        app_label = "surveys"
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["webhook", "respondents"], name="webhook_delivery_one_per_batch"
            )
        ]

    def __str__(self) -> str:
        return f"{self.webhook_id}:{self.respondents}:{self.status}"
