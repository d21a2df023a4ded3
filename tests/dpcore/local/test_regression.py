"""dpcore.local.regression against an independent computation.

The reference is written here from scratch: a per-respondent (not pooled) negative
log-likelihood of P(report yes) = c·expit(xβ) + d with its own analytic gradient, maximised by
scipy's BFGS to a 1e-12 gradient tolerance; standard errors from a central finite-difference
Hessian of that same function. Simulations use a seeded numpy Generator.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit as scipy_expit

from dpcore.local.regression import fit_logistic


def simulate(rng: np.random.Generator, n: int, c: float, d: float) -> tuple[np.ndarray, np.ndarray]:
    """Respondent-level design matrix (intercept, two dummies of a 3-option category, a number)
    and randomized reports from β = (−1, 0.8, −0.5, 0.03)."""
    cat = rng.integers(0, 3, n)
    age = rng.integers(18, 80, n).astype(float)
    x = np.column_stack([np.ones(n), cat == 1, cat == 2, age]).astype(float)
    truth = rng.random(n) < scipy_expit(x @ np.array([-1.0, 0.8, -0.5, 0.03]))
    report = rng.random(n) < np.where(truth, c + d, d)
    return x, report.astype(float)


def pool(x: np.ndarray, report: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    patterns, inverse = np.unique(x, axis=0, return_inverse=True)
    total = np.bincount(inverse.ravel(), minlength=len(patterns)).astype(float)
    yes = np.bincount(inverse.ravel(), weights=report, minlength=len(patterns))
    return patterns, yes, total


def reference_fit(x: np.ndarray, report: np.ndarray, c: float, d: float):
    def negloglik(beta: np.ndarray) -> float:
        lam = c * scipy_expit(x @ beta) + d
        return -float(np.sum(report * np.log(lam) + (1 - report) * np.log(1 - lam)))

    def gradient(beta: np.ndarray) -> np.ndarray:
        p = scipy_expit(x @ beta)
        lam = c * p + d
        dl = report / lam - (1 - report) / (1 - lam)
        return -x.T @ (dl * c * p * (1 - p))

    # Scale the number column so BFGS is well conditioned; map back afterwards.
    s = np.max(np.abs(x), axis=0)
    xs = x / s
    fun = lambda b: negloglik(b / s)  # noqa: E731
    jac = lambda b: gradient(b / s) / s  # noqa: E731
    res = minimize(
        fun, np.zeros(x.shape[1]), jac=jac, method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000}
    )
    res = minimize(fun, res.x, jac=jac, method="BFGS", options={"gtol": 1e-11, "maxiter": 10_000})
    beta = res.x / s
    h = 1e-4 * np.maximum(np.abs(beta), 0.1)
    k = len(beta)
    hess = np.zeros((k, k))
    for i in range(k):  # central differences of the analytic gradient
        e = np.zeros(k)
        e[i] = h[i]
        hess[:, i] = (gradient(beta + e) - gradient(beta - e)) / (2 * h[i])
    hess = (hess + hess.T) / 2
    del xs
    return beta, np.sqrt(np.diag(np.linalg.inv(hess))), -negloglik(beta)


TERMS = ["(Intercept)", "g=b", "g=c", "age"]


@pytest.mark.parametrize(("c", "d"), [(0.5, 0.25), (0.9, 0.05), (2 * 0.7 - 1, 1 - 0.7)])
def test_agrees_with_independent_scipy_likelihood(c: float, d: float) -> None:
    rng = np.random.default_rng(20261122)
    x, report = simulate(rng, 4000, c, d)
    beta_ref, se_ref, ll_ref = reference_fit(x, report, c, d)
    fit = fit_logistic(*pool(x, report), c=c, d=d, terms=TERMS)
    ours = np.array([co.estimate for co in fit.coefficients])
    assert fit.converged and fit.warnings == ()
    assert np.max(np.abs(ours - beta_ref)) < 1e-6
    assert fit.log_likelihood == pytest.approx(ll_ref, abs=1e-8)
    se = np.array([co.std_error for co in fit.coefficients])
    assert se == pytest.approx(se_ref, rel=1e-4)
    for co in fit.coefficients:
        assert co.z == pytest.approx(co.estimate / co.std_error)
        assert co.p_value == pytest.approx(math.erfc(abs(co.z) / math.sqrt(2)))
        assert co.odds_ratio == pytest.approx(math.exp(co.estimate))
        assert co.ci_low == pytest.approx(co.estimate - 1.959963984540054 * co.std_error)


def test_direct_questioning_is_ordinary_logistic_regression() -> None:
    # c = 1, d = 0: the model is plain logistic regression; compare with the same reference.
    rng = np.random.default_rng(7)
    x, report = simulate(rng, 3000, 1.0, 0.0)
    beta_ref, _, _ = reference_fit(x, report, 1.0, 0.0)
    fit = fit_logistic(*pool(x, report), c=1.0, d=0.0, terms=TERMS)
    assert np.max(np.abs(np.array([co.estimate for co in fit.coefficients]) - beta_ref)) < 1e-6


def test_recovers_truth_on_large_sample() -> None:
    rng = np.random.default_rng(3)
    x, report = simulate(rng, 200_000, 0.5, 0.25)
    fit = fit_logistic(*pool(x, report), c=0.5, d=0.25, terms=TERMS)
    for co, truth in zip(fit.coefficients, [-1.0, 0.8, -0.5, 0.03], strict=True):
        assert abs(co.estimate - truth) < 4 * co.std_error


def test_separation_warns_without_nan() -> None:
    # Group "b" reports yes at a rate (0.8) beyond the coin design's maximum c + d = 0.75.
    x = np.array([[1, 0.0], [1, 1.0]])
    fit = fit_logistic(x, [30, 80], [100, 100], c=0.5, d=0.25, terms=["(Intercept)", "g=b"])
    assert any("boundary" in w for w in fit.warnings)
    assert not fit.converged
    slope = fit.coefficients[1]
    assert slope.estimate is not None and slope.estimate > 5
    assert slope.std_error is None and slope.p_value is None and slope.odds_ratio is None
    assert math.isfinite(fit.log_likelihood)


def test_unobserved_option_is_not_identified() -> None:
    x = np.array([[1, 0.0, 0.0], [1, 1.0, 0.0]])
    fit = fit_logistic(x, [30, 50], [100, 100], c=0.5, d=0.25, terms=["(Intercept)", "g=b", "g=c"])
    assert fit.coefficients[2].estimate is None
    assert any("g=c: not identified" in w for w in fit.warnings)
    assert fit.coefficients[1].std_error is not None


def test_bad_shapes_raise_value_error() -> None:
    with pytest.raises(ValueError):
        fit_logistic([[1.0]], [1, 2], [3, 4], c=0.5, d=0.25, terms=["(Intercept)"])
    with pytest.raises(ValueError):
        fit_logistic([[1.0]], [0], [0], c=0.5, d=0.25, terms=["(Intercept)"])
