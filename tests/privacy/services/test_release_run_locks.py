"""What a release's computation holds up, on real PostgreSQL (privacy/services/run.py).

Its ``select_for_update`` with ``select_related("survey")`` locked the survey row ``FOR UPDATE``
too, and every submission of the survey (its foreign-key check takes ``FOR KEY SHARE`` on that
row) waited for the whole computation: ~1.4 s at 10⁶ respondents, and in the fault test a
retried release's computation stopped every submission for 3 s (a flaky
``test_postgres_restarted_under_load``). Now submissions commit meanwhile; a batch waits for the
release, so its counts and exact sums come from the same batches.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.test import override_settings

from privacy.models import Release
from privacy.services import budget, run
from testsupport import factories
from testsupport.factories import make_release_survey, make_user, release_answer, submit

pytestmark = pytest.mark.django_db(transaction=True)


class _Computing(threading.Thread):
    """``release_run`` in its own connection, paused inside its computation until ``go``."""

    def __init__(self, release_id: object) -> None:
        super().__init__(daemon=True)
        self.release_id, self.inside, self.go = release_id, threading.Event(), threading.Event()
        self.status: str | None = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.status = run.release_run(release_id=self.release_id)
        except BaseException as exc:  # shown by the test's assertion
            self.error = exc
            raise
        finally:
            connection.close()


@override_settings(DENIABLE_ESTIMATE_BATCH=10)  # the post below publishes no batch itself
def test_submissions_commit_while_a_release_is_computed(require_postgres, monkeypatch):
    owner = make_user("owner")
    survey = make_release_survey(owner, respondents=20)
    # Charged and left pending: its task is not enqueued (it would run at once, in-process).
    monkeypatch.setattr(budget, "release_enqueue", lambda **kwargs: True)
    release = factories.make_release(survey, owner, {"mechanism": "laplace", "epsilon": 0.5},
                                     run=False)  # fmt: skip
    assert release.status == "pending"
    computing = _Computing(release.pk)
    real = run.release_results

    def paused(**kwargs: object) -> object:
        computing.inside.set()
        assert computing.go.wait(30)
        return real(**kwargs)

    monkeypatch.setattr(run, "release_results", paused)
    computing.start()
    try:
        assert computing.inside.wait(20), computing.error
        with connection.cursor() as cursor:
            # Waiting for the release would fail this submission instead of hanging the test.
            cursor.execute("SET lock_timeout = '3s'")
        started = time.monotonic()
        outcome = submit(survey, release_answer(0))
        assert outcome is not None
        assert time.monotonic() - started < 3
    finally:
        computing.go.set()
        computing.join(30)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert computing.status == "done"
    assert Release.objects.get(pk=release.pk).status == "done"
