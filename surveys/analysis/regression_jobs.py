"""Regression beyond the synchronous limit (issue 14): a background task with progress.

Up to ``DENIABLE_REGRESSION_SYNC_LIMIT`` published respondents (default 10⁶, fitted in ≈ 2 s:
bench/RESULTS.md §8) ``GET …/regression/`` answers at once. Above it the first request enqueues
``surveys.tasks.regression_compute`` and answers **202** ``{"status": "pending"|"running",
"progress": 0…1, "stage", "url"}``; asking the same URL again polls, and once the task is done
answers 200 with the usual body. Jobs live in the cache under a key of the survey, the request
and the respondent count (new reports → a new fit), for an hour.
"""

from __future__ import annotations

import hashlib
from typing import Any

from celery import current_app
from django.conf import settings
from django.core.cache import cache

from deniable.errors import ErrorCode
from surveys.analysis import regression as analysis
from surveys.definitions.specs import RegressionQuery
from surveys.models import Survey
from surveys.selectors import survey_respondent_count

JOB_TTL = 3600
#: Registered by SurveysConfig.ready; looked up by name (surveys.tasks imports this module).
REGRESSION_TASK = "surveys.tasks.regression_compute"


def sync_limit() -> int:
    return int(settings.DENIABLE_REGRESSION_SYNC_LIMIT)


def job_key(
    survey: Survey,
    outcome: str,
    predictors: list[str],
    confidence: float,
    n: int,
    family: str = "logistic",
) -> str:
    raw = f"{survey.pk}|{outcome}|{','.join(predictors)}|{confidence!r}|{n}"
    if family != "logistic":  # the logistic fits' keys as before (jobs under way keep theirs)
        raw += f"|{family}"
    return "deniable:regression:" + hashlib.sha256(raw.encode()).hexdigest()


def job_update(key: str, **state: Any) -> None:
    cache.set(key, state, JOB_TTL)


def regression_run(
    key: str,
    survey_id: int,
    outcome: str,
    predictors: list[str],
    conf: float,
    family: str = "logistic",
) -> None:
    """The task's body: fit, recording the stage (the aggregate query is most of the time)."""
    job_update(key, status="running", progress=0.1, stage="reading the reports")
    try:
        survey = Survey.objects.get(pk=survey_id)
        body = analysis.survey_regression(
            survey=survey, outcome=outcome, predictors=predictors, confidence=conf, family=family
        )
    except Exception as exc:  # noqa: BLE001 — recorded for the poller (eager mode: no 500)
        job_update(key, status="failed", progress=1.0, stage="failed", detail=str(exc)[:500])
        return
    job_update(key, status="done", progress=1.0, stage="done", body=body)


def regression_or_job(
    *, survey: Survey, query: RegressionQuery, url: str
) -> tuple[int, dict[str, Any]]:
    """``(200, body)`` now, or ``(202, job state)`` for a survey above the synchronous limit."""
    n = survey_respondent_count(survey=survey)
    outcome, keys, conf = query.outcome, list(query.predictors), query.confidence
    family = query.family
    if n <= sync_limit():
        return 200, analysis.survey_regression(
            survey=survey, outcome=outcome, predictors=keys, confidence=conf, family=family
        )
    analysis.validate_keys(survey, outcome, keys, family)  # 400s now, not from the task
    key = job_key(survey, outcome, keys, conf, n, family)
    state = cache.get(key)
    if state is None:
        job_update(key, status="pending", progress=0.0, stage="queued")
        task = current_app.tasks[REGRESSION_TASK]
        if family == "logistic":  # the arguments a worker of the previous release also takes
            task.delay(key, survey.pk, outcome, keys, conf)
        else:
            task.delay(key, survey.pk, outcome, keys, conf, family)
        state = cache.get(key) or {"status": "pending", "progress": 0.0, "stage": "queued"}
    if state.get("status") == "done":
        return 200, state["body"]
    if state.get("status") == "failed":
        cache.delete(key)  # the next request tries again
        return 503, {"error": ErrorCode.REGRESSION_FAILED, "detail": state.get("detail", "")}
    return 202, {**{k: v for k, v in state.items() if k != "body"}, "url": url}
