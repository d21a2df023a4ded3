"""Issue 14: regression server time at 10⁵ and 10⁶ respondents (quick: 10⁴ and 10⁵).

Survey: a coin-design yes/no outcome, three category predictors (3, 2 and 4 options) and one
number predictor (whole ages 18–90). Reports are generated inside PostgreSQL from a known
logistic model (``generate_series``; no rows cross the wire), published (sealed). Server time
is what ``GET …/regression/`` runs in-process: ``survey_get_for_user`` + ``survey_regression``
(one ``GROUP BY`` over the reports' JSON documents, pooling, Newton fit), median of repeats;
the fit alone (``fit_logistic`` on the pooled patterns) is timed too, median of 5. Goal: ≤ 1 s
at 10⁵, ≤ 10 s at 10⁶.

Run with its own database: ``BENCH_DB=<db> python -m bench.regression_speed [--quick]`` (the
database is migrated first; the surveys are kept between runs as ``bench-reg-n<N>``).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "regression_speed"
DESCRIPTION = "Regression (GET …/regression/) server time at 10⁵/10⁶ respondents (PostgreSQL)"
TRUE_BETA = {"(Intercept)": -1.5, "g=b": 0.5, "g=c": 1.0, "r=south": -0.7, "h=x2": 0.3,
             "h=x3": 0.0, "h=x4": -0.4, "age": 0.02}  # fmt: skip
PREDICTORS = ("g", "r", "h", "age")
BODY: dict[str, Any] = {
    "title": "Bench: regression",
    "questions": [
        {"key": "y", "text": "Trait?", "kind": "yes_no"},
        {"key": "g", "text": "Group", "kind": "category", "options": ["a", "b", "c"]},
        {"key": "r", "text": "Region", "kind": "category", "options": ["north", "south"]},
        {"key": "h", "text": "H", "kind": "category", "options": ["x1", "x2", "x3", "x4"]},
        {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 90},
    ],
}

LOAD_SQL = """
INSERT INTO surveys_submission
  (id, survey_id, randomizer, submitted_on, fingerprint, sealed, answers)
SELECT gen_random_uuid(), %(sid)s, 'browser', current_date, md5(s.i::text) || md5(s.i::text), true,
  jsonb_build_object('y', CASE WHEN u.coin < 0.5 THEN t.trait WHEN u.coin < 0.75 THEN true
                               ELSE false END,
                     'g', (ARRAY['a','b','c'])[v.g + 1], 'r', (ARRAY['north','south'])[v.r + 1],
                     'h', (ARRAY['x1','x2','x3','x4'])[v.h + 1], 'age', v.age::float8)
FROM generate_series(1, %(n)s) s(i),
  LATERAL (SELECT floor(random() * 3)::int AS g, floor(random() * 2)::int AS r,
                  floor(random() * 4)::int AS h, 18 + floor(random() * 73)::int AS age
           WHERE s.i IS NOT NULL) v,
  LATERAL (SELECT random() < 1 / (1 + exp(-(-1.5 + 0.5 * (v.g = 1)::int + 1.0 * (v.g = 2)::int
                  - 0.7 * v.r + 0.3 * (v.h = 1)::int - 0.4 * (v.h = 3)::int + 0.02 * v.age)))
                  AS trait WHERE s.i IS NOT NULL) t,
  LATERAL (SELECT random() AS coin WHERE s.i IS NOT NULL) u
"""


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _survey(n: int) -> Any:
    from bench.bulkload import sql_loaded_survey

    return sql_loaded_survey(f"bench-reg-n{n}", BODY, LOAD_SQL, n)


def _server_time(slug: str) -> tuple[float, dict[str, Any]]:
    from surveys import selectors
    from surveys.analysis import regression as analysis

    start = time.perf_counter()
    survey = selectors.survey_get_for_user(user=stack.bench_owner(), slug=slug, need="view")
    body = analysis.survey_regression(
        survey=survey, outcome="y", predictors=PREDICTORS, confidence=0.95
    )
    return time.perf_counter() - start, body


def _fit_time(slug: str) -> tuple[float, int]:
    from dpcore.local.regression import fit_logistic
    from surveys.analysis import regression as analysis
    from surveys.analysis.regression_rows import regression_data
    from surveys.definitions import question_designs as designs
    from surveys.models import Survey

    survey = Survey.objects.get(slug=slug)
    out_q, preds = analysis._validate(analysis._question_map(survey), "y", list(PREDICTORS))
    data = regression_data(survey, out_q, preds)  # the GROUP BY and the pooling, not timed
    design = designs.question_design(out_q)
    timings = []
    for _ in range(5):  # one fit is ~10 ms: a single timing is at the mercy of the machine's load
        start = time.perf_counter()
        fit_logistic(data.x, data.yes, data.total, c=design.c, d=design.d, terms=data.terms)
        timings.append(time.perf_counter() - start)
    return statistics.median(timings), len(data.x)


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()  # created if missing, migrated
    stack.django_setup()
    sizes = (10_000, 100_000) if quick else (100_000, 1_000_000)
    rows, results = [], {}
    for n in sizes:
        survey = _survey(n)
        repeats = 5 if n <= 100_000 else 3
        timings: list[float] = []
        body: dict[str, Any] = {}
        for _ in range(repeats):
            seconds, body = _server_time(survey.slug)
            timings.append(seconds)
        fit_seconds, patterns = _fit_time(survey.slug)
        median = statistics.median(timings)
        goal = 1.0 if n <= 100_000 else 10.0
        errors = {
            c["term"]: round(c["estimate"] - TRUE_BETA[c["term"]], 4) for c in body["coefficients"]
        }
        results[str(n)] = {"median_s": median, "runs_s": timings, "fit_s": fit_seconds,
                           "patterns": patterns, "iterations": body["iterations"],
                           "goal_s": goal, "estimate_minus_truth": errors}  # fmt: skip
        rows.append([f"{n:,}", patterns, f"{median:.3f}", f"{min(timings):.3f}",
                     f"{fit_seconds * 1000:.1f}", body["iterations"], f"≤ {goal:g}",
                     "yes" if median <= goal else "NO"])  # fmt: skip
    print(markdown_table(["respondents", "patterns", "server s (median)", "min s", "fit ms",
                          "iterations", "goal s", "met"], rows))  # fmt: skip
    print("estimate − truth:", {n: r["estimate_minus_truth"] for n, r in results.items()})
    return results


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
