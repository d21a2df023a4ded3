"""Webhook services: create and delete a hook (audited), queue a published batch's deliveries,
attempt one delivery (docs/api.md#webhooks).

Privacy: a delivery is created only by :func:`webhooks_batch_published`, which the batch
publication calls inside its own transaction (``surveys.services.batches``) — never a submission.
The body carries the batch's size and the published total, both already visible on the survey's
page, and nothing about a respondent or a time. A rolled-back publication rolls its deliveries
back too, and they are enqueued only on commit.
"""

from __future__ import annotations

import datetime
import json
import logging
import secrets
import threading
import time
from collections.abc import Sequence

from celery import current_app
from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from audit.recording import records
from surveys.models import Survey
from surveys.selectors.surveys import survey_respondent_count
from surveys.webhooks import delivery
from surveys.webhooks.addresses import resolve
from surveys.webhooks.models import Webhook, WebhookDelivery

logger = logging.getLogger("surveys.webhooks")

#: The delivery task's registered name (``surveys.tasks``); looked up by name, not imported: the
#: tasks module imports this one.
DELIVER_TASK = "surveys.tasks.webhook_deliver"
#: Hooks per survey (each batch costs one POST per hook).
MAX_HOOKS = 10


def max_attempts() -> int:
    return max(1, int(getattr(settings, "DENIABLE_WEBHOOK_MAX_ATTEMPTS", 6)))


def backoff(retries: int) -> float:
    """Seconds before attempt ``retries + 2``: base·2^retries, at most 10 minutes."""
    base = float(getattr(settings, "DENIABLE_WEBHOOK_BACKOFF", 10.0))
    return float(min(base * 2**retries, 600.0))


def _hook_detail(kwargs: object, result: Webhook) -> dict[str, object]:
    return {"id": result.pk, "url": result.url}


@records("webhook.create", detail=lambda kwargs, result: _hook_detail(kwargs, result))
@transaction.atomic
def webhook_create(*, survey: Survey, url: str) -> Webhook:
    """A new hook with a new secret (32 random bytes, hex); raises :class:`RefusedURL` when the
    URL may not be called (the view names the field ``url``)."""
    resolve(url)  # checked now, and again at every send (DNS rebinding)
    return Webhook.objects.create(survey=survey, url=url, secret=secrets.token_hex(32))


@records("webhook.delete", detail=lambda kwargs, result: _hook_detail(kwargs, result))
@transaction.atomic
def webhook_delete(*, survey: Survey, webhook: Webhook) -> Webhook:
    """Delete the hook and its delivery history (pending deliveries are dropped with it)."""
    Webhook.objects.filter(pk=webhook.pk, survey=survey).delete()
    return webhook


def _hook_ids(survey_id: int) -> list[int]:
    """The survey's hooks, in plain SQL: every batch's sealing asks, and nearly always for none.
    The ORM's query building cost 0.50 ms of CPU per call against 0.09 ms for this statement
    (PostgreSQL, measured 3,000 calls each), more than the batch's tally update."""
    qn = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {qn('id')} FROM {qn(Webhook._meta.db_table)} "  # noqa: S608
            f"WHERE {qn('survey_id')} = %s ORDER BY {qn('id')}",
            [survey_id],
        )
        return [int(row[0]) for row in cursor.fetchall()]


def webhooks_batch_published(*, survey: Survey, published: int) -> None:
    """Inside the publication's transaction, after the tallies: one delivery per hook of the
    survey, enqueued once the publication commits. One cheap query when the survey has none."""
    hooks = _hook_ids(survey.pk)
    if not hooks:
        return
    respondents = survey_respondent_count(survey=survey)  # this batch included
    body = json.dumps(
        {
            "event": "batch.published",
            "survey": survey.slug,
            "published": published,
            "respondents": respondents,
        },
        separators=(",", ":"),
    )
    WebhookDelivery.objects.bulk_create(
        [WebhookDelivery(webhook_id=pk, respondents=respondents, body=body) for pk in hooks],
        ignore_conflicts=True,  # one row per batch and hook, whatever calls this twice
    )
    # ignore_conflicts leaves the objects without ids: read them back.
    ids = list(
        WebhookDelivery.objects.filter(
            webhook_id__in=hooks, respondents=respondents, status="pending", attempts=0
        ).values_list("pk", flat=True)
    )
    transaction.on_commit(lambda: deliveries_enqueue(delivery_ids=ids))


def deliveries_enqueue(*, delivery_ids: Sequence[int]) -> None:
    """Hand the deliveries to the worker; never raises (a publication must not depend on the
    broker: a delivery left pending is sent again by the sweeper). Embedded mode (tasks run
    in-process): in a thread of its own, so the respondent whose answer completed the batch
    never waits for a receiver."""
    task = current_app.tasks[DELIVER_TASK]
    if task.app.conf.task_always_eager:
        thread = threading.Thread(
            target=_deliver_embedded, args=(list(delivery_ids),), daemon=True, name="webhooks"
        )
        thread.start()
        return
    for delivery_id in delivery_ids:
        try:
            task.apply_async(args=(delivery_id,), retry=False)
        except Exception:  # noqa: BLE001 - any broker failure: the sweeper sends it later
            logger.warning("webhook delivery %s: enqueue failed; left pending", delivery_id)


def _deliver_embedded(delivery_ids: list[int]) -> None:
    """Embedded mode's worker: the task's attempts and backoff, in this thread (Celery's eager
    retries would neither wait nor stop at the first failure)."""
    try:
        for delivery_id in delivery_ids:
            retries = 0
            while delivery_attempt(delivery_id=delivery_id) == "retry":
                time.sleep(backoff(retries))
                retries += 1
    except Exception:  # a thread has nobody to raise to; the sweeper tries again
        logger.exception("webhook deliveries %s failed in-process", delivery_ids)
    finally:
        connection.close()


def delivery_attempt(*, delivery_id: int) -> str:
    """One attempt, under the delivery's row lock (two workers never send it twice). Returns
    ``"delivered"``, ``"failed"`` (given up, or the URL refused), ``"retry"`` or ``"skipped"``
    (already finished, or its hook deleted)."""
    with transaction.atomic():
        row = (
            WebhookDelivery.objects.select_for_update()
            .select_related("webhook")
            .filter(pk=delivery_id)
            .first()
        )
        if row is None or row.status != WebhookDelivery.Status.PENDING:
            return "skipped"
        answer = delivery.send(row.webhook.url, row.webhook.secret, row.body.encode())
        row.attempts += 1
        row.response_status = answer.status
        row.error = answer.error
        refused = answer.error.startswith("refused:")
        if answer.delivered:
            row.status = WebhookDelivery.Status.DELIVERED
        elif refused or row.attempts >= max_attempts():
            row.status = WebhookDelivery.Status.FAILED
        if row.status != WebhookDelivery.Status.PENDING:
            row.finished_at = timezone.now()
        row.save()
        return "retry" if row.status == WebhookDelivery.Status.PENDING else str(row.status)


def deliveries_sweep(*, older_than: float = 900.0) -> list[int]:
    """Re-enqueue deliveries left pending (a broker down at publication, a process gone)."""
    cutoff = timezone.now() - datetime.timedelta(seconds=older_than)
    ids = list(
        WebhookDelivery.objects.filter(status="pending", created_at__lt=cutoff).values_list(
            "pk", flat=True
        )[:500]
    )
    if ids:
        deliveries_enqueue(delivery_ids=ids)
    return ids
