"""The submission and tally paths with Django's debug cursor on (issue 10).

`make run` serves with ``DJANGO_DEBUG=true``. With DEBUG on, Django's cursor wrapper logs every
statement it executes by formatting it the way the database driver would, ``sql % params``: a
literal ``%`` in raw SQL that is not written ``%%`` raises "not enough arguments for format
string" there, and only there (the test runner forces DEBUG off). The SQLite tally upsert had
such a ``%`` and `make run` died seeding the demo while the whole suite passed.

``CaptureQueriesContext`` forces the same debug cursor (``connection.force_debug_cursor``), so
these tests run the real statements through it, on SQLite and on PostgreSQL (``DATABASE_URL``).
Each test also checks that the statement it is about was captured, so a path that stopped going
through Django's cursor would not pass silently.
"""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from surveys import services
from surveys.api.estimates import estimates_body
from surveys.collection.tally_layout import submission_slices
from surveys.models import TALLY_SHARDS, Submission, Survey, Tally
from surveys.services.submission_rows import survey_tally_layout
from surveys.services.tallies import tallies_rebuild
from tests.surveys.tally_reading import slice_counts
from testsupport import factories
from testsupport.factories import full_answers, make_survey, new_id, submit, survey_body

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.both_backends,
    pytest.mark.usefixtures("fresh_public_cache"),
]

TALLY_TABLE = Tally._meta.db_table


def _tally_upserts(ctx: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in ctx.captured_queries
        if TALLY_TABLE in q["sql"] and "ON CONFLICT" in q["sql"]
    ]


def _capped(alice) -> Survey:
    survey = make_survey(alice, survey_body(response_cap=1000))
    survey.refresh_from_db()
    return survey


@pytest.mark.parametrize("access", ["open", "invite", "capped"])
def test_submissions_and_tally_upserts_through_the_debug_cursor(access, alice):
    """More submissions than tally shards: by pigeonhole at least one upsert takes the
    ``ON CONFLICT DO UPDATE`` branch (the vector sum with SQLite's printf)."""
    if access == "capped":
        survey = _capped(alice)
    else:
        survey = factories.survey_create(owner=alice, data=survey_body(access=access))
        services.survey_open(survey=survey)
        survey.refresh_from_db()
    n = TALLY_SHARDS + 1
    tokens = factories.invitations_create(survey=survey, count=n) if access == "invite" else []
    with CaptureQueriesContext(connection) as ctx:
        for i in range(n):
            submit(survey, full_answers(coin=i % 2 == 0), token=tokens[i] if tokens else None)
    assert Submission.objects.filter(survey=survey).count() == n
    counts = slice_counts(survey)
    assert counts["respondents"] == n
    assert counts["cells"][("coin", "yes")] == (n + 1) // 2
    assert counts["numbers"]["hours"] == (n, 12.5 * n, 12.5**2 * n)
    assert Tally.objects.filter(survey=survey, group_key="").count() < n  # some rows were updated
    # Every tally upsert went through Django's (debug) cursor, on both backends.
    # Each submission publishes its own batch here (test settings: k = 1), and a batch updates
    # the tallies with ONE upsert holding a row per slice it counts in (all respondents + each
    # category asked; surveys.services.batches).
    per_submission = len(submission_slices(survey_tally_layout(survey), full_answers()))
    upserts = _tally_upserts(ctx)
    assert len(upserts) == n
    row_start = f"({survey.pk}, '"  # each VALUES row, as the debug cursor interpolates it
    assert all(sql.count(row_start) == per_submission for sql in upserts), upserts[0]


@pytest.mark.parametrize("access", ["open", "invite"])
def test_api_submission_with_debug_on(access, alice, anon):
    """What `make run` serves: the respondents' POST with DEBUG on (it answered 500)."""
    survey = factories.survey_create(owner=alice, data=survey_body(access=access))
    services.survey_open(survey=survey)
    body = {"submission_id": new_id(), "randomizer": "browser", "answers": full_answers()}
    if access == "invite":
        [body["token"]] = factories.invitations_create(survey=survey, count=1)
    url = f"/api/v1/surveys/{survey.slug}/responses/"
    with override_settings(DEBUG=True):
        assert connection.queries_logged  # the debug cursor is what DEBUG switches on
        for _ in range(2):  # the retry is answered as a duplicate, still through the debug cursor
            response = anon.post(url, json.dumps(body), content_type="application/json")
            assert response.status_code in (200, 201), response.content
        estimates = estimates_body(survey=survey)
    assert response.json()["status"] == "duplicate"
    assert estimates["respondents"] == 1


def test_estimates_and_rebuild_through_the_debug_cursor(survey):
    for i in range(5):
        submit(survey, full_answers(age=["young", "old"][i % 2]))
    with CaptureQueriesContext(connection) as ctx:
        grouped = estimates_body(survey=survey, group_by="age")
        rows = tallies_rebuild(survey=survey)
        again = estimates_body(survey=survey, group_by="age")
    assert any(TALLY_TABLE in q["sql"] for q in ctx.captured_queries)
    assert rows > 0 and grouped["respondents"] == again["respondents"] == 5
    assert grouped["groups"] == again["groups"]


def test_seed_demo_with_debug_on():
    """The exact command `make run` died on, with the setting `make run` uses."""
    with override_settings(DEBUG=True):
        call_command("seed_demo", "--respondents", "70", stdout=io.StringIO())
        survey = Survey.objects.get(slug="demo")
        assert estimates_body(survey=survey)["respondents"] == 70
