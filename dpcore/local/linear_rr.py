"""Linear regression with randomized yes/no predictors (the model of ``RRreg::RRlin``).

Pure (numpy + stdlib). Formulas and sources: docs/formulas.md#rr-linear.

A respondent has a number outcome ``y``, direct covariates ``x`` (intercept first) and ``m``
latent binary traits ``t = (t_1, …, t_m)`` observed only through their randomized reports ``r``:
``P(r_j = 1 | t_j = 1) = c_j + d_j`` and ``P(r_j = 1 | t_j = 0) = d_j`` (the design's linear
form, docs/formulas.md#linear-form), the reports independent given ``t``. The model is

    y = xᵀβ + tᵀγ + ε,   ε ~ N(0, σ²),   P(t = s) = π_s   (s ∈ {0, 1}^m, constant)

and a respondent's likelihood sums over the 2^m latent states s:

    L_i = Σ_s P(r_i | s)·π_s·φ((y_i − x_iᵀβ − sᵀγ)/σ)/σ,     P(r | s) = Π_j P(r_j | s_j)

(van den Hout & van der Heijden 2004; Heck & Moshagen 2018, ``RRlin``: the joint prevalence of
the latent states is one constant vector π, not a function of x — ``RRlin``'s assumption, which
this model shares; with c_j ≠ 0 the misclassification matrix, a Kronecker product of invertible
2×2 matrices, is invertible, so π is identified from the reports alone and β, γ, σ from the
normal mixture given r, provided every state's estimated share is inside (0, 1)).

Parameters θ = (β, γ, ln σ, α) with π = softmax(0, α). With ``e_s = y − xᵀβ − sᵀγ``,
``f_s = P(r|s)·π_s·φ(e_s/σ)/σ``, posterior ``w_s = f_s / Σ f``, and ``g_s = ∇ ln f_s`` =
``(e_s x/σ², e_s s/σ², e_s²/σ² − 1, δ_s − π)``:

    score            U = Σ_i Σ_s w_is g_is
    observed info    J = −Σ_i [Σ_s w_is (∇² ln f_is + g_is g_isᵀ) − ḡ_i ḡ_iᵀ],  ḡ_i = Σ_s w_is g_is

(Louis 1982), where ∇² ln f_s has blocks −[x; s][x; s]ᵀ/σ², −2 e_s [x; s]/σ² against ln σ,
−2 e_s²/σ² for ln σ twice and −(diag π − ππᵀ) for α. EM (closed-form M step: weighted least
squares, σ² the weighted mean square, π the mean posterior) starts the fit; Newton steps on the
observed information finish it. Standard errors: ``√diag(J⁻¹)`` at the MLE for β, γ; σ's by the
delta method (σ·SE(ln σ)). Rows may carry frequency weights (pooled identical respondents).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import product

import numpy as np
import numpy.typing as npt

from dpcore.stats import z_value

from .regression import Coefficient, _coefficient, _identified_columns, _solve_pd

FloatArray = npt.NDArray[np.float64]

__all__ = ["MAX_LATENT", "LinearFit", "fit_linear_rr"]

MAX_LATENT = 4  # 2⁴ = 16 latent states per respondent
_LOG_2PI = math.log(2.0 * math.pi)
_TOL = 1e-10
EDGE_SHARE = 1e-10  # a latent combination's share below which π is at its edge (no optimum)
EXACT_SIGMA = 1e-8  # σ / sd(y) below which the outcome is fitted exactly (a degenerate fit)
_NEWTON_DONE = 1e-7  # a full Newton step this small: the next would be ~1e-14 (quadratic)
# 1-D products are written np.sum(a * b): BLAS's dot product (``a @ b``) took 0.5–12 ms for 10⁵
# terms on the loaded 2-core bench machine (its threads), the plain sum 0.1 ms.
EM_START = 5  # EM steps before Newton (more only where the information is not PD)


@dataclass(frozen=True)
class LinearFit:
    n: int
    log_likelihood: float
    converged: bool
    iterations: int
    confidence: float
    sigma: float
    sigma_std_error: float | None
    #: Estimated prevalence of each latent trait (the margins of π), in the order given.
    prevalence: tuple[float, ...]
    coefficients: tuple[Coefficient, ...]
    warnings: tuple[str, ...]


class _Model:
    def __init__(
        self,
        x: FloatArray,
        y: FloatArray,
        reports: FloatArray,
        weight: FloatArray,
        c: FloatArray,
        d: FloatArray,
    ) -> None:
        self.x, self.y, self.weight = x, y, weight
        self.xt = np.ascontiguousarray(x.T)  # respondents along the last axis: fast reductions
        self.k, self.m = x.shape[1], reports.shape[1]
        self.states = np.array(list(product((0.0, 1.0), repeat=self.m)), dtype=np.float64)
        self.ns = self.states.shape[0]
        # ln P(r_i | s): per trait, P(r=1|t) = c·t + d, P(r=0|t) = 1 − c·t − d.
        yes = self.states * c + d  # (S, m)
        with np.errstate(divide="ignore"):
            log_yes, log_no = np.log(yes), np.log(1.0 - yes)
        self.log_pr = log_yes @ reports.T + log_no @ (1.0 - reports).T  # (S, n)
        self.n_params = self.k + self.m + 1 + self.ns - 1

    def split(self, theta: FloatArray) -> tuple[FloatArray, FloatArray, float, FloatArray]:
        k, m = self.k, self.m
        alpha = np.concatenate(([0.0], theta[k + m + 1 :]))
        pi = np.exp(alpha - alpha.max())
        return theta[:k], theta[k : k + m], float(theta[k + m]), pi / pi.sum()

    def posterior(self, theta: FloatArray) -> tuple[float, FloatArray, FloatArray]:
        """``(ℓ, w (S, n), e (S, n))``: states along the first axis (reductions over the
        states are then elementwise over respondents — an axis-1 reduction of an (n, 4) array
        is ten times slower)."""
        beta, gamma, log_sigma, pi = self.split(theta)
        sigma = math.exp(log_sigma)
        e = (self.y - self.x @ beta)[None, :] - (self.states @ gamma)[:, None]
        with np.errstate(divide="ignore"):
            log_pi = np.log(pi)
        log_f = self.log_pr + log_pi[:, None] - 0.5 * (e / sigma) ** 2
        top = log_f.max(axis=0)
        f = np.exp(log_f - top)
        total = f.sum(axis=0)
        loglik = float(np.sum(self.weight * (np.log(total) + top)))
        return loglik - float(self.weight.sum()) * (log_sigma + 0.5 * _LOG_2PI), f / total, e

    def loglik(self, theta: FloatArray) -> float:
        return self.posterior(theta)[0]

    def derivatives(self, theta: FloatArray) -> tuple[float, FloatArray, FloatArray]:
        """``(ℓ, U, J)`` (module docstring). Per state s, with ``a = e_s/σ²`` and the frequency
        weights folded into ``v = weight·w_s``, the g_s gᵀ_s + ∇² ln f_s sums are assembled
        block by block from matrix products over respondents (no (n, p) array per state)."""
        loglik, w, e = self.posterior(theta)
        _, _, log_sigma, pi = self.split(theta)
        sigma2 = math.exp(2.0 * log_sigma)
        xt, wt = self.xt, self.weight
        k, m, p = self.k, self.m, self.n_params
        km = k + m
        mean_g = np.zeros((p, xt.shape[1]))  # ḡ_i, one column per respondent
        second = np.zeros((p, p))  # Σ_i Σ_s w_is (g gᵀ + ∇² ln f)
        for s in range(self.ns):
            state = self.states[s]
            es = e[s]
            ws = w[s]
            v = wt * ws
            a = es / sigma2
            b = es * a - 1.0  # ∂ ln f / ∂ ln σ
            delta = -pi[1:].copy()
            if s > 0:
                delta[s - 1] += 1.0
            mean_g[:k] += (ws * a) * xt
            mean_g[k:km] += np.outer(state, ws * a)
            mean_g[km] += ws * b
            mean_g[km + 1 :] += np.outer(delta, ws)
            # g gᵀ − [x; s][x; s]ᵀ/σ² etc., with z = [x, s]: the (β, γ) block is
            # Σ v (a² − 1/σ²) z zᵀ; (β,γ)×ln σ: Σ v (a·b − 2a) z; ln σ²: Σ v (b² − 2 e²/σ²);
            # × α: Σ v a z δᵀ, Σ v b δᵀ, Σ v δ δᵀ.
            q = v * (a * a - 1.0 / sigma2)
            xq = xt @ (q * xt).T
            xs = np.outer(xt @ q, state)
            block = np.zeros((km, km))
            block[:k, :k] = xq
            block[:k, k:] = xs
            block[k:, :k] = xs.T
            block[k:, k:] = float(q.sum()) * np.outer(state, state)
            second[:km, :km] += block
            r = v * (a * b - 2.0 * a)
            zr = np.concatenate((xt @ r, float(r.sum()) * state))
            second[:km, km] += zr
            second[km, :km] += zr
            second[km, km] += float(np.sum(v * (b * b - 2.0 * es * a)))
            va = v * a
            za = np.concatenate((xt @ va, float(va.sum()) * state))
            second[:km, km + 1 :] += np.outer(za, delta)
            second[km + 1 :, :km] += np.outer(delta, za)
            vb = float(np.sum(v * b))
            second[km, km + 1 :] += vb * delta
            second[km + 1 :, km] += vb * delta
            second[km + 1 :, km + 1 :] += float(v.sum()) * np.outer(delta, delta)
        share = pi[1:]
        second[km + 1 :, km + 1 :] -= float(wt.sum()) * (np.diag(share) - np.outer(share, share))
        score = mean_g @ wt
        observed = -(second - mean_g @ (wt * mean_g).T)
        return loglik, score, observed

    def em_step(self, theta: FloatArray) -> FloatArray:
        """One EM update: weighted least squares over the latent states, σ², π."""
        _, w, _ = self.posterior(theta)
        k, m, wt = self.k, self.m, self.weight
        xt = self.xt
        ww = w * wt
        share = ww.sum(axis=1)
        tz = self.states.T @ ww  # Σ_s w_is s, per respondent (m, n)
        a = np.zeros((k + m, k + m))
        a[:k, :k] = xt @ (wt * xt).T
        a[:k, k:] = xt @ tz.T
        a[k:, :k] = a[:k, k:].T
        a[k:, k:] = self.states.T @ (share[:, None] * self.states)
        b = np.concatenate((xt @ (wt * self.y), tz @ self.y))
        coef = np.linalg.lstsq(a, b, rcond=None)[0]
        resid = (self.y - self.x @ coef[:k])[None, :] - (self.states @ coef[k:])[:, None]
        sigma2 = max(float(np.sum(ww * resid * resid)) / float(wt.sum()), 1e-300)
        pi = np.maximum(share / share.sum(), 1e-300)
        return np.concatenate((coef, [0.5 * math.log(sigma2)], np.log(pi[1:] / pi[0])))


def _start(
    model: _Model, reports: FloatArray, weight: FloatArray, c: FloatArray, d: FloatArray
) -> FloatArray:
    """Least squares of y on x and the de-biased reports; π from the reports' rates, as if the
    traits were independent; σ from the residuals."""
    rate = (weight @ reports) / weight.sum()
    prevalence = np.clip((rate - d) / c, 0.05, 0.95)
    latent = (reports - d) / c  # E[t | r] unbiasedly, per respondent
    design = np.hstack((model.x, latent))
    root = np.sqrt(weight)[:, None]
    coef = np.linalg.lstsq(design * root, model.y * root[:, 0], rcond=None)[0]
    resid = model.y - design @ coef
    sigma2 = max(float(np.sum(weight * resid * resid)) / float(weight.sum()), 1e-12)
    pi = np.prod(np.where(model.states == 1.0, prevalence, 1.0 - prevalence), axis=1)
    return np.concatenate((coef, [0.5 * math.log(sigma2)], np.log(pi[1:] / pi[0])))


def _halving(
    model: _Model, theta: FloatArray, step: FloatArray, current: float
) -> tuple[FloatArray, float, float] | None:
    """``(θ + s·step, ℓ there, s)`` for the first s = 1, ½, ¼, … that does not lower ℓ."""
    scale = 1.0
    while scale >= 1e-4:
        trial = theta + scale * step
        value = model.loglik(trial)
        if value >= current - 1e-12 * abs(current):
            return trial, value, scale
        scale /= 2.0
    return None


def _maximise(
    model: _Model, theta: FloatArray, max_iter: int
) -> tuple[FloatArray, bool, int, FloatArray | None]:
    """``(θ, converged, iterations, J)``: J is the observed information at the last Newton
    iterate, one full step (< ``_NEWTON_DONE``) before θ — quadratic convergence leaves θ within
    ~1e-14 of the MLE, and J differs from J(θ) by O(1e-7) relative, so it serves for the SEs
    without one more pass over the data (None: recompute)."""
    for _ in range(EM_START):  # EM first: it never lowers ℓ, and lands where Newton is safe
        theta = model.em_step(theta)
    current = model.loglik(theta)
    for iteration in range(1, max_iter + 1):
        _, score, observed = model.derivatives(theta)
        step = _solve_pd(observed, score)  # None where ℓ is not concave
        moved = False
        if step is not None:
            if float(np.max(np.abs(step))) < _NEWTON_DONE:
                return theta + step, True, iteration, observed
            found = _halving(model, theta, step, current)
            if found is not None:
                theta, current, moved = found[0], found[1], True
                if float(np.max(np.abs(found[2] * step))) < _TOL:
                    return theta, True, iteration, None
        if not moved:  # not concave here: an EM step
            trial = model.em_step(theta)
            if float(np.max(np.abs(trial - theta))) < _TOL:
                return trial, True, iteration, None
            theta, current = trial, model.loglik(trial)
        if float(model.split(theta)[3].min()) < EDGE_SHARE:  # π runs to the edge: no optimum
            return theta, False, iteration, None
    return theta, False, max_iter, None


def _arrays(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    reports: npt.ArrayLike,
    weight: npt.ArrayLike | None,
    c: Sequence[float],
    d: Sequence[float],
    terms: Sequence[str],
    latent_terms: Sequence[str],
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The inputs as arrays, checked, without rows of weight 0."""
    xm = np.asarray(x, dtype=np.float64)
    yv = np.asarray(y, dtype=np.float64)
    rm = np.asarray(reports, dtype=np.float64)
    n = yv.shape[0] if yv.ndim == 1 else -1
    wv = np.ones(max(n, 0)) if weight is None else np.asarray(weight, dtype=np.float64)
    if xm.ndim != 2 or rm.ndim != 2 or xm.shape[0] != n or rm.shape[0] != n or wv.shape != (n,):
        raise ValueError("x (n, k), y (n,), reports (n, m) and weight (n,) must agree")
    if xm.shape[1] != len(terms) or rm.shape[1] != len(latent_terms):
        raise ValueError("one name per column of x and of reports")
    if rm.shape[1] > MAX_LATENT:
        raise ValueError(f"at most {MAX_LATENT} randomized predictors")
    cv, dv = np.asarray(c, dtype=np.float64), np.asarray(d, dtype=np.float64)
    if cv.shape != (rm.shape[1],) or dv.shape != cv.shape or np.any(cv == 0.0):
        raise ValueError("one design (c ≠ 0, d) per randomized predictor")
    keep = wv > 0
    xm, yv, rm, wv = xm[keep], yv[keep], rm[keep], wv[keep]
    if not xm.shape[0]:
        raise ValueError("no respondents")
    return xm, yv, rm, wv, cv, dv


