"""Ingestion stays flat as a survey grows (issue 29): every statement of the submission and
publication paths reaches the survey's rows through an index, never by a scan.

The statements are recorded while real requests run — respondent POSTs that fill and publish a
batch (open access; invite-only with a response cap), the invitation check, the estimates read,
closing the survey (the tail's re-write), beat's stranded-batch sweep — into a survey already
holding many published rows and used invitations. Each one is then planned with ``EXPLAIN``
(PostgreSQL, sequential scans disabled so one shows up only where no index can serve) or
``EXPLAIN QUERY PLAN`` (SQLite), and no plan may

* scan a table that grows with respondents (submissions, invitations, tallies; on PostgreSQL
  surveys too — SQLite, which cannot be told not to, rightly scans a one-row table), nor
* go through an index on the survey's rows of submissions or invitations without finding the
  tail by the index's condition: such an index holds one entry per row of the survey, so a
  statement filtering it for the tail reads all n of them (the bug: ``_rewrite`` selected
  ``survey_id = %s AND sealed = %s``, which the partial index ``submission_unsealed`` cannot
  serve, so every publication read the whole survey). Which index the planner picks depends on
  its statistics: ``test_query_plans_any_index.py`` plans the tail statements with each index.

Why not ``CaptureQueriesContext``: it records the SQL with the parameters spliced in as
literals, and a literal can match a partial index where the bound parameter that actually ran
cannot (SQLite). The statements are recorded with ``connection.execute_wrapper`` and planned
with the same parameters. The PostgreSQL one-statement insert runs on a psycopg cursor of its
own, outside Django's wrappers, so it is planned explicitly. Rate limits live in the cache
(Redis), not in the database.
"""

from __future__ import annotations

import json
import re
import secrets
import uuid
from collections.abc import Callable, Iterator
from datetime import date
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from surveys import services
from surveys.models import Invitation, Submission, Survey
from surveys.services import batches
from testsupport import factories
from testsupport.factories import full_answers, survey_body

from .api.support import post_response, url

pytestmark = [pytest.mark.django_db, pytest.mark.both_backends]

K = 3
BIG = 3000  # published rows (and used invitations) already in the survey
# The tables with rows per respondent; PostgreSQL (sequential scans off) also checks surveys.
ROWS = {"surveys_submission", "surveys_invitation", "surveys_tally"}
GROWING = ROWS | {"surveys_survey"}
TAIL_INDEXES = {"submission_unsealed", "invitation_used_unsealed"}
SKIP = re.compile(r"^\s*(SAVEPOINT|RELEASE|ROLLBACK|BEGIN|COMMIT|SET|SHOW|PRAGMA)\b", re.I)

Statement = tuple[str, Any]


def survey_wide_indexes() -> set[str]:
    """The indexes of submissions and invitations that start with ``survey_id``, the partial
    tail indexes excepted: one entry per row of the survey."""
    names: set[str] = set()
    with connection.cursor() as cursor:
        for table in ("surveys_submission", "surveys_invitation"):
            for name, info in connection.introspection.get_constraints(cursor, table).items():
                columns = info["columns"] or []
                if info["index"] and columns[:1] == ["survey_id"] and name not in TAIL_INDEXES:
                    names.add(name)
    assert names, "the indexes on the survey's rows were not found"
    return names


