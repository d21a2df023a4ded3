"""Logistic regression of a randomized (latent) trait on covariates, by maximum likelihood.

Pure (numpy + stdlib). Formulas and sources: docs/formulas.md#rr-regression.

A respondent with covariates ``x`` has the trait with probability ``p(x) = expit(xᵀβ)``; the
design reports "yes" with probability ``λ = c·p + d`` (docs/formulas.md#linear-form). This is
the model of ``rr::rrreg`` (Blair, Imai & Zhou 2015, JASA 110:1304) and ``RRreg::RRlog`` (van den
Hout, van der Heijden & Gilchrist 2007; Heck & Moshagen 2018). Respondents sharing a covariate
pattern ``j`` are pooled: ``y_j`` "yes" reports out of ``n_j``, and the log-likelihood is

    ℓ(β) = Σ_j y_j ln λ_j + (n_j − y_j) ln(1 − λ_j),     λ_j = c·expit(x_jᵀβ) + d

(the per-respondent Bernoulli log-likelihood, no binomial coefficients, as ``RRlog``'s
``logLik()`` reports; ``rrreg`` returns none, and its ``vcov()`` is the outer-product variance,
not the observed information used here). With ``p = expit(η)``, ``w = dλ/dη = c·p(1 − p)``
and ``r = y/λ − (n − y)/(1 − λ)``:

    score            U = Xᵀ (r·w)
    observed info    J = Xᵀ diag[(y/λ² + (n − y)/(1 − λ)²)·w² − r·w·(1 − 2p)] X
    expected info    I = Xᵀ diag[n·w²/(λ(1 − λ))] X

Newton–Raphson (observed information) when J is positive definite, Fisher scoring otherwise,
with step halving so that ℓ never decreases. Standard errors are ``√diag(J⁻¹)`` at the MLE;
Wald intervals ``β ± z·SE``, ``z = β/SE``, two-sided ``p = erfc(|z|/√2)``, odds ratio ``e^β``.
Number columns are centred and scaled while fitting (β and its covariance are mapped back
exactly), so the units of a predictor do not affect convergence.

Failure modes give warnings and ``None`` fields, never NaN, ∞ or an exception:

* a column not identified by the data (an option nobody chose, collinear predictors) is
  dropped: its term gets ``estimate=None`` and a warning;
* a boundary fit (the likelihood keeps rising as a coefficient runs off to ±∞ — separation, or
  a pattern whose report rate is at or beyond what the design can produce, c + d or d): the
  diverging terms are found in the ORIGINAL parametrisation — patterns with |η| > 12 are at the
  boundary, and β_k diverges unless e_k lies in the row space of the other (interior) patterns'
  rows. Only those terms keep their (large, iteration-dependent) estimate without SE, interval,
  z, p or odds ratio; the others get the MLE and ``√diag(J⁻¹)`` of the interior patterns'
  model — the diverging effect fixed at its limit, where the boundary patterns' likelihood is
  a constant, so ℓ's supremum over the identified terms is that model's maximum (R's
  ``rrreg``/``RRlog`` report the same values at their large final iterate). When no term is
  identified apart from the diverging ones (separation along a number), no term gets an SE;
* no convergence within ``max_iter``: ``converged=False`` and a warning.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpcore.stats import z_value

FloatArray = npt.NDArray[np.float64]

__all__ = ["Coefficient", "RegressionFit", "fit_logistic"]

BOUNDARY_COEFFICIENT = 10.0  # |β| on the standardized scale: odds ratio e¹⁰ ≈ 22 000 per SD
# |η| of a pattern at the boundary: a stalled fit leaves it near 30 (ℓ's gain, ≈ n·e^η, below
# 1e-13·|ℓ|), an interior pattern's η = logit of an estimable share is far inside (p = 6e-6).
BOUNDARY_ETA = 12.0
NOT_PD = "the observed information is not positive definite: no standard errors"
_STEP_TOL = 1e-10
_LOGLIK_TOL = 1e-13


@dataclass(frozen=True)
class Coefficient:
    term: str
    estimate: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    z: float | None
    p_value: float | None
    odds_ratio: float | None


@dataclass(frozen=True)
class RegressionFit:
    n: int
    log_likelihood: float
    converged: bool
    iterations: int
    confidence: float
    coefficients: tuple[Coefficient, ...]
    warnings: tuple[str, ...]


def _expit_pair(eta: FloatArray) -> tuple[FloatArray, FloatArray]:
    """``(expit(η), expit(−η))`` without overflow, each accurate in its own tail."""
    e = np.exp(-np.abs(eta))
    small = e / (1.0 + e)
    large = 1.0 / (1.0 + e)
    positive = eta >= 0.0
    return np.where(positive, large, small), np.where(positive, small, large)


class _Model:
    """ℓ and its derivatives for pooled patterns (module docstring)."""

    def __init__(self, x: FloatArray, yes: FloatArray, total: FloatArray, c: float, d: float):
        self.x, self.yes, self.no = x, yes, total - yes
        self.total, self.c, self.d, self.e = total, c, d, 1.0 - c - d

    def parts(self, beta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        p, q = _expit_pair(self.x @ beta)
        lam = self.c * p + self.d
        mu = self.c * q + self.e  # 1 − λ, without cancellation
        return p, q, lam, mu

    def loglik(self, beta: FloatArray) -> float:
        _, _, lam, mu = self.parts(beta)
        with np.errstate(divide="ignore"):
            yes_part = np.where(self.yes > 0.0, self.yes * np.log(lam), 0.0)
            no_part = np.where(self.no > 0.0, self.no * np.log(mu), 0.0)
        return float(np.sum(yes_part + no_part))

    def derivatives(self, beta: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
        """Score, observed information, expected information."""
        p, q, lam, mu = self.parts(beta)
        lam = np.maximum(lam, 1e-300)
        mu = np.maximum(mu, 1e-300)
        w = self.c * p * q
        r = self.yes / lam - self.no / mu
        score = self.x.T @ (r * w)
        curvature = (self.yes / lam**2 + self.no / mu**2) * w * w - r * w * (q - p)  # 1 − 2p
        observed = self.x.T @ (curvature[:, None] * self.x)
        expected = self.x.T @ ((self.total * w * w / (lam * mu))[:, None] * self.x)
        return score, observed, expected


def _solve_pd(matrix: FloatArray, vector: FloatArray) -> FloatArray | None:
    """``matrix⁻¹·vector`` if ``matrix`` is (numerically) positive definite, else None."""
    try:
        chol = np.linalg.cholesky(matrix)
    except np.linalg.LinAlgError:
        return None
    return np.asarray(np.linalg.solve(chol.T, np.linalg.solve(chol, vector)), dtype=np.float64)


def _newton(model: _Model, beta: FloatArray, max_iter: int) -> tuple[FloatArray, bool, int, bool]:
    """Maximise ℓ; returns ``(β, converged, iterations, stalled)``. ``stalled``: ℓ stopped
    rising while β kept moving (a boundary fit)."""
    current = model.loglik(beta)
    flat = 0
    for iteration in range(1, max_iter + 1):
        score, observed, expected = model.derivatives(beta)
        step = _solve_pd(observed, score)
        if step is None:
            step = _solve_pd(expected + 1e-12 * np.eye(len(beta)), score)
        if step is None:
            return beta, False, iteration, False
        scale = 1.0
        while True:
            trial = beta + scale * step
            value = model.loglik(trial)
            if value >= current - 1e-12 * abs(current) or scale < 1e-10:
                break
            scale /= 2.0
        gain = value - current
        beta, current = trial, value
        if float(np.max(np.abs(scale * step))) < _STEP_TOL:
            return beta, True, iteration, False
        flat = flat + 1 if gain <= _LOGLIK_TOL * (1.0 + abs(current)) else 0
        if flat >= 5 and float(np.max(np.abs(beta))) > BOUNDARY_COEFFICIENT:
            return beta, False, iteration, True
    return beta, False, max_iter, False


def _identified_columns(x: FloatArray) -> list[int]:
    """Greedy: keep a column when it raises the rank (the intercept, column 0, first)."""
    kept: list[int] = []
    for j in range(x.shape[1]):
        candidate = [*kept, j]
        if np.linalg.matrix_rank(x[:, candidate]) == len(candidate):
            kept = candidate
    return kept


def _standardize(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Centre and scale the non-intercept columns; returns ``(X', A)`` with ``β = A β'``."""
    k = x.shape[1]
    mean = x[:, 1:].mean(axis=0) if k > 1 else np.zeros(0)
    sd = x[:, 1:].std(axis=0) if k > 1 else np.ones(0)
    sd = np.where(sd > 0.0, sd, 1.0)
    scaled = x.copy()
    scaled[:, 1:] = (x[:, 1:] - mean) / sd
    transform = np.eye(k)
    transform[1:, 1:] = np.diag(1.0 / sd)
    transform[0, 1:] = -mean / sd
    return scaled, transform


