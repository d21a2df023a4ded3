"""A cursor whose statements PostgreSQL plans once per connection: for the few statements a hot
path repeats with only its parameters changing (the batch publication's, issue 24).

Django's PostgreSQL cursors bind parameters on the client (the values spliced into the SQL
text) and never prepare: every execution is parsed and planned anew. For the batch publication
that was half of what the database did for it — the re-write's ``WITH … DELETE … INSERT``, the
tallies' upsert, the counts and locks, replayed by pgbench, ran at 11,962 statements per second
planned each time against 20,228 prepared (bench/RESULTS.md §10, round 16). Django leaves
prepared statements off so that a transaction-pooling PgBouncer keeps working; the submission's
own statement already prepares (``surveys.services.submission_storage``), so the deployment
notes' requirement (PgBouncer ≥ 1.21 with ``max_prepared_statements``, or session pooling)
does not change.

The cursor is Django's own wrapper (``execute_wrapper`` hooks, error wrapping) around psycopg's
server-side-binding cursor, with ``prepare=True``: psycopg keeps up to 100 prepared statements
per connection, keyed by the SQL text and the parameters' types. On SQLite, and while Django logs
queries (``DEBUG``, ``CaptureQueriesContext``), it is Django's plain cursor.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterator
from typing import Any

from django.db import connection


@contextlib.contextmanager
def prepared_cursor() -> Iterator[Any]:
    """A cursor (``with prepared_cursor() as cursor: cursor.execute(sql, params)``) whose
    statements are prepared on PostgreSQL; Django's own cursor elsewhere."""
    # Django's debug cursor (DEBUG, CaptureQueriesContext) logs a statement by reading the SQL
    # psycopg bound on the client, which a server-bound cursor has not: it logged None.
    if connection.vendor != "postgresql" or connection.queries_logged:
        with connection.cursor() as cursor:
            yield cursor
        return
    connection.ensure_connection()
    with connection.wrap_database_errors:
        raw = _preparing_cursor_class()(connection.connection)
    # Django's wrapper: the execute_wrapper hooks (tests and benches record these statements),
    # database errors as django.db errors.
    connection.validate_thread_sharing()
    with connection.make_cursor(raw) as cursor:
        yield cursor


@functools.cache
def _preparing_cursor_class() -> type:
    """Django's server-side-binding cursor class, with ``prepare=True`` by default (built on
    first use: the PostgreSQL backend's module is not imported on SQLite)."""
    from django.db.backends.postgresql.base import ServerBindingCursor

    class PreparingCursor(ServerBindingCursor):
        def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
            kwargs.setdefault("prepare", True)
            return super().execute(query, params, **kwargs)  # type: ignore[misc]

    return PreparingCursor
