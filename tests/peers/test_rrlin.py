"""Linear regression with randomized predictors against ``RRreg::RRlin`` (fixture of
tests/peers/make_fixtures.R: n = 2000, a number outcome on a direct number ``x`` and two
randomized yes/no predictors, Warner p = 0.8 and forced response (0.6, 0.3, 0.1)).

Deniable's side is ``dpcore.local.linear_rr.fit_linear_rr``, the function ``family=linear`` of
the regression API calls (surveys/analysis/linear_regression.py), one row per respondent (the
API's pooled rows with weights give the same likelihood), the designs' (c, d) from the specs.

Tolerances: RRlin maximises the same log-likelihood (its ``RRlin.ll``, normal constant included)
with ``optim``'s L-BFGS-B at its default ``factr`` (relative reduction ≈ 2e-9 of −ℓ ≈ 6600), so
it stops about 1e-4 short in the flattest direction (measured: intercept 8.3e-5, the others
≤ 3.3e-5; σ 2e-7) — and our ℓ is higher than RRlin's (by 3e-6), which is the side the gap must
be on. RRlin's ``vcov`` inverts optim's Hessian in (β, σ, π): SEs relative 1e-4 (measured
≤ 4.6e-5). RRlin's π is the four shares of (rw, rf) = 0:0, 0:1, 1:0, 1:1; Deniable reports
each trait's margin.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpcore.local.designs import design_from_spec
from dpcore.local.linear_rr import fit_linear_rr
from tests.peers.fixture import load


def test_linear_fit_equals_rrlin() -> None:
    fixture = load("rrlin_two_predictors")
    peer = fixture["peer"]
    designs = [design_from_spec(spec) for spec in fixture["designs"]]
    y = np.array(fixture["y"])
    fit = fit_linear_rr(
        np.column_stack([np.ones(len(y)), fixture["x"]]),
        y,
        np.column_stack([fixture["rw"], fixture["rf"]]),
        c=[d.c for d in designs],
        d=[d.d for d in designs],
        terms=["(Intercept)", "x"],
        latent_terms=["rw", "rf"],
    )
    assert fit.converged and not fit.warnings and peer["convergence"] == 0
    ours = {co.term: co for co in fit.coefficients}
    assert sorted(ours) == sorted(peer["terms"])
    se = dict(zip(peer["vcov_names"], peer["se"], strict=True))
    for term, value in zip(peer["terms"], peer["beta"], strict=True):
        assert ours[term].estimate == pytest.approx(value, abs=2e-4), term
        assert ours[term].std_error == pytest.approx(se[term], rel=1e-4), term
    assert fit.sigma == pytest.approx(peer["sigma"], abs=1e-5)
    assert fit.sigma_std_error == pytest.approx(se["sigma"], rel=1e-4)
    shares = dict(zip(peer["pi_names"], peer["pi"], strict=True))
    margins = (shares["1:0"] + shares["1:1"], shares["0:1"] + shares["1:1"])
    assert fit.prevalence == pytest.approx(margins, abs=1e-4)
    assert peer["log_lik"] <= fit.log_likelihood <= peer["log_lik"] + 1e-4
