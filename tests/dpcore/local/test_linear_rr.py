"""dpcore.local.linear_rr against an independent computation.

The reference is written here from scratch: the per-respondent negative log-likelihood of
y = xβ + tγ + ε with t seen through its reports, summed over the latent states with an explicit
Python loop and scipy.stats.norm, the latent shares as free logits of their own (not the module's
softmax), maximised by scipy's BFGS; standard errors from a central finite-difference Hessian of
that same function (β, γ, σ are the same parameters whatever π's parametrisation, so their
inverse-information block is too). Simulations use a seeded numpy Generator.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import logsumexp
from scipy.stats import norm

from dpcore.local.linear_rr import fit_linear_rr

TERMS = ["(Intercept)", "x1", "g=b", "g=c"]


def simulate(rng, n, c, d, gamma, prevalence, beta=(1.0, 0.5, -0.3, 0.2), sigma=0.8):
    x1 = rng.normal(size=n)
    g = rng.integers(0, 3, n)
    x = np.column_stack([np.ones(n), x1, g == 1, g == 2]).astype(float)
    t = (rng.random((n, len(gamma))) < prevalence).astype(float)
    y = x @ np.array(beta) + t @ np.array(gamma) + rng.normal(scale=sigma, size=n)
    reports = (rng.random(t.shape) < np.asarray(c) * t + np.asarray(d)).astype(float)
    return x, y, reports


def reference_negloglik(x, y, reports, c, d):
    m = reports.shape[1]
    states = list(itertools.product((0, 1), repeat=m))
    k = x.shape[1]

    def negloglik(theta):
        beta, gamma, sigma = theta[:k], theta[k : k + m], theta[k + m]
        if sigma <= 0:
            return np.inf
        free = np.concatenate(([0.0], theta[k + m + 1 :]))
        log_share = free - logsumexp(free)
        terms = []
        for s_index, s in enumerate(states):
            p_report = np.ones(len(y))
            for j in range(m):
                p_yes = c[j] * s[j] + d[j]
                p_report *= np.where(reports[:, j] == 1.0, p_yes, 1.0 - p_yes)
            mean = x @ beta + float(np.dot(s, gamma))
            terms.append(
                np.log(p_report) + log_share[s_index] + norm.logpdf(y, loc=mean, scale=sigma)
            )
        return -float(np.sum(logsumexp(np.vstack(terms), axis=0)))

    return negloglik, k + m + 1 + len(states) - 1


def _hessian(f, theta, h=1e-4):
    p = len(theta)
    hess = np.zeros((p, p))
    for i in range(p):
        for j in range(p):
            ei, ej = np.eye(p)[i] * h, np.eye(p)[j] * h
            hess[i, j] = (
                f(theta + ei + ej) - f(theta + ei - ej) - f(theta - ei + ej) + f(theta - ei - ej)
            ) / (4 * h * h)
    return hess


def _gradient(f, theta, h=1e-5):
    return np.array([(f(theta + e) - f(theta - e)) / (2 * h) for e in np.eye(len(theta)) * h])


def reference_fit(x, y, reports, c, d):
    """BFGS, then three Newton steps on central finite differences (BFGS alone stops ~1e-6 short
    along the flat directions of a mixture); SEs from the finite-difference Hessian."""
    negloglik, p = reference_negloglik(x, y, reports, c, d)
    start = np.zeros(p)
    start[0] = y.mean()
    start[x.shape[1] + reports.shape[1]] = y.std()
    result = minimize(negloglik, start, method="BFGS", options={"gtol": 1e-9, "maxiter": 10_000})
    theta = result.x
    for _ in range(3):
        theta = theta - np.linalg.solve(_hessian(negloglik, theta), _gradient(negloglik, theta))
    return theta, -negloglik(theta), np.sqrt(np.diag(np.linalg.inv(_hessian(negloglik, theta))))


@pytest.mark.parametrize(
    ("c", "d", "gamma", "prevalence"),
    [
        ([0.5], [0.25], [1.5], [0.3]),  # forced response
        ([-0.4], [0.7], [-1.0], [0.6]),  # Warner, p = 0.3: c = 2p − 1 < 0
        ([0.5, 0.6], [0.25, 0.1], [1.5, -0.7], [0.3, 0.6]),  # two randomized predictors
    ],
)
def test_equals_an_independent_maximum_likelihood_fit(c, d, gamma, prevalence):
    rng = np.random.default_rng(7)
    x, y, reports = simulate(rng, 600, c, d, gamma, prevalence)
    latent = [f"t{j}" for j in range(len(c))]
    fit = fit_linear_rr(x, y, reports, c=c, d=d, terms=TERMS, latent_terms=latent)
    theta, loglik, se = reference_fit(x, y, reports, c, d)
    assert fit.converged and fit.warnings == ()
    k = len(TERMS) + len(c)
    assert [co.estimate for co in fit.coefficients] == pytest.approx(theta[:k], abs=1e-6)
    assert fit.sigma == pytest.approx(theta[k], abs=1e-6)
    assert fit.log_likelihood == pytest.approx(loglik, abs=1e-6)
    # Finite-difference Hessian: relative error ~ 1e-16·|ℓ|/h² ≈ 1e-5 at h = 1e-4.
    assert [co.std_error for co in fit.coefficients] == pytest.approx(se[:k], rel=1e-4)
    assert fit.sigma_std_error == pytest.approx(se[k], rel=1e-4)


def test_recovers_the_simulated_parameters():
    """n = 20 000, two randomized predictors: each of the 7 estimates (β, γ, σ) within 5 of its
    SEs of the truth. |Z| > 5 has probability 5.7e-7 per estimate, < 4e-6 for all seven (union
    bound) — an honest test that fails when the model or its SEs are wrong."""
    rng = np.random.default_rng(2026)
    truth_beta, truth_gamma, truth_sigma = (1.0, 0.5, -0.3, 0.2), (1.5, -0.7), 0.8
    c, d = [0.5, 0.6], [0.25, 0.1]
    x, y, reports = simulate(rng, 20_000, c, d, truth_gamma, [0.3, 0.6], truth_beta, truth_sigma)
    fit = fit_linear_rr(x, y, reports, c=c, d=d, terms=TERMS, latent_terms=["t0", "t1"])
    for co, truth in zip(fit.coefficients, (*truth_beta, *truth_gamma), strict=True):
        assert abs(co.estimate - truth) < 5 * co.std_error, co
    assert abs(fit.sigma - truth_sigma) < 5 * fit.sigma_std_error
    assert fit.prevalence == pytest.approx([0.3, 0.6], abs=0.05)


def test_frequency_weights_equal_repeated_rows():
    rng = np.random.default_rng(3)
    x, y, reports = simulate(rng, 300, [0.5], [0.25], [1.0], [0.4])
    twice = fit_linear_rr(
        np.vstack([x, x]), np.concatenate([y, y]), np.vstack([reports, reports]),
        c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"],
    )  # fmt: skip
    weighted = fit_linear_rr(
        x, y, reports, c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"], weight=np.full(300, 2.0)
    )
    assert weighted.n == twice.n == 600
    for a, b in zip(weighted.coefficients, twice.coefficients, strict=True):
        assert a.estimate == pytest.approx(b.estimate, abs=1e-8)
        assert a.std_error == pytest.approx(b.std_error, rel=1e-8)
    assert weighted.log_likelihood == pytest.approx(twice.log_likelihood, rel=1e-10)


def test_a_column_nobody_has_is_left_out_with_a_warning():
    rng = np.random.default_rng(4)
    x, y, reports = simulate(rng, 400, [0.5], [0.25], [1.0], [0.4])
    x[:, 3] = 0.0  # nobody in level c
    fit = fit_linear_rr(x, y, reports, c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"])
    assert fit.coefficients[3].estimate is None
    assert any(w.startswith("g=c: not identified") for w in fit.warnings)
    assert all(co.std_error is not None for i, co in enumerate(fit.coefficients) if i != 3)


def test_the_scale_of_y_does_not_matter():
    rng = np.random.default_rng(5)
    x, y, reports = simulate(rng, 500, [0.5], [0.25], [1.0], [0.4])
    small = fit_linear_rr(x, y, reports, c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"])
    big = fit_linear_rr(
        x, 1000.0 * y + 5e4, reports, c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"]
    )
    for i, (a, b) in enumerate(zip(small.coefficients, big.coefficients, strict=True)):
        shift = 5e4 if i == 0 else 0.0
        assert b.estimate == pytest.approx(1000.0 * a.estimate + shift, rel=1e-7)
        assert b.std_error == pytest.approx(1000.0 * a.std_error, rel=1e-6)
    assert big.log_likelihood == pytest.approx(small.log_likelihood - 500 * math.log(1000.0))


def test_without_randomized_predictors_it_is_least_squares():
    """m = 0: β is the least-squares fit, σ² = RSS/n (ML), SE(β) = √diag(σ²(XᵀX)⁻¹), SE(σ) =
    σ/√(2n), ℓ = −n/2·(ln 2πσ² + 1) — the closed forms of the normal linear model's MLE."""
    rng = np.random.default_rng(6)
    x, y, _ = simulate(rng, 300, [0.5], [0.25], [1.0], [0.4])
    fit = fit_linear_rr(x, y, np.zeros((300, 0)), c=[], d=[], terms=TERMS, latent_terms=[])
    beta = np.linalg.lstsq(x, y, rcond=None)[0]
    s2 = float(np.sum((y - x @ beta) ** 2)) / 300
    assert [co.estimate for co in fit.coefficients] == pytest.approx(beta, abs=1e-9)
    se = np.sqrt(np.diag(s2 * np.linalg.inv(x.T @ x)))
    assert [co.std_error for co in fit.coefficients] == pytest.approx(se, rel=1e-9)
    assert fit.sigma == pytest.approx(math.sqrt(s2), rel=1e-9)
    assert fit.sigma_std_error == pytest.approx(math.sqrt(s2 / 600), rel=1e-9)
    assert fit.log_likelihood == pytest.approx(-150 * (math.log(2 * math.pi * s2) + 1), rel=1e-12)


