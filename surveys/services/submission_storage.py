"""Storing a submission: the SQL of the submission hot path.

* the submission row is written by one conditional ``INSERT … SELECT … ON CONFLICT DO NOTHING``:
  only while its survey accepts answers, and only once per id;
* PostgreSQL, open-access surveys without a cap: submission, reports and tallies in ONE statement;
* otherwise one transaction: an invitation token is consumed with one conditional ``UPDATE``
  (accepted exactly once even under concurrent posts), then the reports in one multi-row INSERT
  and the tallies in one upsert — a rejected submission leaves no trace.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Sequence
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from deniable.errors import Conflict, InvalidInput
from surveys.models import Invitation, Report, Submission, Survey, Tally

_REPORT_COLUMNS = ("id", "submission_id", "question_id", "value_bool", "value_text", "value_number")
_TALLY_COLUMNS = ("survey_id", "question_key", "value", "group_key", "group_value", "shard",
                  "count", "total", "total_sq")  # fmt: skip


# PostgreSQL array types of the one-statement path: rows travel as one array per column, so the
# statement text and its 21 parameters are the same for every survey (parsed and planned once per
# connection) instead of one placeholder per value.
_REPORT_TYPES = ("uuid", "bigint", "boolean", "varchar", "double precision")
_TALLY_TYPES = ("bigint", "varchar", "varchar", "varchar", "varchar", "integer", "bigint",
                "double precision", "double precision")  # fmt: skip
_SUBMISSION_TYPES = ("uuid", "varchar", "date", "varchar", "bigint", "varchar", "timestamptz")


def _submission_insert_sql(types: Sequence[str] | None = None) -> str:
    """INSERT the submission only if its survey still accepts answers and its id is new.

    The survey may come from a per-process cache (``selectors.survey_get_public_cached``), so
    the authoritative "is it open?" check is this statement's WHERE: closing a survey takes
    effect at once. ``ON CONFLICT DO NOTHING`` replaces the look-up-then-insert (and its
    savepoint): a retried id inserts nothing and is answered by
    ``surveys.services.submissions._existing_outcome``.
    """
    qn = connection.ops.quote_name
    sub, srv = qn(Submission._meta.db_table), qn(Survey._meta.db_table)
    p = [f"%s::{t}" for t in types] if types else ["%s"] * 7
    return (
        f"INSERT INTO {sub} ({qn('id')}, {qn('survey_id')}, {qn('randomizer')}, "  # noqa: S608
        f"{qn('submitted_on')}, {qn('fingerprint')}) "
        f"SELECT {p[0]}, s.{qn('id')}, {p[1]}, {p[2]}, {p[3]} FROM {srv} s "
        f"WHERE s.{qn('id')} = {p[4]} AND s.{qn('status')} = {p[5]} "
        f"AND (s.{qn('closes_at')} IS NULL OR s.{qn('closes_at')} > {p[6]}) "
        f"ON CONFLICT ({qn('id')}) DO NOTHING"
    )


def submission_insert_params(
    *, sid: uuid.UUID, survey: Survey, randomizer: str, fingerprint: str
) -> list[Any]:
    ops = connection.ops
    uuid_field = Submission._meta.pk
    return [
        uuid_field.get_db_prep_value(sid, connection),
        randomizer,
        ops.adapt_datefield_value(timezone.localdate()),
        fingerprint,
        survey.pk,
        Survey.Status.OPEN,
        ops.adapt_datetimefield_value(timezone.now()),
    ]


def _reports_insert(rows: Sequence[tuple]) -> None:
    """All of a submission's reports in ONE multi-row INSERT (no model instances)."""
    if not rows:
        return
    qn = connection.ops.quote_name
    prep = Report._meta.pk.get_db_prep_value
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(_REPORT_COLUMNS)) + ")"] * len(rows))
    params: list[Any] = []
    for rid, sid, qid, b, t, n in rows:
        params += [prep(rid, connection), prep(sid, connection), qid, b, t, n]
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {qn(Report._meta.db_table)} "  # noqa: S608 - identifiers from metadata
            f"({', '.join(qn(c) for c in _REPORT_COLUMNS)}) VALUES {placeholders}",
            params,
        )


def _tallies_upsert(rows: Sequence[tuple]) -> None:
    """One ``INSERT … ON CONFLICT DO UPDATE`` for all cells (PostgreSQL and SQLite ≥ 3.24)."""
    qn = connection.ops.quote_name
    table = qn(Tally._meta.db_table)
    columns = ("survey_id", "question_key", "value", "group_key", "group_value", "shard",
               "count", "total", "total_sq")
    placeholders = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    conflict = ", ".join(qn(c) for c in columns[:6])
    # Identifiers come from model metadata; every value is a query parameter.
    sql = (
        f"INSERT INTO {table} ({', '.join(qn(c) for c in columns)}) VALUES {placeholders} "  # noqa: S608
        f"ON CONFLICT ({conflict}) DO UPDATE SET "
        f"{qn('count')} = {table}.{qn('count')} + EXCLUDED.{qn('count')}, "
        f"{qn('total')} = {table}.{qn('total')} + EXCLUDED.{qn('total')}, "
        f"{qn('total_sq')} = {table}.{qn('total_sq')} + EXCLUDED.{qn('total_sq')}"
    )
    params = [value for row in rows for value in row]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def _unnest(types: Sequence[str]) -> str:
    return "unnest(" + ", ".join(f"%s::{t}[]" for t in types) + ")"


