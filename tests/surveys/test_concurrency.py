"""Concurrency on real PostgreSQL: one invitation token, 20 simultaneous posts → exactly one 201.

SQLite serializes writers, so these tests need PostgreSQL (``require_postgres`` skips them
locally without it and fails them in CI).
"""

from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection
from rest_framework.test import APIClient

from surveys import selectors, services
from surveys.models import Invitation, Submission, Tally
from testsupport import factories
from testsupport.factories import full_answers, survey_body

THREADS = 20


def _race(survey, bodies: list[dict]) -> list[int]:
    """POST every body at once from its own thread (own DB connection); return status codes."""
    barrier = threading.Barrier(len(bodies))
    codes: list[int] = []
    lock = threading.Lock()

    def worker(body: dict) -> None:
        try:
            client = APIClient()
            barrier.wait()
            r = client.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")
            with lock:
                codes.append(r.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(b,)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return codes


@pytest.mark.django_db(transaction=True)
def test_one_token_twenty_parallel_posts(require_postgres, django_user_model):
    owner = django_user_model.objects.create_user(username="owner", password="pw-owner-123")
    survey = factories.survey_create(owner=owner, data=survey_body(access="invite"))
    services.survey_open(survey=survey)
    (token,) = factories.invitations_create(survey=survey, count=1)
    bodies = [
        {
            "submission_id": str(uuid.uuid4()),
            "randomizer": "browser",
            "token": token,
            "answers": full_answers(),
        }
        for _ in range(THREADS)
    ]
    codes = _race(survey, bodies)
    assert Counter(codes) == {201: 1, 409: THREADS - 1}
    assert Submission.objects.filter(survey=survey).count() == 1
    assert Invitation.objects.get(survey=survey).used is True
    assert selectors.survey_respondent_count(survey=survey) == 1
    assert sum(t.sums[0] for t in Tally.objects.filter(survey=survey, group_key="")) == 1


@pytest.mark.django_db(transaction=True)
def test_same_id_twenty_parallel_posts_and_tallies(require_postgres, django_user_model):
    owner = django_user_model.objects.create_user(username="owner", password="pw-owner-123")
    survey = factories.survey_create(owner=owner, data=survey_body())
    services.survey_open(survey=survey)
    sid = str(uuid.uuid4())
    same = {"submission_id": sid, "randomizer": "browser", "answers": full_answers()}
    codes = _race(survey, [same] * THREADS)
    assert Counter(codes) == {201: 1, 200: THREADS - 1}
    # Many distinct submissions at once: no deadlock, tallies exact.
    distinct = [
        {
            "submission_id": str(uuid.uuid4()),
            "randomizer": "browser",
            "answers": full_answers(coin=i % 2 == 0, age=["young", "old"][i % 2]),
        }
        for i in range(THREADS)
    ]
    assert Counter(_race(survey, distinct)) == {201: THREADS}
    respondents = sum(t.sums[0] for t in Tally.objects.filter(survey=survey, group_key=""))
    assert respondents == THREADS + 1 == Submission.objects.filter(survey=survey).count()
    assert selectors.survey_respondent_count(survey=survey) == THREADS + 1
    counts = selectors.survey_counts(survey=survey, group_by="age")
    assert counts.group_respondents == {"young": THREADS // 2 + 1, "old": THREADS // 2}
    assert counts.cells["young"]["coin"] == {"yes": THREADS // 2 + 1, "no": 0}
    assert counts.cells["old"]["coin"] == {"yes": 0, "no": THREADS // 2}
    hours = selectors.survey_counts(survey=survey).sums[""]["hours"]
    assert (hours.n, hours.total) == (THREADS + 1, 12.5 * (THREADS + 1))
