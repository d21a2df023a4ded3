"""dpcore.local.latent_logistic against an independent computation: the per-respondent negative
log-likelihood written here from scratch (explicit loop over the latent states, scipy's expit,
the shares as free logits), maximised by scipy's BFGS with a finite-difference Newton polish;
SEs from its finite-difference Hessian (tests/dpcore/local/test_linear_rr.py's helpers)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit, logsumexp

from dpcore.local.latent_logistic import fit_latent_logistic
from tests.dpcore.local.test_linear_rr import _gradient, _hessian

TERMS = ["(Intercept)", "x1", "g=b"]
C_Y, D_Y = 0.5, 0.25


def simulate(rng, n, c, d, gamma, prevalence, beta=(-0.5, 0.6, -0.4)):
    x = np.column_stack([np.ones(n), rng.normal(size=n), rng.random(n) < 0.5]).astype(float)
    t = (rng.random((n, len(gamma))) < prevalence).astype(float)
    trait = rng.random(n) < expit(x @ np.array(beta) + t @ np.array(gamma))
    yes = (rng.random(n) < np.where(trait, C_Y + D_Y, D_Y)).astype(float)
    reports = (rng.random(t.shape) < np.asarray(c) * t + np.asarray(d)).astype(float)
    return x, yes, reports


def reference_fit(x, yes, reports, c, d):
    m = reports.shape[1]
    k = x.shape[1]
    states = list(itertools.product((0, 1), repeat=m))

    def negloglik(theta):
        beta, gamma = theta[:k], theta[k : k + m]
        free = np.concatenate(([0.0], theta[k + m :]))
        log_share = free - logsumexp(free)
        rows = []
        for index, s in enumerate(states):
            p_r = np.ones(len(yes))
            for j in range(m):
                p = c[j] * s[j] + d[j]
                p_r *= np.where(reports[:, j] == 1.0, p, 1.0 - p)
            lam = C_Y * expit(x @ beta + float(np.dot(s, gamma))) + D_Y
            rows.append(
                np.log(p_r) + log_share[index] + np.where(yes == 1.0, np.log(lam), np.log(1 - lam))
            )
        return -float(np.sum(logsumexp(np.vstack(rows), axis=0)))

    start = np.zeros(k + m + len(states) - 1)
    result = minimize(negloglik, start, method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000})
    theta = result.x
    for _ in range(3):
        theta = theta - np.linalg.solve(_hessian(negloglik, theta), _gradient(negloglik, theta))
    return theta, -negloglik(theta), np.sqrt(np.diag(np.linalg.inv(_hessian(negloglik, theta))))


@pytest.mark.parametrize(
    ("c", "d", "gamma", "prevalence"),
    [([0.5], [0.25], [1.2], [0.4]), ([0.5, -0.4], [0.25, 0.7], [1.0, -0.8], [0.4, 0.5])],
)
def test_equals_an_independent_maximum_likelihood_fit(c, d, gamma, prevalence):
    x, yes, reports = simulate(np.random.default_rng(8), 1500, c, d, gamma, prevalence)
    latent = [f"t{j}" for j in range(len(c))]
    fit = fit_latent_logistic(
        x, yes, reports, c=C_Y, d=D_Y, predictor_c=c, predictor_d=d, terms=TERMS,
        latent_terms=latent,
    )  # fmt: skip
    theta, loglik, se = reference_fit(x, yes, reports, c, d)
    assert fit.converged and fit.warnings == ()
    k = len(TERMS) + len(c)
    assert [co.estimate for co in fit.coefficients] == pytest.approx(theta[:k], abs=1e-6)
    assert [co.std_error for co in fit.coefficients] == pytest.approx(se[:k], rel=1e-4)
    assert fit.log_likelihood == pytest.approx(loglik, abs=1e-6)


def test_recovers_the_simulated_parameters():
    """n = 40 000, one randomized predictor: each of the 4 estimates within 5 SE of the truth
    (|Z| > 5 has probability 5.7e-7 each, < 2.3e-6 for all four by the union bound)."""
    beta, gamma = (-0.5, 0.6, -0.4), (1.2,)
    x, yes, reports = simulate(np.random.default_rng(26), 40_000, [0.5], [0.25], gamma, [0.4], beta)
    fit = fit_latent_logistic(
        x, yes, reports, c=C_Y, d=D_Y, predictor_c=[0.5], predictor_d=[0.25], terms=TERMS,
        latent_terms=["t"],
    )  # fmt: skip
    for co, truth in zip(fit.coefficients, (*beta, *gamma), strict=True):
        assert abs(co.estimate - truth) < 5 * co.std_error, co
    assert fit.prevalence[0] == pytest.approx(0.4, abs=0.05)


def test_refuses_no_randomized_predictor():
    with pytest.raises(ValueError, match="between 1 and 4"):
        fit_latent_logistic(
            np.ones((5, 1)), np.zeros(5), np.zeros((5, 0)), c=0.5, d=0.25, predictor_c=[],
            predictor_d=[], terms=["(Intercept)"], latent_terms=[],
        )  # fmt: skip


def test_a_boundary_fit_warns_and_gives_no_standard_errors():
    """Every outcome report "yes": a rate of 1, beyond c + d = ¾, so the intercept runs off."""
    x, _, reports = simulate(np.random.default_rng(9), 500, [0.5], [0.25], [1.0], [0.4])
    fit = fit_latent_logistic(
        x, np.ones(500), reports, c=C_Y, d=D_Y, predictor_c=[0.5], predictor_d=[0.25],
        terms=TERMS, latent_terms=["t"],
    )  # fmt: skip
    assert not fit.converged
    assert any("boundary fit" in w for w in fit.warnings)
    assert all(co.std_error is None and co.p_value is None for co in fit.coefficients)
