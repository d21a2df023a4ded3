"""Bulk-load a bench survey with N respondents, as ``submission_create`` would have stored them.

The N submissions are generated inside PostgreSQL (``generate_series``; no rows cross the wire),
each with an answer to every question (random reported values of the right kind) in its
``answers`` document. The tallies are then recounted from those documents by the product's own
``tallies_rebuild`` (the code a migration or a restore uses), and :func:`verify` checks them
against an independent aggregate over the documents in SQL. Surveys are kept between runs (slug
``bench-n<N>``) and reused when they verify, so only the first full run pays the 10⁶ load.
"""

from __future__ import annotations

import time
from typing import Any

SLUG = "bench-n{n}"


def _load(survey_id: int, n: int) -> None:
    from django.db import connection, transaction

    from surveys.models import Survey
    from surveys.services.tallies import tallies_rebuild

    with transaction.atomic(), connection.cursor() as c:
        c.execute("SET LOCAL synchronous_commit = off")  # a bulk load, not a measurement
        # The subquery mentions g, so it is evaluated per row (else once, for every row).
        c.execute(
            "INSERT INTO surveys_submission"
            " (id, survey_id, randomizer, submitted_on, fingerprint, sealed, answers)"
            # sealed: a bulk load is published at once (tallies_rebuild counts sealed rows only).
            " SELECT gen_random_uuid(), %s, 'browser', current_date,"
            "  md5(g::text) || md5(g::text), true,"
            "  (SELECT jsonb_object_agg(q.key, CASE q.kind"
            "    WHEN 'yes_no' THEN to_jsonb(random() < 0.4)"
            "    WHEN 'number' THEN to_jsonb(round((q.min_value"
            "     + random() * (q.max_value - q.min_value))::numeric, 1)::float8)"
            "    ELSE q.options -> floor(random() * jsonb_array_length(q.options))::int END)"
            "   FROM surveys_question q WHERE q.survey_id = %s AND g IS NOT NULL)"
            " FROM generate_series(1, %s) g",
            [survey_id, survey_id, n],
        )
    tallies_rebuild(survey=Survey.objects.get(pk=survey_id))
    with connection.cursor() as c:
        c.execute("ANALYZE surveys_tally")
        c.execute("ANALYZE surveys_submission")


def verify(survey_id: int) -> dict[str, Any]:
    """Every ungrouped cell as the product reads it (``survey_counts``, from the tallies) against
    ONE aggregate over the submissions' answer documents in SQL; returns the mismatches."""
    from django.db import connection

    from surveys.models import Survey
    from surveys.selectors import survey_counts

    with connection.cursor() as c:
        c.execute(
            "SELECT e.key, CASE jsonb_typeof(e.value)"
            "  WHEN 'boolean' THEN CASE WHEN e.value::boolean THEN 'yes' ELSE 'no' END"
            "  WHEN 'number' THEN '' ELSE e.value #>> '{}' END,"
            " count(*), sum(CASE WHEN jsonb_typeof(e.value) = 'number'"
            "  THEN e.value::float8 ELSE 0 END)"
            " FROM surveys_submission s, jsonb_each(s.answers) e"
            " WHERE s.survey_id = %s GROUP BY 1, 2",
            [survey_id],
        )
        recount = {(key, value): (int(k), float(t)) for key, value, k, t in c.fetchall()}
        c.execute("SELECT count(*) FROM surveys_submission WHERE survey_id = %s", [survey_id])
        (respondents,) = c.fetchone()
    counts = survey_counts(survey=Survey.objects.get(pk=survey_id))
    tallied: dict[tuple[str, str], tuple[int, float]] = {}
    for key, cells in counts.cells[""].items():
        for value, k in cells.items():
            total = counts.sums[""][key].total if key in counts.sums[""] else 0.0
            tallied[(key, value)] = (k, total)
    bad = sum(
        1
        for cell in recount.keys() | tallied.keys()
        if recount.get(cell, (0, 0.0))[0] != tallied.get(cell, (0, 0.0))[0]
        or abs(recount.get(cell, (0, 0.0))[1] - tallied.get(cell, (0, 0.0))[1])
        > 1e-6 * (1 + abs(recount.get(cell, (0, 0.0))[1]))
    )
    bad += int(counts.respondents != respondents)
    return {
        "mismatched_cells": bad,
        "cells": len(tallied) + 1,
        "respondents": int(respondents),
    }


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
        raise AssertionError(f"tallies do not match the answers: {check}")
    return survey, {**check, "loaded_now": True, "load_seconds": round(elapsed, 1)}


def sql_loaded_survey(slug: str, body: dict[str, Any], load_sql: str, n: int) -> Any:
    """The survey ``slug`` (``body``, opened) with n submissions inserted by ``load_sql`` (its
    parameters ``%(sid)s`` and ``%(n)s``; published, generated in PostgreSQL from the bench's
    own model); kept between runs and reused while it has n submissions."""
    from django.db import connection, transaction

    from bench import stack
    from surveys.models import Submission, Survey
    from testsupport.factories import make_survey

    survey = Survey.objects.filter(slug=slug).first()
    if survey is not None and Submission.objects.filter(survey=survey).count() == n:
        return survey
    if survey is not None:
        survey.delete()
    survey = make_survey(stack.bench_owner(), body, slug=slug)  # created (spec-checked), opened
    start = time.perf_counter()
    with transaction.atomic(), connection.cursor() as c:
        c.execute("SET LOCAL synchronous_commit = off")
        c.execute(load_sql, {"sid": survey.pk, "n": n})
    with connection.cursor() as c:
        c.execute("ANALYZE surveys_submission")
    print(f"  loaded {n:,} reports in {time.perf_counter() - start:.1f} s")
    return survey
