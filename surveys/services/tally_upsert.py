"""The tallies' one upsert: a published batch adds its report vectors to every slice it counts in,
in ONE statement (issue 24), summing element by element in SQL on both databases."""

from __future__ import annotations

from typing import Any

from django.db import connection

from deniable.prepared import prepared_cursor
from surveys.models import Tally
from surveys.services.submission_rows import TallyIncrement


def _vector_sum_sql(table: str, column: str) -> str:
    """The stored vector plus the new one, element by element, in SQL (no read into Python)."""
    if connection.vendor == "postgresql":
        return (
            f"ARRAY(SELECT coalesce(a, 0) + coalesce(b, 0) FROM unnest({table}.{column}, "  # noqa: S608
            f"EXCLUDED.{column}) WITH ORDINALITY AS u(a, b, i) ORDER BY i)"
        )
    # SQLite: JSON arrays; json_each yields the elements with key = index. Every vector of a
    # survey has the same length (its questions are frozen once open), so an inner join is enough.
    # printf's 17 significant digits: SQLite's JSON functions would print reals with 15, so sums
    # would drift and counts stop being exact past 10¹⁵. The statement always runs with
    # parameters, so a literal percent sign is written `%%`: Django's SQLite backend turns it back
    # into `%`, and the debug cursor (DEBUG=True, or any CaptureQueriesContext) formats the SQL
    # with `sql % params`, where a bare `%!` raised "not enough arguments for format string"
    # (`make run` crashed on it).
    return (
        f"(SELECT json_group_array(json(printf('%%!.17g', v))) "  # noqa: S608
        f"FROM (SELECT a.value + b.value AS v "
        f"FROM json_each({table}.{column}) AS a JOIN json_each(EXCLUDED.{column}) AS b "
        f"ON b.key = a.key ORDER BY a.key))"
    )


def _tally_upsert_sql(rows_sql: str) -> str:
    """``INSERT … <rows_sql> ON CONFLICT DO UPDATE SET sums = stored + new``."""
    qn = connection.ops.quote_name
    table = qn(Tally._meta.db_table)
    columns = ", ".join(qn(c) for c in ("survey_id", "group_key", "group_value", "shard", "sums"))
    conflict = ", ".join(qn(c) for c in ("survey_id", "group_key", "group_value", "shard"))
    # Identifiers come from model metadata; every value is a query parameter.
    return (
        f"INSERT INTO {table} ({columns}) {rows_sql} "
        f"ON CONFLICT ({conflict}) DO UPDATE SET {qn('sums')} = "
        f"{_vector_sum_sql(table, qn('sums'))}"
    )


def tallies_upsert(*increments: TallyIncrement) -> None:
    """ONE upsert adding each increment's vector to each of its slices (PostgreSQL and SQLite ≥
    3.24); a published batch passes all its slices at once (:mod:`surveys.services.batches`):
    one statement per batch instead of one per slice (issue 24). The rows come in the order
    given (sorted by the caller, so concurrent publishers lock tally rows in one order)."""
    sums = Tally._meta.get_field("sums")
    params: list[Any] = []
    for increment in increments:
        vector = sums.get_db_prep_value(increment.vector, connection)
        for group_key, group_value in increment.slices:
            params += [increment.survey_id, group_key, group_value, increment.shard, vector]
    if not params:
        return
    rows = ", ".join(["(%s, %s, %s, %s, %s)"] * (len(params) // 5))
    # Prepared (deniable.prepared): a survey's batches send the same text, its rows one per slice.
    with prepared_cursor() as cursor:
        cursor.execute(_tally_upsert_sql(f"VALUES {rows}"), params)
