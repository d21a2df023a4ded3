"""GET /api/v1/surveys/<slug>/regression/ (family logistic) with a randomized yes/no predictor
(docs/analysis.md#randomized-predictors), against the independent scipy likelihood of
tests/dpcore/local/test_latent_logistic.py."""

from __future__ import annotations

import numpy as np
import pytest

from tests.surveys.analysis.support import load_reports
from tests.surveys.analysis.test_linear_regression import url

pytestmark = pytest.mark.django_db


def test_a_randomized_predictor_of_a_logistic_fit(api, survey) -> None:
    """family=logistic, outcome coin on age and the latent trait of mirror (both c = ½, d = ¼):
    equal to the independent likelihood of tests/dpcore/local/test_latent_logistic.py."""
    from scipy.special import expit

    from tests.dpcore.local.test_latent_logistic import reference_fit as logistic_reference

    rng = np.random.default_rng(2612)
    n = 1200
    old = rng.random(n) < 0.4
    t = rng.random(n) < 0.4
    trait = rng.random(n) < expit(-0.5 + 0.6 * old + 1.2 * t)
    coin = rng.random(n) < np.where(trait, 0.75, 0.25)
    mirror = rng.random(n) < np.where(t, 0.75, 0.25)
    answers = [
        {"coin": bool(c), "mirror": bool(m), "age": "old" if o else "young", "party": "a"}
        for c, m, o in zip(coin, mirror, old, strict=True)
    ]
    load_reports(survey, answers)
    r = api.get(url(survey, "?outcome=coin&predictors=age,mirror"))
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["family"] == "logistic" and body["design"]["name"] == "forced_response"
    assert [c["term"] for c in body["coefficients"]] == ["(Intercept)", "age=old", "mirror"]
    assert [entry["key"] for entry in body["latent"]] == ["mirror"]
    x = np.column_stack([np.ones(n), old]).astype(float)
    theta, loglik, se = logistic_reference(
        x, coin.astype(float), mirror.astype(float)[:, None], [0.5], [0.25]
    )
    assert [c["estimate"] for c in body["coefficients"]] == pytest.approx(theta[:3], abs=1e-6)
    assert [c["std_error"] for c in body["coefficients"]] == pytest.approx(se[:3], rel=1e-4)
    assert body["log_likelihood"] == pytest.approx(loglik, abs=1e-6)
    assert body["coefficients"][2]["odds_ratio"] == pytest.approx(
        np.exp(body["coefficients"][2]["estimate"])
    )
