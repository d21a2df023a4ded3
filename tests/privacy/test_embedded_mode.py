"""Embedded mode (eager tasks, no worker, no beat): a release always ends done or refunded.

Issue 11, item 4. The live-server version (real threads, SQLite file) is
tests/embedded/test_embedded_releases.py; these pin the two mechanisms one by one.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import OperationalError
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from privacy import services
from privacy.models import LedgerEntry, Release
from testsupport import factories
from testsupport.factories import api_client
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def open_survey(owner):
    return make_survey(owner, epsilon=5.0, respondents=10)


@pytest.fixture
def researcher_client(owner) -> APIClient:
    return api_client(owner)


def test_eager_task_that_keeps_failing_is_failed_and_refunded(
    open_survey, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def locked(*, release_id):
        calls.append(release_id)
        raise OperationalError("database is locked")

    # The task body fails as SQLite's lock upgrade used to; Celery's eager autoretry raises
    # ``Retry`` out of ``apply_async``, which release_enqueue swallowed: before the fix the
    # release stayed pending, charged, forever.
    monkeypatch.setattr(services, "release_run", locked)
    release, created = factories.release_request(
        survey=open_survey, user=None, data={"mechanism": "laplace", "epsilon": 0.5}
    )
    assert created
    release.refresh_from_db()
    assert calls
    assert release.status == Release.Status.FAILED
    assert "refunded" in release.error
    assert LedgerEntry.objects.get(release=release).refunded


def test_embedded_sweep_finishes_a_release_left_running(
    open_survey, researcher_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process that died mid-task (runserver restarted) leaves a release running; nothing in
    # embedded mode would ever pick it up again but this sweep. Simulated: the task never runs.
    import privacy.services.budget as budget

    monkeypatch.setattr(budget, "release_enqueue", lambda **kwargs: True)
    stuck, _ = factories.release_request(
        survey=open_survey, user=None, data={"mechanism": "laplace", "epsilon": 0.25}
    )
    monkeypatch.undo()
    Release.objects.filter(pk=stuck.pk).update(
        status=Release.Status.RUNNING, started_at=timezone.now() - timedelta(hours=1)
    )
    cache.delete("privacy:embedded-sweep")
    response = researcher_client.get(reverse("privacy-survey-releases", args=[open_survey.slug]))
    assert response.status_code == 200
    stuck.refresh_from_db()
    assert stuck.status == Release.Status.DONE
    assert response.json()[0]["status"] == "done"


def test_embedded_sweep_does_nothing_with_a_broker(monkeypatch: pytest.MonkeyPatch) -> None:
    from privacy import tasks

    monkeypatch.setitem(tasks.release_compute.app.conf, "task_always_eager", False)
    cache.delete("privacy:embedded-sweep")
    assert services.releases_sweep_embedded() == []