def test_refuses_more_than_four_randomized_predictors():
    x = np.ones((10, 1))
    with pytest.raises(ValueError, match="at most 4"):
        fit_linear_rr(
            x, np.zeros(10), np.zeros((10, 5)), c=[0.5] * 5, d=[0.25] * 5,
            terms=["(Intercept)"], latent_terms=[f"t{j}" for j in range(5)],
        )  # fmt: skip


R_FIT = r"""
d <- read.csv(commandArgs(TRUE)[1])
x <- as.matrix(d[, c("i", "x1", "gb", "gc")]); y <- d$y; r <- as.matrix(d[, c("r1", "r2")])
cc <- c(0.5, 0.6); dd <- c(0.25, 0.1)
states <- as.matrix(expand.grid(t1 = 0:1, t2 = 0:1))
# P(report | state), one column per state: the product over the two questions.
pr <- sapply(seq_len(nrow(states)), function(s) {
  yes <- cc * states[s, ] + dd
  (r[, 1] * yes[1] + (1 - r[, 1]) * (1 - yes[1])) * (r[, 2] * yes[2] + (1 - r[, 2]) * (1 - yes[2]))
})
nll <- function(th) {
  beta <- th[1:4]; gamma <- th[5:6]; sigma <- exp(th[7])
  share <- exp(c(0, th[8:10])); share <- share / sum(share)
  dens <- sapply(seq_len(nrow(states)), function(s)
    dnorm(y, drop(x %*% beta) + sum(states[s, ] * gamma), sigma))
  -sum(log(rowSums(pr * dens * matrix(share, nrow(x), 4, byrow = TRUE))))
}
start <- c(mean(y), 0, 0, 0, 0, 0, log(sd(y)), 0, 0, 0)
fit <- optim(start, nll, method = "BFGS", control = list(maxit = 10000, reltol = 1e-15))
fit <- nlm(nll, fit$par, gradtol = 1e-10, steptol = 1e-12, iterlim = 1000)
h <- optimHess(fit$estimate, nll)
se <- sqrt(diag(solve(h)))
cat(sprintf("%.17g", fit$estimate), "\n", sprintf("%.17g", se), "\n")
cat(sprintf("%.17g", -fit$minimum), "\n")
"""


