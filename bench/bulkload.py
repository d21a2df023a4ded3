"""Bulk-load a bench survey with N respondents, as ``submission_create`` would have stored them.

Generated inside PostgreSQL (``generate_series``; no rows cross the wire): N submissions, one
report per question each (random reported values of the right kind), each submission in a random
tally shard, then the tallies computed FROM those reports — the ungrouped cells and the cells
grouped by every category question — so tallies equal the reports by construction, and
:func:`verify` checks it with one aggregate query. Surveys are kept between runs (slug
``bench-n<N>``) and reused when they verify, so only the first full run pays the 10⁶ load.
"""

from __future__ import annotations

import time
from typing import Any

SLUG = "bench-n{n}"


def _load(survey_id: int, n: int) -> None:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as c:
        c.execute("SET LOCAL work_mem = '256MB'")
        c.execute("SET LOCAL synchronous_commit = off")  # a bulk load, not a measurement
        c.execute(
            "INSERT INTO surveys_submission (id, survey_id, randomizer, submitted_on, fingerprint)"
            " SELECT gen_random_uuid(), %s, 'browser', current_date, md5(g::text) || md5(g::text)"
            " FROM generate_series(1, %s) g",
            [survey_id, n],
        )
        c.execute(
            "INSERT INTO surveys_report (id, submission_id, question_id, value_bool, value_text,"
            " value_number)"
            " SELECT gen_random_uuid(), s.id, q.id,"
            "  CASE WHEN q.kind = 'yes_no' THEN random() < 0.4 END,"
            "  CASE WHEN q.kind IN ('choice', 'category') THEN"
            "   q.options ->> floor(random() * jsonb_array_length(q.options))::int END,"
            "  CASE WHEN q.kind = 'number' THEN"
            "   round((q.min_value + random() * (q.max_value - q.min_value))::numeric, 1)::float8"
            "  END"
            " FROM surveys_submission s CROSS JOIN surveys_question q"
            " WHERE s.survey_id = %s AND q.survey_id = %s",
            [survey_id, survey_id],
        )
        # The shard of a submission: any fixed function of it (the service draws it at random).
        c.execute(
            "CREATE TEMP TABLE bench_cells ON COMMIT DROP AS"
            " SELECT s.id AS sub, '' AS key, '' AS value, 0::float8 AS num, '' AS kind,"
            "  abs(hashtext(s.id::text)) %% 16 AS shard"
            " FROM surveys_submission s WHERE s.survey_id = %s"
            " UNION ALL"
            " SELECT r.submission_id, q.key,"
            "  CASE q.kind WHEN 'yes_no' THEN CASE WHEN r.value_bool THEN 'yes' ELSE 'no' END"
            "   WHEN 'number' THEN '' ELSE r.value_text END,"
            "  coalesce(r.value_number, 0), q.kind, abs(hashtext(r.submission_id::text)) %% 16"
            " FROM surveys_report r JOIN surveys_question q ON q.id = r.question_id"
            " WHERE q.survey_id = %s",
            [survey_id, survey_id],
        )
        c.execute(
            "INSERT INTO surveys_tally (survey_id, question_key, value, group_key, group_value,"
            " shard, count, total, total_sq)"
            " SELECT %s, key, value, '', '', shard, count(*), sum(num), sum(num * num)"
            " FROM bench_cells GROUP BY key, value, shard"
            " UNION ALL"
            " SELECT %s, c.key, c.value, g.key, g.value, c.shard, count(*), sum(c.num),"
            "  sum(c.num * c.num)"
            " FROM bench_cells c JOIN bench_cells g ON g.sub = c.sub AND g.kind = 'category'"
            "  AND c.key <> g.key"
            " GROUP BY c.key, c.value, g.key, g.value, c.shard",
            [survey_id, survey_id],
        )
    with connection.cursor() as c:
        c.execute("ANALYZE surveys_tally")


def verify(survey_id: int) -> dict[str, Any]:
    """ONE aggregate query: every ungrouped tally cell (summed over shards) against a count of
    the reports (and the submissions for the respondents cell); returns the mismatches."""
    from django.db import connection

    with connection.cursor() as c:
        c.execute(
            "WITH t AS (SELECT question_key AS key, value, sum(count) AS n, sum(total) AS total"
            "  FROM surveys_tally WHERE survey_id = %s AND group_key = '' GROUP BY 1, 2),"
            " r AS (SELECT q.key, CASE q.kind WHEN 'yes_no' THEN"
            "   CASE WHEN r.value_bool THEN 'yes' ELSE 'no' END WHEN 'number' THEN ''"
            "   ELSE r.value_text END AS value, count(*) AS n, sum(coalesce(r.value_number, 0))"
            "   AS total"
            "  FROM surveys_report r JOIN surveys_question q ON q.id = r.question_id"
            "  WHERE q.survey_id = %s GROUP BY 1, 2"
            "  UNION ALL SELECT '', '', count(*), 0 FROM surveys_submission WHERE survey_id = %s)"
            " SELECT count(*) FILTER (WHERE t.n IS DISTINCT FROM r.n"
            "   OR abs(coalesce(t.total, 0) - coalesce(r.total, 0)) > 1e-6 * (1 + abs(r.total))),"
            "  count(*), coalesce(sum(r.n) FILTER (WHERE r.key = ''), 0)"
            " FROM t FULL JOIN r ON t.key = r.key AND t.value = r.value",
            [survey_id, survey_id, survey_id],
        )
        bad, cells, respondents = c.fetchone()
    return {"mismatched_cells": int(bad), "cells": int(cells), "respondents": int(respondents)}


def survey_with(n: int) -> tuple[Any, dict[str, Any]]:
    """The bench survey with n respondents (loaded if missing or not verifying); its check."""
    from bench.fixtures import create_open_survey
    from surveys.models import Survey

    slug = SLUG.format(n=n)
    survey = Survey.objects.filter(slug=slug).first()
    if survey is not None:
        check = verify(survey.pk)
        if check["respondents"] == n and check["mismatched_cells"] == 0:
            return survey, {**check, "loaded_now": False, "load_seconds": 0.0}
        survey.delete()
    survey = create_open_survey(title_suffix=f" ({n:,} respondents)", slug=slug)
    start = time.perf_counter()
    _load(survey.pk, n)
    elapsed = time.perf_counter() - start
    check = verify(survey.pk)
    print(f"  loaded {n:,} respondents in {elapsed:.1f} s; check: {check}")
    if check["mismatched_cells"] or check["respondents"] != n:
        raise AssertionError(f"tallies do not match the reports: {check}")
    return survey, {**check, "loaded_now": True, "load_seconds": round(elapsed, 1)}