def _start(yes: FloatArray, total: FloatArray, c: float, d: float, k: int) -> FloatArray:
    """β = (logit π̂, 0, …) with π̂ the overall estimate kept inside (0.02, 0.98)."""
    rate = float(yes.sum() / total.sum())
    pi = min(max((rate - d) / c, 0.02), 0.98)
    beta = np.zeros(k)
    beta[0] = math.log(pi / (1.0 - pi))
    return beta


def _coefficient(term: str, beta: float, se: float | None, z_crit: float) -> Coefficient:
    if se is None or not math.isfinite(se) or se <= 0.0:
        return Coefficient(term, beta, None, None, None, None, None, None)
    z = beta / se
    odds = math.exp(beta) if beta < 700.0 else None
    p = math.erfc(abs(z) / math.sqrt(2.0))
    return Coefficient(term, beta, se, beta - z_crit * se, beta + z_crit * se, z, p, odds)


def _fit(
    x: FloatArray, y: FloatArray, n: FloatArray, c: float, d: float, max_iter: int
) -> tuple[_Model, FloatArray, FloatArray, bool, int, bool]:
    """Newton on the centred, scaled columns: ``(model, β', A, converged, iterations, stalled)``
    with ``β = A β'`` in the original parametrisation."""
    scaled, transform = _standardize(x)
    model = _Model(scaled, y, n, c, d)
    beta_s, converged, iterations, stalled = _newton(
        model, _start(y, n, c, d, x.shape[1]), max_iter
    )
    return model, beta_s, transform, converged, iterations, stalled


