"""What a batch's sealing holds up, on real PostgreSQL (``surveys.services.batches._lock``).

* An open-access survey's submissions commit while a batch is being sealed. With the survey row
  locked ``FOR UPDATE`` they waited (each one's foreign-key check takes ``FOR KEY SHARE`` on the
  survey row at its commit), so every submitter stalled once per batch.
* An invite-only survey's submissions still wait: a submission and its invitation's "used" mark
  commit together, and the sealer's two re-writes must see the same ones.
* A post that finds another sealer at work does not queue behind it: that sealer counts the
  tail again after its commit and seals what came due meanwhile.
* Submissions racing many publications are each sealed once: tallies = sealed rows; closing
  publishes a tail of k or more (a batch can come due with no one seeing it).
"""

from __future__ import annotations

import threading
import time
import uuid

import pytest
from django.db import connection, transaction
from django.test import override_settings
from rest_framework.test import APIClient

from surveys import selectors, services
from surveys.models import Submission
from surveys.services import batches
from testsupport import factories
from testsupport.factories import full_answers, survey_body

pytestmark = pytest.mark.django_db(transaction=True)


def _body(**extra: object) -> dict:
    return {"submission_id": str(uuid.uuid4()), "randomizer": "browser",
            "answers": full_answers(), **extra}  # fmt: skip


class _Sealer(threading.Thread):
    """Holds the survey's sealing lock, in its own connection, until ``release`` is set."""

    def __init__(self, survey: object) -> None:
        super().__init__(daemon=True)
        self.survey, self.locked, self.release = survey, threading.Event(), threading.Event()

    def run(self) -> None:
        try:
            with transaction.atomic():
                batches._lock(self.survey)  # type: ignore[arg-type]
                self.locked.set()
                self.release.wait(30)
        finally:
            connection.close()


def _open(django_user_model, **body: object):
    owner = django_user_model.objects.create_user(username="owner", password="pw-owner-123")
    survey = factories.survey_create(owner=owner, data=survey_body(**body))
    services.survey_open(survey=survey)
    return survey


@override_settings(DENIABLE_ESTIMATE_BATCH=10)  # this post does not publish a batch itself
def test_open_survey_submissions_commit_while_a_batch_is_sealed(
    require_postgres, django_user_model
):
    survey = _open(django_user_model)
    sealer = _Sealer(survey)
    sealer.start()
    try:
        assert sealer.locked.wait(10)
        with connection.cursor() as cursor:
            # Waiting for the sealer would fail this post instead of hanging the test.
            cursor.execute("SET lock_timeout = '3s'")
        started = time.monotonic()
        r = APIClient().post(f"/api/v1/surveys/{survey.slug}/responses/", _body(), format="json")
        assert r.status_code == 201, r.content
        assert time.monotonic() - started < 3
        assert Submission.objects.filter(survey=survey).count() == 1
    finally:
        sealer.release.set()
        sealer.join(30)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")


@override_settings(DENIABLE_ESTIMATE_BATCH=10)
def test_invite_only_submissions_wait_for_the_sealer(require_postgres, django_user_model):
    survey = _open(django_user_model, access="invite")
    (token,) = factories.invitations_create(survey=survey, count=1)
    sealer = _Sealer(survey)
    sealer.start()
    codes: list[int] = []

    def post() -> None:
        try:
            r = APIClient().post(
                f"/api/v1/surveys/{survey.slug}/responses/", _body(token=token), format="json"
            )
            codes.append(r.status_code)
        finally:
            connection.close()

    poster = threading.Thread(target=post, daemon=True)
    try:
        assert sealer.locked.wait(10)
        poster.start()
        poster.join(1.5)
        assert poster.is_alive() and codes == [], "an invite-only post committed mid-seal"
    finally:
        sealer.release.set()
        sealer.join(30)
        poster.join(30)
    assert codes == [201]


