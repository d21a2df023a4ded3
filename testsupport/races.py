"""Races played in a fixed order, for tests (PostgreSQL)."""

from __future__ import annotations

import uuid

import psycopg
from django.db import connection

from surveys.models import Submission, Survey
from surveys.selectors.surveys import estimate_batch
from surveys.services.submission_storage import (
    _one_statement_sql,
    one_statement_params,
    submission_insert_params,
)
from testsupport.factories import make_survey, make_user, submit


def make_stranded_batch(k: int) -> Survey:
    """An open survey whose tail holds k rows, none published: the race, played in order. Row
    k − 1 is inserted by the one statement in a transaction left open (a submitter between its
    statement and its commit); row k is a whole submission meanwhile; then the first commits.
    The caller sets ``DENIABLE_ESTIMATE_BATCH`` to k."""
    assert estimate_batch() == k
    survey = make_survey(make_user("owner"))
    survey.refresh_from_db()
    for _ in range(k - 2):
        submit(survey)
    template = Submission.objects.filter(survey=survey).first()
    assert template is not None
    params = submission_insert_params(
        sid=uuid.uuid4(),
        survey=survey,
        randomizer=template.randomizer,
        fingerprint=template.fingerprint,
        answers=template.answers,
    )
    with psycopg.connect(**connection.get_connection_params()) as other:
        with other.cursor() as cursor:
            cursor.execute(_one_statement_sql(), one_statement_params(params))
            stored, before = cursor.fetchone() or (0, 0)
        assert (stored, before) == (1, k - 2)  # sees k − 1 with its own row: nothing due
        assert submit(survey).status == "accepted"  # also sees k − 2 + its own: nothing due
        other.commit()
    return survey