def _covariance(model: _Model, beta_s: FloatArray, transform: FloatArray) -> FloatArray | None:
    """``A J⁻¹ Aᵀ``: the inverse observed information in the original parametrisation."""
    _, observed, _ = model.derivatives(beta_s)
    inverse = _solve_pd(observed, np.eye(len(beta_s)))
    return None if inverse is None else transform @ inverse @ transform.T


def _diverging_terms(
    x: FloatArray, eta: FloatArray
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]]:
    """Which patterns sit at the boundary, which terms run off to ±∞ (module docstring).

    A pattern is at the boundary when its fitted η is beyond ±``BOUNDARY_ETA`` (a single
    pattern's own rate may still exceed d: a few respondents of a level that diverges as a
    whole). A term β_k stays identified by the other (interior) patterns I when e_k lies in
    the row space of X_I — the likelihood of I depends on β only through X_I β, so β_k is then
    fixed by η_I; otherwise some direction of X_I's null space moves β_k, and that is where β
    runs off. Computed on the original columns (scaled per column only, which keeps row-space
    membership)."""
    interior = np.abs(eta) <= BOUNDARY_ETA
    x_in = x[interior]
    if not x_in.shape[0]:
        return interior, np.ones(x.shape[1], dtype=bool)
    scale = np.max(np.abs(x), axis=0)
    scale = np.where(scale > 0.0, scale, 1.0)
    unit = x_in / scale
    null_projector = np.eye(x.shape[1]) - np.linalg.pinv(unit) @ unit
    return interior, np.diag(null_projector) > 1e-9


def _regular(beta_s: FloatArray) -> bool:
    return not bool(np.any(np.abs(beta_s) > BOUNDARY_COEFFICIENT))


