"""Celery tasks of the surveys app. Thin: the logic lives in
:mod:`surveys.analysis.regression_jobs`."""

from __future__ import annotations

from celery import shared_task

from surveys.analysis import regression_jobs as analysis_jobs


@shared_task(
    name="surveys.tasks.regression_compute",
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=240,
    time_limit=300,
    ignore_result=True,
)
def regression_compute(
    key: str, survey_id: int, outcome: str, predictors: list[str], confidence: float
) -> None:
    analysis_jobs.regression_run(key, survey_id, outcome, predictors, confidence)