def _grow(survey: Survey, *, invitations: bool) -> None:
    """BIG published submissions (and used, sealed invitations), then fresh statistics."""
    Submission.objects.bulk_create(
        [
            Submission(
                id=uuid.uuid4(),
                survey=survey,
                randomizer="browser",
                submitted_on=date.today(),
                fingerprint="0" * 64,
                answers=full_answers(),
                sealed=True,
            )
            for _ in range(BIG)
        ],
        batch_size=500,
    )
    if invitations:
        Invitation.objects.bulk_create(
            [
                Invitation(survey=survey, digest=secrets.token_hex(32), used=True, sealed=True)
                for _ in range(BIG)
            ],
            batch_size=500,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _recorded(action: Callable[[], None]) -> list[Statement]:
    statements: list[Statement] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        first = params[0] if many and params else params
        statements.append((sql, first))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        action()
    return [(sql, params) for sql, params in statements if not SKIP.match(sql)]


def _pg_nodes(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("Plans", []):
        yield from _pg_nodes(child)


def _problems(sql: str, params: Any, forbidden: set[str]) -> list[str]:
    """What is wrong with the plan of one statement (empty when it only uses indexes)."""
    out: list[str] = []
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("SET enable_seqscan = off")
            try:
                cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
                (raw,) = cursor.fetchone()
            finally:
                cursor.execute("RESET enable_seqscan")
            plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
            for node in _pg_nodes(plan):
                kind, table = node["Node Type"], node.get("Relation Name")
                if kind == "Seq Scan" and table in GROWING:
                    out.append(f"sequential scan of {table}")
                # Through a survey-wide index, the tail must be its condition, not a filter.
                if node.get("Index Name") in forbidden and "sealed" not in node.get(
                    "Index Cond", ""
                ):
                    out.append(f"{kind} of {table} through {node['Index Name']}")
            return out
        # SQLite names a table by its alias in the plan (``FROM surveys_tally AS t``).
        aliases = dict(
            (alias, table)
            for table, alias in re.findall(r'"?(surveys_\w+)"?\s+(?:AS\s+)?(\w+)', sql)
        )
        cursor.execute("EXPLAIN QUERY PLAN " + sql, params)
        for row in cursor.fetchall():
            detail = row[-1]
            scanned = re.match(r"SCAN (\S+)", detail)
            used = re.search(r"USING (?:COVERING )?INDEX (\S+)", detail)
            # A whole tail index holds only unpublished rows (beat's stranded-batch sweep reads
            # every survey's tail): that scan reads no published row.
            whole_tail = used is not None and used.group(1) in TAIL_INDEXES
            if (
                scanned
                and aliases.get(scanned.group(1), scanned.group(1)) in ROWS
                and not whole_tail
            ):
                out.append(detail)
            if used and used.group(1) in forbidden and "sealed=" not in detail:
                out.append(detail)
    return out


def _assert_indexed(statements: list[Statement]) -> None:
    forbidden = survey_wide_indexes()
    bad = {}
    for sql, params in statements:
        problems = _problems(sql, params, forbidden)
        if problems:
            bad[sql] = problems
    assert not bad, json.dumps(bad, indent=1)


def _one_statement_plan(survey: Survey) -> list[Statement]:
    """PostgreSQL's one-statement insert (open access, no cap), as it is prepared."""
    if connection.vendor != "postgresql":
        return []
    from surveys.services.submission_storage import (
        _one_statement_sql,
        one_statement_params,
        submission_insert_params,
    )

    params = submission_insert_params(
        sid=uuid.uuid4(), survey=survey, randomizer="browser", fingerprint="0" * 64, answers={}
    )
    return [(_one_statement_sql(), one_statement_params(params))]


def _publishes(statements: list[Statement]) -> bool:
    return any(sql.lstrip().upper().startswith(("WITH", "DELETE")) for sql, _ in statements)


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_open_survey_submission_and_publication_use_indexes_only(alice) -> None:
    survey = factories.make_survey(alice)
    _grow(survey, invitations=False)
    anon, owner = APIClient(), factories.api_client(alice)

    def run() -> None:
        for _ in range(K):
            assert post_response(anon, survey).status_code == 201
        assert owner.get(url(survey, "estimates/")).status_code == 200
        for _ in range(K - 1):
            assert post_response(anon, survey).status_code == 201
        assert batches.submissions_publish_stranded() == {}  # beat's sweep: the tail is < k
        services.survey_close(survey=Survey.objects.get(pk=survey.pk))

    statements = _recorded(run)
    assert Submission.objects.filter(survey=survey, sealed=True).count() == BIG + K
    assert _publishes(statements)
    assert any("HAVING" in sql for sql, _ in statements)  # the sweep's scan was planned too
    _assert_indexed(statements + _one_statement_plan(survey))


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_invite_only_capped_submission_and_publication_use_indexes_only(alice) -> None:
    survey = factories.make_survey(alice, survey_body(access="invite", response_cap=10**6))
    _grow(survey, invitations=True)
    tokens = factories.invitations_create(survey=survey, count=2 * K)
    anon = APIClient()

    def run() -> None:
        for token in tokens[: 2 * K - 1]:
            check = anon.post(url(survey, "invitations/check/"), {"token": token}, format="json")
            assert check.status_code == 200
            assert post_response(anon, survey, token=token).status_code == 201
        services.survey_close(survey=Survey.objects.get(pk=survey.pk))

    statements = _recorded(run)
    assert Submission.objects.filter(survey=survey, sealed=True).count() == BIG + K
    assert Invitation.objects.filter(survey=survey, used=True, sealed=False).count() == K - 1
    assert _publishes(statements)
    _assert_indexed(statements)