def test_base_r_optim_on_the_same_likelihood(tmp_path):
    """R's RRreg is not installable here (no CRAN): the likelihood written in base R (2 × 2
    latent states, dnorm), maximised by optim's BFGS then nlm, SEs from optimHess (numerical
    differences of a numerical gradient, hence 1e-4 relative). Needs R (CI installs it)."""
    import shutil
    import subprocess

    from testsupport.services import require_service

    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    c, d = [0.5, 0.6], [0.25, 0.1]
    x, y, reports = simulate(np.random.default_rng(11), 600, c, d, [1.5, -0.7], [0.3, 0.6])
    data = tmp_path / "data.csv"
    rows = ["i,x1,gb,gc,y,r1,r2"] + [
        ",".join(repr(float(v)) for v in (*row, yy, *rr))
        for row, yy, rr in zip(x, y, reports, strict=True)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    script = tmp_path / "fit.R"
    script.write_text(R_FIT, encoding="utf-8")
    done = subprocess.run(
        ["Rscript", "--vanilla", str(script), str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    theta_r, se_r, loglik_r = (np.array(s.split(), dtype=float) for s in done.stdout.splitlines())
    fit = fit_linear_rr(x, y, reports, c=c, d=d, terms=TERMS, latent_terms=["t1", "t2"])
    # Seen: estimates within 5e-9, SEs within 1.5e-6 relative, ℓ within 3e-13.
    assert [co.estimate for co in fit.coefficients] == pytest.approx(theta_r[:6], abs=1e-6)
    assert [co.std_error for co in fit.coefficients] == pytest.approx(se_r[:6], rel=1e-4)
    assert fit.sigma == pytest.approx(np.exp(theta_r[6]), abs=1e-6)
    assert fit.log_likelihood == pytest.approx(loglik_r[0], abs=1e-7)


@pytest.mark.parametrize("exact", ["constant", "function of x"])
def test_an_exactly_fitted_outcome_warns_without_standard_errors(exact):
    """σ → 0 makes ℓ unbounded: no MLE, so no SE and converged is false (never NaN)."""
    rng = np.random.default_rng(12)
    x, _, reports = simulate(rng, 200, [0.5], [0.25], [1.0], [0.4])
    y = np.full(200, 3.0) if exact == "constant" else x @ np.array([1.0, 2.0, 0.5, -1.0])
    fit = fit_linear_rr(x, y, reports, c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"])
    assert not fit.converged
    assert any("fitted exactly" in w for w in fit.warnings)
    assert all(co.std_error is None for co in fit.coefficients) and fit.sigma_std_error is None
    assert all(math.isfinite(v) for v in (fit.log_likelihood, fit.sigma))


def test_reports_beyond_what_the_design_can_produce_stop_at_the_edge():
    """Every report "yes" (rate 1 > c + d = ¾): π̂ runs to 1, the fit stops there at once (no
    200 iterations of a likelihood still creeping up) and says the model is at its edge."""
    rng = np.random.default_rng(13)
    x, y, _ = simulate(rng, 300, [0.5], [0.25], [1.0], [0.4])
    fit = fit_linear_rr(x, y, np.ones((300, 1)), c=[0.5], d=[0.25], terms=TERMS, latent_terms=["t"])
    assert not fit.converged and fit.iterations < 200
    assert any("near 0" in w for w in fit.warnings)
    assert not any("did not converge" in w for w in fit.warnings)
