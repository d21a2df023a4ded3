"""GET /api/v1/surveys/<slug>/regression/?family=linear (docs/analysis.md#linear-regression):
a number outcome on a category and randomized yes/no predictors, against the independent scipy
likelihood of tests/dpcore/local/test_linear_rr.py; CSV; every 400; the background path."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from tests.dpcore.local.test_linear_rr import reference_fit
from tests.surveys.analysis.support import load_reports

pytestmark = pytest.mark.django_db

# FULL_SURVEY's designs: coin forced response (p_truth ½, p_yes ¼) and mirror Warner p = ¾:
# both c = ½, d = ¼.
C, D = [0.5, 0.5], [0.25, 0.25]


def url(survey, query: str = "") -> str:
    return f"/api/v1/surveys/{survey.slug}/regression/{query}"


def simulated(rng: np.random.Generator, n: int) -> list[dict]:
    """hours = 20 + 5·old + 8·t_coin − 4·t_mirror + N(0, 6²); traits of prevalence 0.3, 0.5."""
    old = rng.random(n) < 0.4
    t = rng.random((n, 2)) < [0.3, 0.5]
    hours = 20 + 5 * old + t @ np.array([8.0, -4.0]) + rng.normal(scale=6.0, size=n)
    reports = rng.random((n, 2)) < np.array(C) * t + np.array(D)
    return [
        {"coin": bool(r[0]), "mirror": bool(r[1]), "age": "old" if o else "young",
         "hours": round(float(h), 2), "party": "a"}
        for r, o, h in zip(reports, old, hours, strict=True)
    ]  # fmt: skip


@pytest.fixture
def loaded(survey):
    answers = simulated(np.random.default_rng(2611), 500)
    answers[0].pop("hours")  # no outcome
    answers[1].pop("mirror")  # a randomized predictor not answered
    load_reports(survey, answers)
    return survey, answers


def test_fit_matches_independent_likelihood(api, loaded) -> None:
    survey, answers = loaded
    r = api.get(url(survey, "?outcome=hours&predictors=age,coin,mirror&family=linear"))
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["family"], body["outcome"], body["design"]) == ("linear", "hours", None)
    assert body["n"] == 498 and body["n_excluded"] == 2
    assert body["converged"] and body["warnings"] == []
    assert [c["term"] for c in body["coefficients"]] == ["(Intercept)", "age=old", "coin", "mirror"]
    assert [entry["key"] for entry in body["latent"]] == ["coin", "mirror"]
    used = answers[2:]
    x = np.array([[1.0, a["age"] == "old"] for a in used], dtype=float)
    y = np.array([a["hours"] for a in used])
    reports = np.array([[a["coin"], a["mirror"]] for a in used], dtype=float)
    theta, loglik, se = reference_fit(x, y, reports, C, D)
    ours = [c["estimate"] for c in body["coefficients"]]
    assert ours == pytest.approx(theta[:4], abs=1e-6)
    assert [c["std_error"] for c in body["coefficients"]] == pytest.approx(se[:4], rel=1e-4)
    assert body["sigma"] == pytest.approx(theta[4], abs=1e-6)
    assert body["log_likelihood"] == pytest.approx(loglik, abs=1e-6)
    for c in body["coefficients"]:
        assert c["ci_low"] < c["estimate"] < c["ci_high"] and c["odds_ratio"] is None


def test_csv_has_sigma(api, loaded) -> None:
    survey, _ = loaded
    query = "?outcome=hours&predictors=coin&family=linear"
    r = api.get(url(survey, query + "&format=csv"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(r.content.decode())))
    assert [row["term"] for row in rows] == ["'(Intercept)", "'coin"]
    body = api.get(url(survey, query)).json()
    assert float(rows[0]["sigma"]) == body["sigma"]
    assert float(rows[1]["estimate"]) == body["coefficients"][1]["estimate"]


def test_without_randomized_predictors_it_is_least_squares(api, loaded) -> None:
    survey, answers = loaded
    body = api.get(url(survey, "?outcome=hours&predictors=age&family=linear")).json()
    used = [a for a in answers if "hours" in a]
    x = np.array([[1.0, a["age"] == "old"] for a in used], dtype=float)
    y = np.array([a["hours"] for a in used])
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    assert [c["estimate"] for c in body["coefficients"]] == pytest.approx(beta, abs=1e-8)
    assert body["latent"] == []


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("?outcome=hours&predictors=coin&family=probit", "family"),
        ("?outcome=coin&predictors=age&family=linear", "outcome"),  # not a number
        ("?outcome=age&predictors=coin&family=linear", "outcome"),
        ("?outcome=nope&predictors=coin&family=linear", "outcome"),
        ("?outcome=hours&predictors=hours&family=linear", "predictors"),
        ("?outcome=hours&predictors=party&family=linear", "predictors"),  # a choice question
        ("?outcome=hours&predictors=nope&family=linear", "predictors"),
        ("?outcome=hours&predictors=coin&family=logistic", "outcome"),  # logistic: yes_no outcome
        ("?outcome=coin&predictors=mirror,party", "predictors"),  # a choice question
        ("?outcome=hours&predictors=mirror", "outcome"),  # logistic: a yes_no outcome
    ],
)
def test_bad_requests_are_400_naming_the_field(api, loaded, query, field) -> None:
    survey, _ = loaded
    r = api.get(url(survey, query))
    assert r.status_code == 400, r.content
    assert field in r.json()["errors"], r.json()


def test_more_than_four_randomized_predictors_is_a_400_naming_predictors(api, alice) -> None:
    from testsupport.factories import make_survey, survey_body

    questions = [{"key": f"q{i}", "text": f"Q{i}?", "kind": "yes_no"} for i in range(5)]
    questions.append({"key": "y", "text": "Y", "kind": "number", "min": 0, "max": 10})
    survey = make_survey(alice, survey_body(questions=questions))
    keys = ",".join(f"q{i}" for i in range(5))
    r = api.get(url(survey, f"?outcome=y&predictors={keys}&family=linear"))
    assert r.status_code == 400
    assert "At most 4" in r.json()["errors"]["predictors"][0]


def test_too_few_respondents(api, survey) -> None:
    load_reports(survey, simulated(np.random.default_rng(0), 12))
    r = api.get(url(survey, "?outcome=hours&predictors=coin,mirror&family=linear"))
    assert r.status_code == 400 and "outcome" in r.json()["errors"]


def test_above_the_sync_limit_a_background_job(api, loaded, settings, monkeypatch):
    from django.core.cache import cache

    from surveys.analysis import regression_jobs as analysis_jobs
    from surveys.tasks import regression_compute

    cache.clear()
    survey, _ = loaded
    settings.DENIABLE_REGRESSION_SYNC_LIMIT = 10
    monkeypatch.setattr(analysis_jobs, "survey_respondent_count", lambda survey: 500)
    queued = []
    monkeypatch.setattr(regression_compute, "delay", lambda *args: queued.append(args))
    query = "?outcome=hours&predictors=coin&family=linear"
    assert api.get(url(survey, query)).status_code == 202
    assert api.get(url(survey, "?outcome=coin&predictors=mirror&family=linear")).status_code == 400
    assert api.get(url(survey, "?outcome=hours&predictors=coin")).status_code == 400
    assert len(queued) == 1 and queued[0][-1] == "linear"
    regression_compute(*queued[0])  # the worker runs it
    done = api.get(url(survey, query))
    assert done.status_code == 200 and done.json()["family"] == "linear"
    settings.DENIABLE_REGRESSION_SYNC_LIMIT = 10**6
    assert done.json() == api.get(url(survey, query)).json()
    cache.clear()


@pytest.mark.parametrize("reported", [False, True])
def test_the_postgresql_columns_equal_the_generic_rows(loaded, monkeypatch, reported) -> None:
    """linear_data's numpy path (PostgreSQL) and its per-row path (other databases) give the
    same rows, terms, baseline and exclusions on the same reports (a missing outcome, a missing
    randomized predictor; reported: coin as a randomized outcome)."""
    from types import SimpleNamespace

    from surveys.analysis import regression_rows

    survey, _ = loaded
    questions = {q.key: q for q in survey.questions.all()}
    outcome = questions["coin" if reported else "hours"]
    direct = [questions["age"]] + ([questions["hours"]] if reported else [])
    latent = [questions["mirror"]] + ([] if reported else [questions["coin"]])

    def sorted_rows(data):
        table = np.column_stack([data.x, data.y, data.reports, data.weight])
        return table[np.lexsort(table.T[::-1])]

    fast = regression_rows.linear_data(survey, outcome, direct, latent, reported=reported)
    monkeypatch.setattr(regression_rows, "connection", SimpleNamespace(vendor="sqlite"))
    slow = regression_rows.linear_data(survey, outcome, direct, latent, reported=reported)
    assert (fast.terms, fast.reference, fast.dropped_levels, fast.n_excluded) == (
        slow.terms, slow.reference, slow.dropped_levels, slow.n_excluded,
    )  # fmt: skip
    assert fast.n_excluded > 0
    np.testing.assert_array_equal(sorted_rows(fast), sorted_rows(slow))
