"""The sweepers under a real ``celery beat`` and worker: releases (issue 21, item 10), surveys
past their closing time (surveys/services/closing.py) and stranded batches
(surveys/services/batches.py).

Redis is down (SIGSTOP) when the release is requested, so the enqueue fails and the release
stays pending; after Redis returns, beat's sweeper must re-enqueue it and the worker compute it —
with nobody calling the sweeper by hand. The sweeper used to never run under beat (its task's
limits made Celery refuse every send, and the heartbeat stayed healthy). Fast: beat sweeps every
second and a release is stale after one.
"""

from __future__ import annotations

import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from privacy.models import LedgerEntry, Release
from surveys.models import Survey
from surveys.selectors.surveys import survey_respondent_count, unsealed_count
from testsupport import factories
from testsupport.factories import api_client, make_user, submit
from testsupport.factories import make_release_survey as make_survey
from testsupport.processes import wait_until
from testsupport.races import make_stranded_batch

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

# The `beat` fixture (tests/integration/conftest.py) sweeps every second; stale after one.
FAST = {"DENIABLE_RELEASE_SWEEP_SECONDS": "1", "DENIABLE_RELEASE_PENDING_STALE_SECONDS": "1"}


def test_a_release_requested_while_redis_is_down_completes_after_it_returns(
    workers, private_redis, beat
):
    process, log, healthy = beat
    owner = make_user("owner")
    survey = make_survey(owner, respondents=5)
    worker = workers.start(**FAST)
    # Beat sends the sweeper (no failure recorded), so its health check passes.
    assert wait_until(lambda: "releases_sweep" in worker.output() and healthy(), 30), (
        Path(log).read_text() + worker.output()
    )
    private_redis.pause()  # SIGSTOP: the enqueue at request time fails
    try:
        response = api_client(owner).post(
            f"/api/v1/surveys/{survey.slug}/releases/",
            {"mechanism": "laplace", "epsilon": 0.5},
            format="json",
        )
        assert response.status_code == 202
        release_id = response.json()["id"]
        time.sleep(2.0)
        assert Release.objects.get(pk=release_id).status == "pending"
    finally:
        private_redis.resume()
    assert wait_until(
        lambda: Release.objects.get(pk=release_id).status == "done", 60, interval=0.5
    ), Path(log).read_text()[-3000:] + worker.output()[-3000:]
    assert LedgerEntry.objects.filter(release_id=release_id, refunded=False).count() == 1
    # Beat sends again once Redis is back, so its health check passes again.
    assert wait_until(healthy, 30), Path(log).read_text()[-3000:]
    assert process.poll() is None


def test_a_survey_past_its_closing_time_is_closed_by_beat_and_its_tail_shuffled(workers, beat):
    """Beat sends ``surveys.tasks.surveys_close_due`` every second (the fixture); the worker
    closes the survey, re-writing its unpublished tail in one transaction in key order."""
    process, log, _ = beat
    owner = make_user("owner")
    survey = factories.make_survey(owner)  # every kind; submit() answers them all
    with override_settings(DENIABLE_ESTIMATE_BATCH=10):  # the worker's k (settings.base)
        for sid in sorted((str(uuid.uuid4()) for _ in range(3)), reverse=True):
            submit(survey, submission_id=sid)  # each its own transaction: its own xid
    Survey.objects.filter(pk=survey.pk).update(closes_at=timezone.now() - timedelta(seconds=1))
    worker = workers.start()
    assert wait_until(lambda: Survey.objects.get(pk=survey.pk).status == "closed", 60, 0.5), (
        Path(log).read_text()[-3000:] + worker.output()[-3000:]
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, xmin::text FROM surveys_submission WHERE survey_id = %s ORDER BY ctid",
            [survey.pk],
        )
        rows = cursor.fetchall()
    assert len(rows) == 3 and len({xmin for _, xmin in rows}) == 1
    assert [sid for sid, _ in rows] == sorted(sid for sid, _ in rows)
    assert "surveys_close_due" in worker.output()
    assert process.poll() is None


def test_a_stranded_batch_is_published_by_beat(workers, beat):
    """k rows wait that no submitter saw come due (testsupport/races.py); with no submission
    after them, beat's ``surveys.tasks.submissions_publish_stranded`` publishes them."""
    process, log, _ = beat
    with override_settings(DENIABLE_ESTIMATE_BATCH=10):  # the worker's k (settings.base)
        survey = make_stranded_batch(10)
    assert unsealed_count(survey=survey) == 10 and survey_respondent_count(survey=survey) == 0
    worker = workers.start()
    assert wait_until(lambda: survey_respondent_count(survey=survey) == 10, 60, 0.5), (
        Path(log).read_text()[-3000:] + worker.output()[-3000:]
    )
    assert unsealed_count(survey=survey) == 0
    assert "submissions_publish_stranded" in worker.output()
    # Celery logs a task's result with its time: the count of surveys, never which ones.
    assert f"{{{survey.pk}: 10}}" not in worker.output()
    assert process.poll() is None
