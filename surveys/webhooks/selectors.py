"""Reading a survey's webhooks and their latest deliveries (the API's list, the survey's page)."""

from __future__ import annotations

from surveys.models import Survey
from surveys.webhooks.models import Webhook, WebhookDelivery

#: Deliveries shown per hook, newest first.
HISTORY = 20


def webhooks_with_history(*, survey: Survey) -> list[Webhook]:
    """The survey's hooks, oldest first, each with ``latest``: its newest deliveries (two
    queries whatever the number of hooks)."""
    hooks = list(Webhook.objects.filter(survey=survey).order_by("id"))
    for hook in hooks:
        hook.latest = []  # type: ignore[attr-defined]
    by_id = {hook.pk: hook for hook in hooks}
    rows = WebhookDelivery.objects.filter(webhook__in=hooks).order_by("webhook_id", "-id")
    for row in rows.only(
        "id",
        "webhook_id",
        "respondents",
        "status",
        "attempts",
        "response_status",
        "error",
        "created_at",
        "finished_at",
    ):
        latest = by_id[row.webhook_id].latest  # type: ignore[attr-defined]
        if len(latest) < HISTORY:
            latest.append(row)
    return hooks
