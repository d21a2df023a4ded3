"""Power for a regression effect (dpcore.local.regression_power; docs/formulas.md#regression-power):
the information against an independent closed form and a numerical Hessian, the power against
scipy's normal and a simulation of the fitted Wald test."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit, logit

from dpcore.errors import ArgumentError
from dpcore.local import regression_power as rp

COIN = {"c": 0.5, "d": 0.25}
CASE = {"pi0": 0.2, "odds_ratio": 2.0, "share": 0.4}


def _saturated_slope_variance(c, d, pi0, odds_ratio, share):
    """With one binary predictor the model is saturated: β̂₁ = logit μ̂(1) − logit μ̂(0), μ̂(x) =
    (p̂(x) − d)/c, so by the delta method n·Var(β̂₁) = Σ_x p(1 − p)/(w_x (c μ(1 − μ))²)."""
    total = 0.0
    for x, w in ((0, 1 - share), (1, share)):
        mu = expit(logit(pi0) + math.log(odds_ratio) * x)
        p = c * mu + d
        total += p * (1 - p) / (w * (c * mu * (1 - mu)) ** 2)
    return total


def test_information_inverse_equals_the_saturated_delta_method():
    (i00, i01), (_, i11) = rp.information(**COIN, **CASE)
    inverse_11 = i00 / (i00 * i11 - i01**2)
    assert inverse_11 == pytest.approx(_saturated_slope_variance(**COIN, **CASE), rel=1e-12)


def test_information_is_minus_the_hessian_of_the_expected_log_likelihood():
    b0, b1 = logit(CASE["pi0"]), math.log(CASE["odds_ratio"])

    def expected_ll(beta):
        total = 0.0
        for x, w in ((0, 1 - CASE["share"]), (1, CASE["share"])):
            true_p = 0.5 * expit(b0 + b1 * x) + 0.25
            p = 0.5 * expit(beta[0] + beta[1] * x) + 0.25
            total += w * (true_p * math.log(p) + (1 - true_p) * math.log(1 - p))
        return total

    h = 1e-4
    hess = np.zeros((2, 2))
    for i in range(2):
        for j in range(2):
            e_i, e_j = np.eye(2)[i] * h, np.eye(2)[j] * h
            b = np.array([b0, b1])
            hess[i, j] = (
                expected_ll(b + e_i + e_j)
                - expected_ll(b + e_i - e_j)
                - expected_ll(b - e_i + e_j)
                + expected_ll(b - e_i - e_j)
            ) / (4 * h * h)
    assert np.allclose(-hess, rp.information(**COIN, **CASE), rtol=1e-5)


def test_power_formula_and_sample_size():
    n = 1500
    se = math.sqrt(_saturated_slope_variance(**COIN, **CASE) / n)
    z = stats.norm.ppf(0.975)
    shift = math.log(2.0) / se
    expected = stats.norm.cdf(shift - z) + stats.norm.cdf(-shift - z)
    assert rp.power(**COIN, **CASE, alpha=0.05, n=n) == pytest.approx(expected, rel=1e-12)
    m = rp.sample_size(**COIN, **CASE, alpha=0.05, target=0.8)
    assert rp.power(**COIN, **CASE, alpha=0.05, n=m) >= 0.8
    assert rp.power(**COIN, **CASE, alpha=0.05, n=m - 1) < 0.8
    # The randomization costs respondents: a direct question (c = 1, d = 0) needs far fewer.
    assert rp.sample_size(c=1.0, d=0.0, **CASE, alpha=0.05, target=0.8) < m / 3


def test_power_matches_a_simulated_wald_test():
    """R = 4 000 simulated surveys at the planned n: the fitted (saturated, closed-form ML)
    Wald test's rejection rate vs the planned power. MC SE = √(0.8·0.2/4000) ≈ 0.0063; allowed
    5 SE plus 0.01 for the normal approximation itself (documented in formulas.md)."""
    rng = np.random.default_rng(20261127)
    n = rp.sample_size(**COIN, **CASE, alpha=0.05, target=0.8)
    planned = rp.power(**COIN, **CASE, alpha=0.05, n=n)
    reps = 4000
    n1 = rng.binomial(n, CASE["share"], reps)
    n0 = n - n1
    b0, b1 = logit(CASE["pi0"]), math.log(CASE["odds_ratio"])
    p0, p1 = 0.5 * expit(b0) + 0.25, 0.5 * expit(b0 + b1) + 0.25
    y0, y1 = rng.binomial(n0, p0), rng.binomial(n1, p1)
    ph0, ph1 = y0 / n0, y1 / n1
    mu0, mu1 = (ph0 - 0.25) / 0.5, (ph1 - 0.25) / 0.5
    ok = (mu0 > 0) & (mu0 < 1) & (mu1 > 0) & (mu1 < 1)
    mu0, mu1 = np.clip(mu0, 1e-9, 1 - 1e-9), np.clip(mu1, 1e-9, 1 - 1e-9)
    slope = logit(mu1) - logit(mu0)
    var = ph0 * (1 - ph0) / (n0 * (0.5 * mu0 * (1 - mu0)) ** 2) + ph1 * (1 - ph1) / (
        n1 * (0.5 * mu1 * (1 - mu1)) ** 2
    )
    rejected = ok & (np.abs(slope) / np.sqrt(var) > stats.norm.ppf(0.975))
    rate = rejected.mean()
    assert abs(rate - planned) < 5 * math.sqrt(planned * (1 - planned) / reps) + 0.01


def test_bad_arguments():
    with pytest.raises(ArgumentError):
        rp.power(**COIN, pi0=0.0, odds_ratio=2.0, share=0.5, alpha=0.05, n=100)
    with pytest.raises(ArgumentError):
        rp.power(**COIN, pi0=0.2, odds_ratio=-1.0, share=0.5, alpha=0.05, n=100)
    with pytest.raises(ArgumentError):
        rp.sample_size(**COIN, pi0=0.2, odds_ratio=1.0, share=0.5, alpha=0.05, target=0.8)


def test_normal_predictor_information_against_adaptive_quadrature():
    from scipy.integrate import quad

    b0, b1 = logit(0.2), math.log(1.5)

    def h(x, a, b):
        mu = expit(b0 + b1 * x)
        p = 0.5 * mu + 0.25
        return stats.norm.pdf(x) * (0.5 * mu * (1 - mu)) ** 2 / (p * (1 - p)) * x**a

    want = [quad(h, -np.inf, np.inf, args=(a, 0), epsabs=1e-14)[0] for a in (0, 1, 2)]
    (i00, i01), (_, i11) = rp.information(**COIN, pi0=0.2, odds_ratio=1.5, share=None)
    assert [i00, i01, i11] == pytest.approx(want, abs=1e-10)


def test_normal_predictor_power_matches_a_simulated_fit():
    """R = 300 simulated surveys, a standard-normal predictor with odds ratio 1.5 per SD at the
    planned n for power 0.8; each fitted by dpcore's ML fit (dpcore.local.regression) and its
    Wald test. MC SE = √(0.8·0.2/300) ≈ 0.023; allowed 5 SE + 0.01 (the approximation)."""
    from dpcore.local.regression import fit_logistic

    rng = np.random.default_rng(11)
    case = {**COIN, "pi0": 0.2, "odds_ratio": 1.5, "share": None, "alpha": 0.05}
    n = rp.sample_size(**case, target=0.8)
    planned = rp.power(**case, n=n)
    reps, rejected = 300, 0
    for _ in range(reps):
        x = rng.normal(size=n)
        trait = rng.random(n) < expit(logit(0.2) + math.log(1.5) * x)
        report = rng.random(n) < 0.5 * trait + 0.25
        fit = fit_logistic(
            np.column_stack([np.ones(n), x]),
            report.astype(float),
            np.ones(n),
            c=0.5,
            d=0.25,
            terms=["(Intercept)", "x"],
        )
        slope = fit.coefficients[1]
        if slope.p_value is not None and slope.p_value < 0.05:
            rejected += 1
    rate = rejected / reps
    assert abs(rate - planned) < 5 * math.sqrt(planned * (1 - planned) / reps) + 0.01, (rate, n)