def _columns(rows: Sequence[tuple], width: int) -> list[list[Any]]:
    return [[row[i] for row in rows] for i in range(width)] if rows else [[]] * width


@functools.cache
def _one_statement_sql() -> str:
    qn = connection.ops.quote_name
    rep, tally = qn(Report._meta.db_table), qn(Tally._meta.db_table)
    conflict = ", ".join(qn(c) for c in _TALLY_COLUMNS[:6])
    # Identifiers come from model metadata; every value is a query parameter.
    return (
        f"WITH sub AS ({_submission_insert_sql(_SUBMISSION_TYPES)} RETURNING {qn('id')}), "  # noqa: S608
        f"rep AS (INSERT INTO {rep} ({', '.join(qn(c) for c in _REPORT_COLUMNS)}) "
        f"SELECT r.id, sub.{qn('id')}, r.q, r.b, r.t, r.n FROM sub, "
        f"{_unnest(_REPORT_TYPES)} AS r(id, q, b, t, n)) "
        f"INSERT INTO {tally} ({', '.join(qn(c) for c in _TALLY_COLUMNS)}) "
        f"SELECT * FROM {_unnest(_TALLY_TYPES)} AS v WHERE EXISTS (SELECT 1 FROM sub) "
        f"ON CONFLICT ({conflict}) DO UPDATE SET "
        f"{qn('count')} = {tally}.{qn('count')} + EXCLUDED.{qn('count')}, "
        f"{qn('total')} = {tally}.{qn('total')} + EXCLUDED.{qn('total')}, "
        f"{qn('total_sq')} = {tally}.{qn('total_sq')} + EXCLUDED.{qn('total_sq')}"
    )


def submission_store_one_statement(
    *, submission_params: list[Any], reports: Sequence[tuple], tallies: Sequence[tuple]
) -> bool:
    """PostgreSQL, open-access surveys without a cap: submission, reports and tallies in ONE
    statement (data-modifying CTEs), so one round trip and one implicit transaction — no
    BEGIN/SAVEPOINT/COMMIT statements. Reports and tallies are written only if the submission
    row was (``FROM sub`` / ``EXISTS (… sub)``); ``unnest`` keeps the rows' (sorted) order, so
    tally locks are still taken in a fixed order. True if it was stored.

    It runs on a psycopg cursor with server-side binding and ``prepare=True`` (Django's own
    cursors bind client-side): the constant statement is parsed and planned once per connection,
    and its parameters are sent as they are instead of being spliced into the SQL text.
    """
    import psycopg

    report_columns = _columns([(r[0], r[2], r[3], r[4], r[5]) for r in reports], 5)
    params = [*submission_params, *report_columns, *_columns(tallies, len(_TALLY_COLUMNS))]
    connection.ensure_connection()
    with connection.wrap_database_errors, psycopg.Cursor(connection.connection) as cursor:
        cursor.execute(_one_statement_sql(), params, prepare=True)
        # Every stored submission increments at least the respondents cell.
        return cursor.rowcount > 0


def submission_store(
    *,
    survey: Survey,
    submission_params: list[Any],
    digest: str | None,
    reports: Sequence[tuple],
    tallies: Sequence[tuple],
) -> bool:
    """The general path (invitations, response caps, SQLite): one transaction, no savepoint.
    True if stored; False if the conditional insert wrote nothing (see the caller)."""
    with transaction.atomic():
        if survey.response_cap is not None:
            # Serialize submissions of capped surveys on the survey row, then count.
            Survey.objects.select_for_update().filter(pk=survey.pk).first()
            respondents = _respondents(survey)
            if respondents >= survey.response_cap:
                raise Conflict(
                    "This survey has reached its number of responses.",
                    code="response_cap_reached",
                )
        with connection.cursor() as cursor:
            cursor.execute(_submission_insert_sql(), submission_params)
            if cursor.rowcount != 1:
                return False
        if digest is not None:
            used = Invitation.objects.filter(survey=survey, digest=digest, used=False).update(
                used=True
            )
            if used != 1:
                if Invitation.objects.filter(survey=survey, digest=digest).exists():
                    raise Conflict("This invitation has already been used.", code="token_used")
                raise InvalidInput.single("token", "Unknown invitation token.")
        _reports_insert(reports)
        _tallies_upsert(tallies)
    return True


def _respondents(survey: Survey) -> int:
    from surveys.selectors import survey_respondent_count

    return survey_respondent_count(survey=survey)
