"""Celery tasks of the surveys app. Thin: the logic lives in
:mod:`surveys.analysis.regression_jobs`, :mod:`surveys.services.shuffled_exports`,
:mod:`surveys.services.closing`, :mod:`surveys.services.batches` and
:mod:`surveys.webhooks.services`."""

from __future__ import annotations

from celery import Task, shared_task

from surveys.analysis import regression_jobs as analysis_jobs
from surveys.services import batches, closing, shuffled_exports
from surveys.webhooks import services as webhooks


@shared_task(
    name="surveys.tasks.regression_compute",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=240,
    time_limit=300,
    ignore_result=True,
)
def regression_compute(
    key: str,
    survey_id: int,
    outcome: str,
    predictors: list[str],
    confidence: float,
    family: str = "logistic",
) -> None:
    analysis_jobs.regression_run(key, survey_id, outcome, predictors, confidence, family)


@shared_task(
    name="surveys.tasks.webhook_deliver",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    max_retries=None,  # bounded by DENIABLE_WEBHOOK_MAX_ATTEMPTS, counted on the delivery row
    soft_time_limit=30,
    time_limit=40,
    ignore_result=True,
)
def webhook_deliver(self: Task, delivery_id: int) -> str:
    """One attempt at a delivery (idempotent: a finished one is skipped); retried with
    exponential backoff while the receiver fails."""
    outcome = webhooks.delivery_attempt(delivery_id=delivery_id)
    if outcome == "retry":
        raise self.retry(countdown=webhooks.backoff(self.request.retries))
    return outcome


@shared_task(
    name="surveys.tasks.webhook_deliveries_sweep",
    ignore_result=True,
    soft_time_limit=50,
    time_limit=60,
)
def webhook_deliveries_sweep() -> list[int]:
    """Periodic: re-enqueue deliveries left pending (a broker down at publication)."""
    return webhooks.deliveries_sweep()


@shared_task(
    name="surveys.tasks.shuffled_export_produce",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=600,
    time_limit=660,
    ignore_result=True,
)
def shuffled_export_produce(survey_id: int) -> bool:
    """Make a closed survey's shuffled file (idempotent: one that has it is skipped)."""
    return shuffled_exports.shuffled_export_produce(survey_id=survey_id)


@shared_task(
    name="surveys.tasks.surveys_close_due",
    ignore_result=True,
    soft_time_limit=50,
    time_limit=60,
)
def surveys_close_due() -> list[int]:
    """Periodic (beat): close the open surveys whose closing time has passed (their tail
    shuffled or published, their shuffled file made)."""
    return closing.surveys_close_due()


@shared_task(
    name="surveys.tasks.submissions_publish_stranded",
    ignore_result=True,
    soft_time_limit=50,
    time_limit=60,
)
def submissions_publish_stranded() -> int:
    """Periodic (beat): publish the batches that came due with no submitter seeing it
    (:func:`surveys.services.batches.submissions_publish_stranded`). Returns how many surveys
    had one, not which: Celery's worker logs a task's result with its time."""
    return len(batches.submissions_publish_stranded())