def _inference(
    fitted: tuple[_Model, FloatArray, FloatArray, bool, int, bool],
    x: FloatArray,
    y: FloatArray,
    n: FloatArray,
    names: Sequence[str],
    max_iter: int,
) -> tuple[FloatArray, FloatArray | None, npt.NDArray[np.bool_], list[str]]:
    """``(β, covariance, diverging, warnings)`` in the original parametrisation.

    An ordinary fit: β and ``A J⁻¹ Aᵀ``. A boundary fit (ℓ still rising while β runs off):
    the diverging terms are found per term in the original parametrisation
    (:func:`_diverging_terms`; the centred, scaled coefficients would blame the intercept too,
    as centring mixes a dummy's divergence into it). Their effect is fixed at its limit, where
    the boundary patterns' likelihood, y·ln d + (n − y)·ln(1 − d) (or its mirror at c + d),
    no longer depends on β: ℓ's supremum is the maximum of the interior patterns' likelihood,
    a regular model with a finite MLE. The identified terms get that MLE and the inverse of
    its observed information (the observed information restricted to the identified terms at
    the boundary); only the diverging terms lose their SE."""
    model, beta_s, transform, converged, _, stalled = fitted
    beta = transform @ beta_s
    none = np.zeros(len(names), dtype=bool)
    interior, diverging = _diverging_terms(x, x @ beta)
    # A large centred coefficient alone is no boundary: only a term diverging in the original
    # parametrisation is (the old check blamed the intercept for a dummy's divergence).
    if not stalled and (_regular(beta_s) or (converged and not diverging.any())):
        covariance = _covariance(model, beta_s, transform)
        if covariance is None:
            return beta, None, none, [NOT_PD]
        return beta, covariance, none, []
    c, d = model.c, model.d
    named = diverging if diverging.any() else ~none  # stalled before any η passed the cut
    flagged = ", ".join(names[int(i)] for i in np.flatnonzero(named))
    runs, gets = ("runs", "gets") if int(named.sum()) == 1 else ("run", "get")
    warning = (
        f"boundary fit (separation): the likelihood keeps rising as {flagged} {runs} off to ±∞ — "
        "some covariate pattern's report rate is at or beyond what the design can produce"
    )
    if diverging.any() and not diverging.all():
        x_in = x[interior]
        columns = _identified_columns(x_in)
        reduced = _fit(x_in[:, columns], y[interior], n[interior], c, d, max_iter)
        if reduced[3] and not reduced[5] and _regular(reduced[1]):
            gamma = reduced[2] @ reduced[1]
            cov_gamma = _covariance(reduced[0], reduced[1], reduced[2])
            if cov_gamma is not None:
                lift = np.linalg.pinv(x_in) @ x_in[:, columns]  # β_k = (lift·γ)_k, k identified
                beta = np.where(diverging, beta, lift @ gamma)
                covariance = lift @ cov_gamma @ lift.T
                return (
                    beta,
                    covariance,
                    diverging,
                    [
                        f"{warning}; {flagged} {gets} no standard error, the other terms' are "
                        "those of the model with that effect fixed at its limit "
                        "(docs/formulas.md#rr-regression)"
                    ],
                )
    return (
        beta,
        None,
        np.ones(len(names), dtype=bool),
        [f"{warning}; those estimates are not finite, so this model gets no standard errors"],
    )


def fit_logistic(
    x: npt.ArrayLike,
    yes: npt.ArrayLike,
    total: npt.ArrayLike,
    *,
    c: float,
    d: float,
    terms: Sequence[str],
    confidence: float = 0.95,
    max_iter: int = 100,
) -> RegressionFit:
    """Fit ``P(report yes | x) = c·expit(xᵀβ) + d`` to pooled patterns.

    ``x``: (m, k) pattern matrix whose first column is the intercept (all ones); ``yes``,
    ``total``: "yes" reports and respondents per pattern; ``terms``: k names. Needs
    ``0 < c ≤ 1``, ``d ≥ 0``, ``c + d ≤ 1``, ``0 < confidence < 1``; raises ``ValueError`` only
    for inputs of the wrong shape or no respondents.
    """
    xm = np.asarray(x, dtype=np.float64)
    y = np.asarray(yes, dtype=np.float64)
    n = np.asarray(total, dtype=np.float64)
    rows = (xm.shape[0],) if xm.ndim == 2 else (-1,)
    if xm.ndim != 2 or xm.shape[1] != len(terms) or y.shape != rows or n.shape != rows:
        raise ValueError("x must be (patterns, terms) with yes/total per pattern")
    if n.sum() <= 0:
        raise ValueError("no respondents")
    used = n > 0
    xm, y, n = xm[used], y[used], n[used]
    kept = _identified_columns(xm)
    warnings = [
        f"{terms[j]}: not identified by the data (no respondents with this value, or collinear "
        "with other terms); left out of the model"
        for j in range(len(terms))
        if j not in kept
    ]
    fitted = _fit(xm[:, kept], y, n, c, d, max_iter)
    model, beta_s, _, converged, iterations, stalled = fitted
    beta, covariance, boundary, problems = _inference(
        fitted, xm[:, kept], y, n, [terms[j] for j in kept], max_iter
    )
    warnings.extend(problems)
    converged = converged and not boundary.any()  # a flat likelihood at ±∞ is no optimum
    if not converged and not stalled and not boundary.any():
        warnings.append(f"did not converge in {max_iter} iterations")
    z_crit = z_value(confidence)
    by_column: dict[int, Coefficient] = {}
    for i, j in enumerate(kept):
        se = None
        if covariance is not None and not boundary[i]:
            se = math.sqrt(max(float(covariance[i, i]), 0.0))
        by_column[j] = _coefficient(terms[j], float(beta[i]), se, z_crit)
    coefficients = tuple(
        by_column.get(j, Coefficient(terms[j], None, None, None, None, None, None, None))
        for j in range(len(terms))
    )
    return RegressionFit(
        n=int(n.sum()),
        log_likelihood=model.loglik(beta_s),
        converged=converged,
        iterations=iterations,
        confidence=confidence,
        coefficients=coefficients,
        warnings=tuple(warnings),
    )
