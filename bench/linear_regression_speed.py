"""Issue 26 item 2: ``family=linear`` regression server time at 10⁵ respondents (quick: 10⁴).

Survey: a number outcome ``y``, a category predictor (3 options), a number predictor (whole ages
18–90) and two randomized yes/no predictors (forced response ½/¼/¼ and Warner p = ¾). Reports
are generated inside PostgreSQL from a known linear model (``generate_series``; the outcome
rounded to 2 decimals, so nearly every respondent is a pattern of its own), published (sealed).
Server time is what ``GET …/regression/?family=linear`` runs in-process: ``survey_get_for_user``
+ ``survey_regression`` (one ``GROUP BY`` over the reports' JSON documents, EM then Newton over
the 4 latent states), median of 5; the fit alone is timed too. Goal: ≤ 1 s at 10⁵.

Run with its own database: ``BENCH_DB=<db> python -m bench.linear_regression_speed [--quick]``
(the database is migrated first).
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "linear_regression_speed"
DESCRIPTION = "Linear regression with randomized predictors: server time at 10⁵ respondents"
TRUTH = {"(Intercept)": 10.0, "g=b": 2.0, "g=c": 4.0, "age": 0.1, "t1": 5.0, "t2": -3.0}
SIGMA = 4.0
PREDICTORS = ("g", "age", "t1", "t2")
BODY: dict[str, Any] = {
    "title": "Bench: linear regression",
    "questions": [
        {"key": "y", "text": "Amount", "kind": "number", "min": -1000, "max": 1000},
        {"key": "g", "text": "Group", "kind": "category", "options": ["a", "b", "c"]},
        {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 90},
        {"key": "t1", "text": "Trait 1?", "kind": "yes_no"},
        {
            "key": "t2",
            "text": "Trait 2?",
            "kind": "yes_no",
            "design": {"name": "warner", "p": 0.75},
        },
    ],
}

# t1 prevalence 0.3, t2 0.6; y = 10 + 2·b + 4·c + 0.1·age + 5·t1 − 3·t2 + N(0, 4²) (Box–Muller).
LOAD_SQL = """
INSERT INTO surveys_submission
  (id, survey_id, randomizer, submitted_on, fingerprint, sealed, answers)
SELECT gen_random_uuid(), %(sid)s, 'browser', current_date, md5(s.i::text) || md5(s.i::text), true,
  jsonb_build_object(
    'y', round((10 + 2 * (v.g = 1)::int + 4 * (v.g = 2)::int + 0.1 * v.age + 5 * t.t1::int
                - 3 * t.t2::int + 4 * sqrt(-2 * ln(1 - u.u1)) * cos(2 * pi() * u.u2))::numeric, 2),
    'g', (ARRAY['a','b','c'])[v.g + 1], 'age', v.age,
    't1', CASE WHEN u.coin < 0.5 THEN t.t1 WHEN u.coin < 0.75 THEN true ELSE false END,
    't2', CASE WHEN u.w < 0.75 THEN t.t2 ELSE NOT t.t2 END)
FROM generate_series(1, %(n)s) s(i),
  LATERAL (SELECT floor(random() * 3)::int AS g, 18 + floor(random() * 73)::int AS age
           WHERE s.i IS NOT NULL) v,
  LATERAL (SELECT random() < 0.3 AS t1, random() < 0.6 AS t2 WHERE s.i IS NOT NULL) t,
  LATERAL (SELECT random() AS u1, random() AS u2, random() AS coin, random() AS w
           WHERE s.i IS NOT NULL) u
"""


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _survey(n: int) -> Any:
    from bench.bulkload import sql_loaded_survey

    return sql_loaded_survey(f"bench-linreg-n{n}", BODY, LOAD_SQL, n)


def _server_time(slug: str) -> tuple[float, float, dict[str, Any]]:
    """Wall and CPU seconds of the endpoint's work, and its body."""
    from surveys import selectors
    from surveys.analysis import regression as analysis

    start, cpu = time.perf_counter(), time.process_time()
    survey = selectors.survey_get_for_user(user=stack.bench_owner(), slug=slug, need="view")
    body = analysis.survey_regression(
        survey=survey, outcome="y", predictors=PREDICTORS, confidence=0.95, family="linear"
    )
    return time.perf_counter() - start, time.process_time() - cpu, body


def _fit_time(slug: str) -> tuple[float, int]:
    from dpcore.local.linear_rr import fit_linear_rr
    from surveys.analysis import linear_regression as linear
    from surveys.analysis.regression import _question_map
    from surveys.analysis.regression_rows import linear_data
    from surveys.definitions import question_designs as designs
    from surveys.models import Survey

    survey = Survey.objects.get(slug=slug)
    out_q, direct, latent = linear.validate_linear(_question_map(survey), "y", PREDICTORS)
    data = linear_data(survey, out_q, direct, latent)
    shapes = [designs.question_design(q) for q in latent]
    start = time.perf_counter()
    fit_linear_rr(data.x, data.y, data.reports, c=[s.c for s in shapes],
                  d=[s.d for s in shapes], terms=data.terms, latent_terms=data.latent_terms,
                  weight=data.weight)  # fmt: skip
    return time.perf_counter() - start, len(data.y)


def run(quick: bool) -> dict[str, Any]:
    stack.django_setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    n = 10_000 if quick else 100_000
    survey = _survey(n)
    walls, cpus, body = [], [], {}
    for _ in range(5):
        wall, cpu, body = _server_time(survey.slug)
        walls.append(wall)
        cpus.append(cpu)
    fit_seconds, patterns = _fit_time(survey.slug)
    median = statistics.median(walls)
    z = {
        c["term"]: round((c["estimate"] - TRUTH[c["term"]]) / c["std_error"], 2)
        for c in body["coefficients"]
    }
    result = {"n": n, "patterns": patterns, "median_s": median, "runs_s": walls,
              "cpu_median_s": statistics.median(cpus), "fit_s": fit_seconds,
              "iterations": body["iterations"], "goal_s": 1.0, "sigma": body["sigma"],
              "z_estimate_minus_truth": z}  # fmt: skip
    row = [
        f"{n:,}",
        patterns,
        f"{median:.3f}",
        f"{statistics.median(cpus):.3f}",
        f"{fit_seconds:.3f}",
        body["iterations"],
        "≤ 1",
        "yes" if median <= 1.0 else "NO",
    ]
    print(markdown_table(["respondents", "patterns", "server s (median)", "CPU s", "fit s",
                          "iterations", "goal s", "met"], [row]))  # fmt: skip
    print("(estimate − truth)/SE:", z, "σ̂ =", round(body["sigma"], 3), "(truth", SIGMA, ")")
    return result


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
