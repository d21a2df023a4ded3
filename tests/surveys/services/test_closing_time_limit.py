"""The beat task ``surveys.tasks.surveys_close_due`` has ``soft_time_limit=50`` so that it stops
cleanly before the hard limit (60 s) kills the worker process mid-transaction. Celery's
``SoftTimeLimitExceeded`` is an ``Exception``; the sweep's per-survey ``except Exception`` used to
log it as one survey's failure and go on (found by an adversarial review, stop 44). It must stop
the sweep."""

from __future__ import annotations

from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from django.utils import timezone

from surveys.models import Survey
from surveys.services import closing
from testsupport.factories import make_survey, make_user


@pytest.mark.django_db
def test_the_soft_time_limit_stops_the_closing_sweep(monkeypatch):
    owner = make_user("owner")
    surveys = [make_survey(owner) for _ in range(3)]
    Survey.objects.filter(pk__in=[s.pk for s in surveys]).update(
        closes_at=timezone.now() - timedelta(seconds=5)
    )
    calls: list[int] = []

    def slow(*, survey_id: int, now: object) -> bool:
        calls.append(survey_id)
        raise SoftTimeLimitExceeded()  # the worker's signal, raised wherever the task is

    monkeypatch.setattr(closing, "survey_close_if_due", slow)
    with pytest.raises(SoftTimeLimitExceeded):
        closing.surveys_close_due()
    assert len(calls) == 1, f"the sweep went on past its soft time limit: {len(calls)} surveys"
