"""Closing surveys whose closing time (``closes_at``) has passed.

From ``closes_at`` on, the submission's conditional INSERT refuses every answer
(:mod:`surveys.services.submission_storage`), but that alone left the survey *open* in the
database, and closing is what finishes a survey's data:

* the unpublished tail is re-written in key order, or published when k or more wait
  (:func:`surveys.services.batches.submissions_shuffle_tail`). Left open, a PostgreSQL copy kept
  the tail's rows each with its own transaction id, in arrival order, for good; and a batch that
  came due as the last submissions committed together, unseen by each of them, was never
  published;
* the shuffled file is made (:mod:`surveys.services.shuffled_exports`), which exists for closed
  surveys only.

So :func:`surveys_close_due` closes them: every minute under Celery beat
(``surveys.tasks.surveys_close_due``, ``DENIABLE_CLOSE_SWEEP_SECONDS``), and in embedded mode
(no beat) from the researcher's pages at most once a minute (:func:`surveys_sweep_embedded`).
Each survey is closed by :func:`surveys.services.surveys.survey_close` and recorded in its audit
log with no actor: the system's act, also when a researcher's page triggered the sweep (that
viewer may not even be on the survey's team). Each is closed in one transaction with its
re-check under the row lock, so a closing time moved later meanwhile, or a researcher who closed
it first, is respected.
"""

from __future__ import annotations

import logging
from datetime import datetime

from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction
from django.utils import timezone

from audit.context import as_system
from deniable.embedded import embedded_sweep_due
from surveys.models import Survey
from surveys.services.batches import submissions_publish_stranded
from surveys.services.surveys import survey_close

logger = logging.getLogger(__name__)


def _due(now: datetime) -> list[int]:
    return list(
        Survey.objects.filter(
            status=Survey.Status.OPEN, closes_at__isnull=False, closes_at__lte=now
        )
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def survey_close_if_due(*, survey_id: int, now: datetime) -> bool:
    """Close the survey if it is still open and its closing time is ``now`` or earlier, checked
    under its row lock; True if this call closed it."""
    with as_system(), transaction.atomic():
        survey = Survey.objects.select_for_update().filter(pk=survey_id).first()
        if survey is None or survey.status != Survey.Status.OPEN:
            return False
        if survey.closes_at is None or survey.closes_at > now:
            return False
        survey_close(survey=survey)
    return True


def surveys_close_due(*, now: datetime | None = None) -> list[int]:
    """Close every open survey whose closing time has passed; returns the ids closed. Each in its
    own transaction: one that fails (logged) leaves the others closed, and the next sweep tries
    it again."""
    now = now or timezone.now()
    closed = []
    for survey_id in _due(now):
        try:
            if survey_close_if_due(survey_id=survey_id, now=now):
                closed.append(survey_id)
        except SoftTimeLimitExceeded:
            raise  # the task's time is up: stop here (the next sweep goes on), not survey by survey
        except Exception:
            logger.exception("closing survey %s at its closing time failed", survey_id)
    if closed:
        logger.info("closed %d survey(s) at their closing time", len(closed))
    return closed


def surveys_sweep_embedded() -> list[int]:
    """Embedded mode (tasks run in-process, no beat): what beat schedules for surveys —
    :func:`surveys_close_due`, and :func:`surveys.services.batches.submissions_publish_stranded`
    — at most once a minute, from the researcher's pages (:mod:`deniable.embedded`). With a
    broker it does nothing: beat schedules them. Returns the ids of the surveys closed."""
    if not embedded_sweep_due("surveys:embedded-sweep"):
        return []
    closed = surveys_close_due()
    submissions_publish_stranded()
    return closed
