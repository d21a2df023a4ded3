"""The suite's own PostgreSQL sessions skip the per-commit WAL flush (tests/conftest.py)."""

from __future__ import annotations

import pytest
from django.db import connection


@pytest.mark.django_db
def test_the_suites_sessions_do_not_wait_for_the_wal_flush(require_postgres):
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "off"


@pytest.mark.django_db(transaction=True)
def test_a_new_connection_gets_it_too(require_postgres):
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        assert cursor.fetchone()[0] == "off"
