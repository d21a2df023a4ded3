"""A submission in flight while the survey is closed (by the closing-time sweep,
surveys/services/closing.py, or by its researcher) was stored AFTER the closing's tail re-write
(found by an adversarial review, stop 44), so the closed survey kept an unsealed row in arrival
order, with its own transaction id, for good — what closing exists to end — or published a
batch after the close. The INSERT now takes FOR KEY SHARE on the survey row, so PostgreSQL
re-checks its WHERE against the closed row and stores nothing.

Why it happened: the conditional INSERT (surveys/services/submission_storage.py,
``_submission_insert_sql``) read the survey row's ``status`` from the statement's snapshot
without locking it. Its foreign-key check then took ``FOR KEY SHARE`` on the survey row and
waited for the closing
transaction (which holds ``FOR UPDATE``); once that commits, the check succeeds (the key did
not change) and the row — whose WHERE saw "open" — is inserted into the closed survey.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from surveys.models import Submission, Survey
from surveys.services import batches, closing
from testsupport.factories import make_survey, make_user, submit

K = 4


def _race(monkeypatch, tail: int) -> tuple[Survey, uuid.UUID, dict, bool]:
    """A tail of ``tail`` rows; the closing sweep closes the survey while one more respondent's
    INSERT is in flight. Returns the survey, the late id, its outcome, whether it was stored."""
    owner = make_user("owner")
    survey = make_survey(owner)
    survey.refresh_from_db()
    for _ in range(tail):
        submit(survey)
    closes_at = timezone.now() + timedelta(seconds=2)
    Survey.objects.filter(pk=survey.pk).update(closes_at=closes_at)
    survey.refresh_from_db()  # the respondent's view of the survey: open, still accepting

    closed_inside, go = threading.Event(), threading.Event()
    real_shuffle = batches.submissions_shuffle_tail

    def paused_shuffle(*, survey: Survey) -> None:
        real_shuffle(survey=survey)  # the closing's re-write of the tail, done...
        closed_inside.set()
        assert go.wait(30)  # ...and its transaction not yet committed

    monkeypatch.setattr(batches, "submissions_shuffle_tail", paused_shuffle)
    errors: list[BaseException] = []
    outcome: dict[str, object] = {}

    def sweep() -> None:
        try:
            closing.survey_close_if_due(survey_id=survey.pk, now=closes_at + timedelta(seconds=1))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
        finally:
            go.set()
            closed_inside.set()
            connection.close()

    late_id = uuid.uuid4()

    def respondent() -> None:
        try:
            # The respondent posted before the closing time (the app's clock said so).
            outcome["result"] = submit(survey, submission_id=late_id)
        except BaseException as exc:  # noqa: BLE001 - a refusal is the right answer
            outcome["refused"] = exc
        finally:
            connection.close()

    closer = threading.Thread(target=sweep, daemon=True)
    closer.start()
    assert closed_inside.wait(20), errors
    poster = threading.Thread(target=respondent, daemon=True)
    poster.start()
    # Wait until the respondent's INSERT is blocked on the survey row's lock (its FK check).
    deadline = time.monotonic() + 10
    blocked = False
    while not blocked and time.monotonic() < deadline:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                "AND query ILIKE '%%INSERT INTO%%surveys_submission%%'"
            )
            blocked = bool(cursor.fetchone()[0])
        time.sleep(0.05)
    assert blocked, "the respondent's INSERT never waited on the closing's lock"
    go.set()
    closer.join(30)
    poster.join(30)
    assert not errors, errors
    assert Survey.objects.get(pk=survey.pk).status == Survey.Status.CLOSED
    return survey, late_id, outcome, Submission.objects.filter(pk=late_id).exists()


@pytest.mark.django_db(transaction=True)
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_submission_in_flight_at_the_closing_time_is_not_stored_after_the_close(
    require_postgres, monkeypatch
):
    survey, _, outcome, stored_after_close = _race(monkeypatch, tail=1)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(DISTINCT xmin::text) FROM surveys_submission "
            "WHERE survey_id = %s AND NOT sealed",
            [survey.pk],
        )
        xmins = cursor.fetchone()[0]
    assert not stored_after_close, (
        f"a submission was stored in the survey after its close committed (outcome "
        f"{outcome}); the closed survey's unsealed tail now has {xmins} transaction ids, "
        "i.e. the late row keeps its arrival order for good"
    )


@pytest.mark.django_db(transaction=True)
@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_closed_surveys_tail_is_never_published_after_the_close(require_postgres, monkeypatch):
    """Worse: with k - 1 waiting at the close (left unpublished, as a closed survey's tail must
    be), the late row makes k and its submitter publishes the batch AFTER the close: the estimates
    of a closed survey move (the sweep's own test asserts they stay at 0), against
    shuffled_exports' "its unsealed tail is never published after closing"."""
    from surveys.api.estimates import estimates_body

    survey, _, outcome, _ = _race(monkeypatch, tail=K - 1)
    survey.refresh_from_db()
    respondents = estimates_body(survey=survey)["respondents"]
    assert respondents == 0, (
        f"a batch of {respondents} was published after the survey closed (late outcome {outcome})"
    )