def fit_linear_rr(
    x: npt.ArrayLike,
    y: npt.ArrayLike,
    reports: npt.ArrayLike,
    *,
    c: Sequence[float],
    d: Sequence[float],
    terms: Sequence[str],
    latent_terms: Sequence[str],
    weight: npt.ArrayLike | None = None,
    confidence: float = 0.95,
    max_iter: int = 200,
) -> LinearFit:
    """Fit ``y = xᵀβ + tᵀγ + ε`` with ``t`` seen through the reports (module docstring).

    ``x``: (n, k) with the intercept first (named by ``terms``); ``y``: n numbers; ``reports``:
    (n, m) 0/1 reports, 0 ≤ m ≤ ``MAX_LATENT`` (named by ``latent_terms``; m = 0 is ordinary
    least squares with σ by ML), with each trait's design ``c[j] ≠ 0``, ``d[j]``; ``weight``:
    frequency weights (default 1). Raises ``ValueError`` for wrong shapes, m > MAX_LATENT, or
    a design that makes a report uninformative (c = 0).
    """
    xm, yv, rm, wv, cv, dv = _arrays(x, y, reports, weight, c, d, terms, latent_terms)
    kept = _identified_columns(xm)
    warnings = [
        f"{terms[j]}: not identified by the data (no respondents with this value, or collinear "
        "with other terms); left out of the model"
        for j in range(len(terms))
        if j not in kept
    ]
    xm = xm[:, kept]
    # Centre and scale y: ℓ's curvature then has no unit of y in it (x is used as given).
    y_loc, y_scale = float(np.average(yv, weights=wv)), float(np.sqrt(np.cov(yv, aweights=wv)))
    y_scale = y_scale if math.isfinite(y_scale) and y_scale > 0.0 else 1.0
    model = _Model(xm, (yv - y_loc) / y_scale, rm, wv, cv, dv)
    theta, converged, iterations, last = _maximise(model, _start(model, rm, wv, cv, dv), max_iter)
    if last is None:
        loglik, _, observed = model.derivatives(theta)
    else:
        loglik, observed = model.loglik(theta), last
    if not converged and float(model.split(theta)[3].min()) >= EDGE_SHARE:
        warnings.append(f"did not converge in {max_iter} iterations")  # else: the edge warning
    exact = float(theta[xm.shape[1] + rm.shape[1]]) < math.log(EXACT_SIGMA)
    if exact:  # σ → 0: ℓ is unbounded, no estimate is an MLE
        converged = False
        warnings.append(
            "the outcome is fitted exactly (a constant, or a function of the predictors): σ "
            "runs to 0 and the likelihood is unbounded, so there are no standard errors"
        )
        observed = -np.eye(observed.shape[0])  # not positive definite: no covariance below
    try:
        np.linalg.cholesky(observed)
        covariance: FloatArray | None = np.asarray(np.linalg.inv(observed), dtype=np.float64)
    except np.linalg.LinAlgError:
        covariance = None
        if not exact:
            warnings.append("the observed information is not positive definite: no standard errors")
    k, m = xm.shape[1], rm.shape[1]
    beta, gamma, log_sigma, pi = model.split(theta)
    if float(pi.min()) < 1e-6:
        warnings.append(
            "a combination of the randomized traits has an estimated share near 0: "
            "the model is at the edge of its parameter space and its standard errors are unreliable"
        )
    # Back to y's units: β₀ = y_loc + y_scale·β₀', the rest × y_scale; σ × y_scale; ℓ shifts by
    # −n·ln(y_scale) (the density of y, not of the scaled y).
    estimates = np.concatenate((beta, gamma)) * y_scale
    estimates[0] += y_loc
    z_crit = z_value(confidence)
    coefficients = []
    fitted_terms = [*(terms[j] for j in kept), *latent_terms]
    by_term: dict[str, Coefficient] = {}
    for i, term in enumerate(fitted_terms):
        se = None
        if covariance is not None and covariance[i, i] > 0.0:
            se = y_scale * math.sqrt(float(covariance[i, i]))
        # The logistic fit's Wald figures, without an odds ratio (a linear effect).
        by_term[term] = replace(
            _coefficient(term, float(estimates[i]), se, z_crit), odds_ratio=None
        )
    none = (None,) * 7
    coefficients = [by_term.get(t, Coefficient(t, *none)) for t in [*terms, *latent_terms]]
    sigma = math.exp(log_sigma) * y_scale
    sigma_se = None
    if covariance is not None and covariance[k + m, k + m] > 0.0:
        sigma_se = sigma * math.sqrt(float(covariance[k + m, k + m]))
    prevalence = tuple(float(v) for v in pi @ model.states)
    return LinearFit(
        n=round(float(wv.sum())),
        log_likelihood=loglik - float(wv.sum()) * math.log(y_scale),
        converged=converged,
        iterations=iterations,
        confidence=confidence,
        sigma=sigma,
        sigma_std_error=sigma_se,
        prevalence=prevalence,
        coefficients=tuple(coefficients),
        warnings=tuple(warnings),
    )