@override_settings(DENIABLE_ESTIMATE_BATCH=3)
def test_submissions_racing_publications_are_each_sealed_once(require_postgres, django_user_model):
    survey = _open(django_user_model)
    n, barrier, codes = 40, threading.Barrier(8), []
    lock = threading.Lock()

    def worker(count: int) -> None:
        try:
            client = APIClient()
            barrier.wait()
            for _ in range(count):
                r = client.post(f"/api/v1/surveys/{survey.slug}/responses/", _body(), format="json")
                with lock:
                    codes.append(r.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(n // 8,)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert codes == [201] * n
    # Closing publishes a batch that came due unseen (posts that committed together each
    # counted the tail without the others' rows) and leaves < k out of the estimates.
    services.survey_close(survey=survey)
    rows = Submission.objects.filter(survey=survey)
    sealed = rows.filter(sealed=True).count()
    assert rows.count() == n
    assert selectors.survey_respondent_count(survey=survey) == sealed
    assert n - sealed < 3


def _post(survey) -> int:
    r = APIClient().post(f"/api/v1/surveys/{survey.slug}/responses/", _body(), format="json")
    return r.status_code


def _pause_first_seal(monkeypatch, *, then_fail: bool) -> tuple[threading.Event, threading.Event]:
    """The first seal in the thread named "sealer" pauses after its re-write, before its commit,
    until ``go`` is set (and then raises, with ``then_fail``). Returns (paused, go)."""
    real, paused, go = batches._seal_locked, threading.Event(), threading.Event()

    def seal(survey_: object, **kw: bool) -> int:
        n = real(survey_, **kw)  # type: ignore[arg-type]
        if threading.current_thread().name == "sealer" and not paused.is_set():
            paused.set()
            go.wait(30)
            if then_fail:
                raise RuntimeError("the seal failed")
        return n

    monkeypatch.setattr(batches, "_seal_locked", seal)
    return paused, go


def _start_sealer(survey, outcomes: list[int | str]) -> threading.Thread:
    """Posts once from a thread named "sealer"; its status code, or the view's error (the test
    client re-raises it), goes to ``outcomes``."""

    def post() -> None:
        try:
            outcomes.append(_post(survey))
        except RuntimeError as exc:
            outcomes.append(str(exc))
        finally:
            connection.close()

    sealer = threading.Thread(target=post, name="sealer", daemon=True)
    sealer.start()
    return sealer


@override_settings(DENIABLE_ESTIMATE_BATCH=2)
def test_a_post_does_not_queue_behind_a_sealer_and_its_batch_is_still_sealed(
    require_postgres, django_user_model, monkeypatch
):
    """A sealer pauses after re-writing its batch, before its commit. Two posts meanwhile each
    see ≥ k waiting: they return at once (before: they waited for the sealer's lock), and the
    sealer, once committed, counts again and seals them too."""
    survey = _open(django_user_model)
    sealed_once, go = _pause_first_seal(monkeypatch, then_fail=False)
    codes: list[int | str] = []
    assert _post(survey) == 201  # one waiting: no batch yet
    sealer = _start_sealer(survey, codes)  # two waiting: that thread seals them
    try:
        assert sealed_once.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '3s'")
        started = time.monotonic()
        assert [_post(survey), _post(survey)] == [201, 201]
        assert time.monotonic() - started < 3
        assert Submission.objects.filter(survey=survey, sealed=True).count() == 0  # uncommitted
    finally:
        go.set()
        sealer.join(30)
        with connection.cursor() as cursor:
            cursor.execute("RESET lock_timeout")
    assert codes == [201]
    assert Submission.objects.filter(survey=survey, sealed=False).count() == 0
    assert selectors.survey_respondent_count(survey=survey) == 4


def test_closing_publishes_a_tail_of_k_or_more(require_postgres, django_user_model):
    survey = _open(django_user_model)
    with override_settings(DENIABLE_ESTIMATE_BATCH=100):
        assert [_post(survey) for _ in range(12)] == [201] * 12
    with override_settings(DENIABLE_ESTIMATE_BATCH=10):
        services.survey_close(survey=survey)
    assert Submission.objects.filter(survey=survey, sealed=False).count() == 0
    assert selectors.survey_respondent_count(survey=survey) == 12


@override_settings(DENIABLE_ESTIMATE_BATCH=10)
def test_closing_keeps_a_tail_under_k_out_of_the_estimates(require_postgres, django_user_model):
    survey = _open(django_user_model)
    assert [_post(survey) for _ in range(12)] == [201] * 12
    services.survey_close(survey=survey)
    assert Submission.objects.filter(survey=survey, sealed=False).count() == 2
    assert selectors.survey_respondent_count(survey=survey) == 10


@override_settings(DENIABLE_ESTIMATE_BATCH=2)
def test_a_sealer_that_fails_once_still_seals_what_others_left_to_it(
    require_postgres, django_user_model, monkeypatch
):
    """The holder's seal fails (once: a deadlock, a timeout) after two posts skipped their turn.
    It seals once more, waiting for the lock, before its error goes on: nothing due is left."""
    survey = _open(django_user_model)
    paused, go = _pause_first_seal(monkeypatch, then_fail=True)
    errors: list[int | str] = []
    assert _post(survey) == 201
    sealer = _start_sealer(survey, errors)
    try:
        assert paused.wait(10)
        assert [_post(survey), _post(survey)] == [201, 201]  # both skip their turn
    finally:
        go.set()
        sealer.join(30)
    assert errors == ["the seal failed"]
    assert Submission.objects.filter(survey=survey).count() == 4
    assert Submission.objects.filter(survey=survey, sealed=False).count() == 0
    assert selectors.survey_respondent_count(survey=survey) == 4
