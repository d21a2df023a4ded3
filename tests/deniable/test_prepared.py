"""deniable/prepared.py: the batch publication's statements are prepared on PostgreSQL (planned
once per connection), still seen by Django's execute wrappers, and fail as Django's errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from django.db import DatabaseError, connection
from django.test import override_settings

from deniable.prepared import prepared_cursor
from surveys.selectors.surveys import survey_respondent_count
from testsupport.factories import make_survey, make_user, submit

pytestmark = pytest.mark.django_db

K = 3


def _prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [row[0] for row in cursor.fetchall()]


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_a_batch_publication_prepares_its_statements_and_the_wrappers_see_them(
    require_postgres,
) -> None:
    survey = make_survey(make_user("owner"))
    survey.refresh_from_db()
    seen: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        seen.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        for _ in range(K):
            submit(survey)
    assert survey_respondent_count(survey=survey) == K  # the batch was published
    prepared = _prepared_statements()
    markers = (
        "WITH moved AS (DELETE",
        'INSERT INTO "surveys_tally"',
        "FOR NO KEY UPDATE",
        "pg_try_advisory_xact_lock",
        'SELECT count(*) FROM "surveys_submission"',
    )
    for marker in markers:
        assert any(marker in sql for sql in prepared), (marker, prepared)
        assert any(marker in sql for sql in seen), (marker, seen)  # tests and benches record them
    # The submission's own statement (a psycopg cursor of its own, outside Django's wrappers).
    assert any(sql.startswith("WITH stored AS (INSERT") for sql in prepared), prepared


def test_errors_are_djangos(require_postgres) -> None:
    """A failing statement raises django.db's error (so transaction.atomic and the API's error
    handling treat it as any other), not psycopg's."""
    with pytest.raises(DatabaseError), prepared_cursor() as cursor:
        cursor.execute("SELECT no_such_column FROM surveys_survey WHERE id = %s", [1])


def test_a_statement_runs_on_either_database() -> None:
    """PostgreSQL: prepared, server-side parameters; SQLite: Django's own cursor."""
    with prepared_cursor() as cursor:
        cursor.execute("SELECT 1 + %s", [1])
        assert cursor.fetchone()[0] == 2


@pytest.mark.parametrize(("value", "expected"), [(None, 5), ("false", None)])
def test_a_pooler_that_cannot_keep_prepared_statements_can_turn_them_off(value, expected) -> None:
    """``DENIABLE_DB_PREPARED_STATEMENTS=false`` leaves Django's default (None: psycopg then
    ignores ``prepare=True``), for a transaction-pooling PgBouncer older than 1.21."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "deniable.settings.base",
        "DATABASE_URL": "postgres://app@127.0.0.1:5432/app",
    }
    env.pop("DENIABLE_DB_PREPARED_STATEMENTS", None)
    if value is not None:
        env["DENIABLE_DB_PREPARED_STATEMENTS"] = value
    code = (
        "import json, django; django.setup(); from django.conf import settings; "
        "print(json.dumps(settings.DATABASES['default']['OPTIONS'].get('prepare_threshold')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == expected
