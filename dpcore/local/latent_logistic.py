"""Logistic regression of a randomized trait on randomized yes/no predictors (their latent
traits) and direct covariates, by maximum likelihood.

Pure (numpy + stdlib). Formulas and sources: docs/formulas.md#rr-latent-logistic.

The outcome's trait u has ``P(u = 1 | x, t) = expit(xᵀβ + tᵀγ)`` and is reported through its
design, ``λ = c·expit(η) + d``; the predictors' traits t ∈ {0, 1}^m have a constant joint share π
(as in :mod:`dpcore.local.linear_rr`, ``RRlin``'s assumption) and are reported through theirs;
all reports are independent given the traits. One respondent (report y of the outcome, r of the
predictors):

    L_i = Σ_s P(r_i | s)·π_s·λ_is^y (1 − λ_is)^(1−y),     λ_is = c·expit(x_iᵀβ + sᵀγ) + d

Parameters θ = (β, γ, α), π = softmax(0, α). With p = expit(η), w = c·p(1 − p),
ρ = y/λ − (1 − y)/(1 − λ), the state's score in η is a = ρ·w and its curvature
h = −(y/λ² + (1 − y)/(1 − λ)²)·w² + ρ·w·(1 − 2p). With z_s = [x; s], g_is = (a z_s, δ_s − π) and
posterior weights w_is, the score is Σ_i Σ_s w_is g_is and the observed information (Louis 1982)
J = −Σ_i [Σ_s w_is (h z zᵀ ⊕ −(diag π − ππᵀ) + g gᵀ) − ḡ_i ḡ_iᵀ]. Newton on J with step halving,
Levenberg–Marquardt damping where J is not positive definite; SEs √diag(J⁻¹). No boundary
analysis as in :mod:`dpcore.local.regression`: a fit that runs off (|β| > 30) or does not
converge says so in a warning, with no standard errors.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import product

import numpy as np
import numpy.typing as npt

from dpcore.stats import z_value

from .regression import Coefficient, _expit_pair, _identified_columns

FloatArray = npt.NDArray[np.float64]

__all__ = ["LatentLogisticFit", "fit_latent_logistic"]

MAX_LATENT = 4
RUNAWAY = 30.0  # |coefficient| beyond which the fit is called a boundary fit
_TOL = 1e-10


@dataclass(frozen=True)
class LatentLogisticFit:
    n: int
    log_likelihood: float
    converged: bool
    iterations: int
    confidence: float
    prevalence: tuple[float, ...]
    coefficients: tuple[Coefficient, ...]
    warnings: tuple[str, ...]


class _Model:
    def __init__(
        self,
        x: FloatArray,
        yes: FloatArray,
        reports: FloatArray,
        weight: FloatArray,
        outcome: tuple[float, float],
        c: FloatArray,
        d: FloatArray,
    ) -> None:
        self.x, self.xt, self.yes, self.weight = x, np.ascontiguousarray(x.T), yes, weight
        self.c, self.d = outcome
        self.k, self.m = x.shape[1], reports.shape[1]
        self.states = np.array(list(product((0.0, 1.0), repeat=self.m)), dtype=np.float64)
        self.ns = self.states.shape[0]
        p_yes = self.states * c + d
        with np.errstate(divide="ignore"):
            self.log_pr = np.log(p_yes) @ reports.T + np.log(1.0 - p_yes) @ (1.0 - reports).T
        self.n_params = self.k + self.m + self.ns - 1

    def split(self, theta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        k, m = self.k, self.m
        alpha = np.concatenate(([0.0], theta[k + m :]))
        pi = np.exp(alpha - alpha.max())
        return theta[:k], theta[k : k + m], pi / pi.sum()

    def _state(self, eta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """``(ln P(y | η), a, h, ...)`` per respondent for one state (module docstring)."""
        p, q = _expit_pair(eta)
        lam = np.maximum(self.c * p + self.d, 1e-300)
        mu = np.maximum(self.c * q + (1.0 - self.c - self.d), 1e-300)  # 1 − λ
        y = self.yes
        log_p = np.where(y > 0.5, np.log(lam), np.log(mu))
        w = self.c * p * q
        rho = y / lam - (1.0 - y) / mu
        a = rho * w
        h = -(y / lam**2 + (1.0 - y) / mu**2) * w * w + rho * w * (q - p)
        return log_p, a, h, p

    def evaluate(
        self, theta: FloatArray, derivatives: bool
    ) -> tuple[float, FloatArray | None, FloatArray | None]:
        beta, gamma, pi = self.split(theta)
        base = self.x @ beta
        parts = [self._state(base + float(self.states[s] @ gamma)) for s in range(self.ns)]
        with np.errstate(divide="ignore"):
            log_pi = np.log(pi)
        log_f = np.vstack([parts[s][0] for s in range(self.ns)]) + self.log_pr + log_pi[:, None]
        top = log_f.max(axis=0)
        f = np.exp(log_f - top)
        total = f.sum(axis=0)
        loglik = float(np.sum(self.weight * (np.log(total) + top)))
        if not derivatives:
            return loglik, None, None
        w = f / total
        k, m, p = self.k, self.m, self.n_params
        km = k + m
        xt, wt = self.xt, self.weight
        mean_g = np.zeros((p, xt.shape[1]))
        second = np.zeros((p, p))
        for s in range(self.ns):
            state = self.states[s]
            _, a, h, _ = parts[s]
            ws = w[s]
            v = wt * ws
            delta = -pi[1:].copy()
            if s > 0:
                delta[s - 1] += 1.0
            mean_g[:k] += (ws * a) * xt
            mean_g[k:km] += np.outer(state, ws * a)
            mean_g[km:] += np.outer(delta, ws)
            q = v * (h + a * a)  # h z zᵀ + a² z zᵀ
            xq = xt @ (q * xt).T
            xs = np.outer(xt @ q, state)
            second[:k, :k] += xq
            second[:k, k:km] += xs
            second[k:km, :k] += xs.T
            second[k:km, k:km] += float(q.sum()) * np.outer(state, state)
            va = v * a
            za = np.concatenate((xt @ va, float(va.sum()) * state))
            second[:km, km:] += np.outer(za, delta)
            second[km:, :km] += np.outer(delta, za)
            second[km:, km:] += float(v.sum()) * np.outer(delta, delta)
        share = pi[1:]
        second[km:, km:] -= float(wt.sum()) * (np.diag(share) - np.outer(share, share))
        score = mean_g @ wt
        observed = -(second - mean_g @ (wt * mean_g).T)
        return loglik, score, observed


def _solve(matrix: FloatArray, vector: FloatArray) -> FloatArray | None:
    try:
        chol = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return None
    return np.asarray(np.linalg.solve(chol.T, np.linalg.solve(chol, vector)), dtype=np.float64)


def _maximise(model: _Model, theta: FloatArray, max_iter: int) -> tuple[FloatArray, bool, int]:
    current = model.evaluate(theta, False)[0]
    for iteration in range(1, max_iter + 1):
        _, score, observed = model.evaluate(theta, True)
        assert score is not None and observed is not None
        damping = 0.0
        step = _solve(observed, score)
        while step is None:  # Levenberg–Marquardt: J + μ·diag(|J|) until positive definite
            damping = max(1e-6, damping * 10.0)
            step = _solve(observed + damping * np.diag(np.abs(np.diag(observed)) + 1.0), score)
        scale = 1.0
        while True:
            trial = theta + scale * step
            value = model.evaluate(trial, False)[0]
            if value >= current - 1e-12 * abs(current) or scale < 1e-10:
                break
            scale /= 2.0
        theta, current = trial, value
        if damping == 0.0 and float(np.max(np.abs(scale * step))) < _TOL:
            return theta, True, iteration
        if float(np.max(np.abs(theta))) > 4 * RUNAWAY or float(model.split(theta)[2].min()) < 1e-10:
            return theta, False, iteration  # a coefficient or π runs to the edge: no optimum
    return theta, False, max_iter


def _start(
    yes: FloatArray, reports: FloatArray, weight: FloatArray, model: _Model, cv: FloatArray,
    dv: FloatArray,
) -> FloatArray:  # fmt: skip
    """β = (logit π̂_y, 0, …), γ = 0, π as if the predictors' traits were independent."""
    total = float(weight.sum())
    rate = float(np.sum(weight * yes)) / total
    pi_y = min(max((rate - model.d) / model.c, 0.05), 0.95)
    prevalence = np.clip((weight @ reports / total - dv) / cv, 0.05, 0.95)
    shares = np.prod(np.where(model.states == 1.0, prevalence, 1.0 - prevalence), axis=1)
    theta = np.zeros(model.n_params)
    theta[0] = math.log(pi_y / (1.0 - pi_y))
    theta[model.k + model.m :] = np.log(shares[1:] / shares[0])
    return theta


def _covariance(
    observed: FloatArray, estimates: FloatArray, converged: bool, iterations: int
) -> tuple[FloatArray | None, list[str]]:
    """``(J⁻¹, warnings)``; no covariance for a boundary fit, no convergence, or a J that is not
    positive definite."""
    if bool(np.any(np.abs(estimates) > RUNAWAY)):
        return None, [
            "boundary fit: a coefficient runs off to ±∞ (some covariate pattern's report rate is "
            "at or beyond what the design can produce); no standard errors"
        ]
    if not converged:
        return None, [f"no optimum found in {iterations} iterations; no standard errors"]
    if _solve(observed, np.ones(observed.shape[0])) is None:
        return None, ["the observed information is not positive definite: no standard errors"]
    return np.asarray(np.linalg.inv(observed), dtype=np.float64), []


def _coefficient(term: str, value: float, se: float | None, z_crit: float) -> Coefficient:
    if se is None:
        return Coefficient(term, value, None, None, None, None, None, None)
    odds = math.exp(value) if value < 700.0 else None
    p = math.erfc(abs(value / se) / math.sqrt(2.0))
    return Coefficient(
        term, value, se, value - z_crit * se, value + z_crit * se, value / se, p, odds
    )


def fit_latent_logistic(
    x: npt.ArrayLike,
    yes: npt.ArrayLike,
    reports: npt.ArrayLike,
    *,
    c: float,
    d: float,
    predictor_c: Sequence[float],
    predictor_d: Sequence[float],
    terms: Sequence[str],
    latent_terms: Sequence[str],
    weight: npt.ArrayLike | None = None,
    confidence: float = 0.95,
    max_iter: int = 200,
) -> LatentLogisticFit:
    """Fit the module's model. ``x`` (n, k), intercept first; ``yes`` the outcome's reports
    (0/1); ``reports`` (n, m) the predictors' reports, 1 ≤ m ≤ 4; (``c``, ``d``) the outcome's
    design, ``predictor_c[j] ≠ 0``, ``predictor_d[j]`` the predictors'; ``weight`` frequency
    weights. Raises ``ValueError`` for wrong shapes or m outside 1…4."""
    xm = np.asarray(x, dtype=np.float64)
    yv = np.asarray(yes, dtype=np.float64)
    rm = np.asarray(reports, dtype=np.float64)
    n = yv.shape[0] if yv.ndim == 1 else -1
    wv = np.ones(max(n, 0)) if weight is None else np.asarray(weight, dtype=np.float64)
    if xm.ndim != 2 or rm.ndim != 2 or xm.shape[0] != n or rm.shape[0] != n or wv.shape != (n,):
        raise ValueError("x (n, k), yes (n,), reports (n, m) and weight (n,) must agree")
    if xm.shape[1] != len(terms) or rm.shape[1] != len(latent_terms):
        raise ValueError("one name per column of x and of reports")
    if not 1 <= rm.shape[1] <= MAX_LATENT:
        raise ValueError(f"between 1 and {MAX_LATENT} randomized predictors")
    cv = np.asarray(predictor_c, dtype=np.float64)
    dv = np.asarray(predictor_d, dtype=np.float64)
    if cv.shape != (rm.shape[1],) or dv.shape != cv.shape or np.any(cv == 0.0) or c == 0.0:
        raise ValueError("one design (c ≠ 0, d) per randomized question")
    keep = wv > 0
    xm, yv, rm, wv = xm[keep], yv[keep], rm[keep], wv[keep]
    if not xm.shape[0]:
        raise ValueError("no respondents")
    kept = _identified_columns(xm)
    warnings = [
        f"{terms[j]}: not identified by the data (no respondents with this value, or collinear "
        "with other terms); left out of the model"
        for j in range(len(terms))
        if j not in kept
    ]
    xm = xm[:, kept]
    model = _Model(xm, yv, rm, wv, (c, d), cv, dv)
    theta, converged, iterations = _maximise(model, _start(yv, rm, wv, model, cv, dv), max_iter)
    loglik, _, observed = model.evaluate(theta, True)
    assert observed is not None
    beta, gamma, pi = model.split(theta)
    estimates = np.concatenate((beta, gamma))
    covariance, problems = _covariance(observed, estimates, converged, iterations)
    converged = converged and not bool(np.any(np.abs(estimates) > RUNAWAY))  # ±∞: no optimum
    warnings.extend(problems)
    if float(pi.min()) < 1e-6:
        warnings.append(
            "a combination of the randomized predictors' traits has an estimated share near 0: "
            "the model is at the edge of its parameter space and its standard errors are unreliable"
        )
    z_crit = z_value(confidence)
    by_term: dict[str, Coefficient] = {}
    for i, term in enumerate([*(terms[j] for j in kept), *latent_terms]):
        se = None
        if covariance is not None and covariance[i, i] > 0.0:
            se = math.sqrt(float(covariance[i, i]))
        by_term[term] = _coefficient(term, float(estimates[i]), se, z_crit)
    none = (None,) * 7
    return LatentLogisticFit(
        n=round(float(wv.sum())),
        log_likelihood=loglik,
        converged=converged,
        iterations=iterations,
        confidence=confidence,
        prevalence=tuple(float(v) for v in pi @ model.states),
        coefficients=tuple(by_term.get(t, Coefficient(t, *none)) for t in [*terms, *latent_terms]),
        warnings=tuple(warnings),
    )
