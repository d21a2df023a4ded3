"""Power and sample size for a regression effect on a randomized yes/no outcome
(docs/formulas.md#regression-power).

Model (as the regression fits it, docs/formulas.md#rr-regression): a binary predictor X
with ``P(X = 1) = s`` and a latent trait with ``logit P(T = 1 | X) = β₀ + β₁X``, reported through
the design: ``p(x) = P(report yes | x) = c·μ(x) + d``, ``μ = expit(β₀ + β₁x)``. The hypothesis
gives ``π₀ = expit(β₀)`` (the prevalence where X = 0) and the odds ratio ``e^{β₁}``.

The expected Fisher information of one respondent, computed exactly over X's two values:

    I(β) = Σ_{x∈{0,1}} P(X = x) · g(x) g(x)ᵀ / (p(x)(1 − p(x))),   g(x) = c·μ(x)(1 − μ(x))·(1, x)ᵀ,

(the score of a Bernoulli with success probability p(x) is (y − p)/(p(1 − p))·∂p/∂β). The Wald
test of β₁ = 0 at n respondents has ``SE(β̂₁) ≈ √([I⁻¹]₁₁/n)`` (evaluated at the alternative) and

    power(n) = Φ(|β₁|/SE − z) + Φ(−|β₁|/SE − z),   z = Φ⁻¹(1 − α/2);

the sample size is the smallest n reaching the target.

A **number** predictor is taken as standard normal (the odds ratio is per standard deviation,
``π₀`` the prevalence at its mean; ``share=None``): the sum over x becomes E over X ~ N(0, 1),
computed by 80-point Gauss–Hermite quadrature (exact for polynomials of degree ≤ 159; the
integrand is smooth and bounded, checked against adaptive quadrature to 1e-10).

Approximation: the ML estimate's normal limit with the information at the true parameters
(Demidenko 2007 for the direct logistic case; Whittemore 1981); the design enters only through
p(x). Checked against a simulation of the fit in
tests/dpcore/local/test_regression_power.py.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from dpcore.errors import ArgumentError

__all__ = ["information", "power", "sample_size"]

_NORMAL = NormalDist()
#: Past this many respondents a sample size is refused (an odds ratio at 1 within rounding).
MAX_N = 1e15
#: Probabilists' Gauss–Hermite nodes and weights for E over N(0, 1) (weights sum to 1).
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(80)
_WEIGHTS = _WEIGHTS / math.sqrt(2.0 * math.pi)


def _check(c: float, d: float, pi0: float, odds_ratio: float, share: float | None) -> None:
    if not (c > 0 and d >= 0 and c + d <= 1):
        raise ArgumentError("design", "needs 0 < c, 0 ≤ d, c + d ≤ 1")
    if not 0.0 < pi0 < 1.0:
        raise ArgumentError("pi0", "must lie strictly between 0 and 1")
    if not (math.isfinite(odds_ratio) and odds_ratio > 0):
        raise ArgumentError("odds_ratio", "must be a positive number")
    if share is not None and not 0.0 < share < 1.0:
        raise ArgumentError("predictor_share", "must lie strictly between 0 and 1")


def _support(share: float | None) -> list[tuple[float, float]]:
    """X's values and probabilities: {0, 1} with P(1) = share, or N(0, 1)'s quadrature nodes."""
    if share is not None:
        return [(0.0, 1.0 - share), (1.0, share)]
    return [(float(x), float(w)) for x, w in zip(_NODES, _WEIGHTS, strict=True)]


def _logistic(z: float) -> float:
    """1/(1 + e^−z) without overflow for any float z (an extreme π₀ or odds ratio)."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def information(
    *, c: float, d: float, pi0: float, odds_ratio: float, share: float | None
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The 2 × 2 expected information of one respondent for (β₀, β₁) (module docstring);
    ``share=None``: a standard-normal predictor."""
    _check(c, d, pi0, odds_ratio, share)
    beta0 = math.log(pi0 / (1.0 - pi0))
    beta1 = math.log(odds_ratio)
    i00 = i01 = i11 = 0.0
    for x, weight in _support(share):
        mu = _logistic(beta0 + beta1 * x)
        p = c * mu + d
        if not 0.0 < p < 1.0:
            continue  # μ at 0 or 1 in floating point: its term's limit is 0 (c·μ(1−μ) → 0)
        h = weight * (c * mu * (1.0 - mu)) ** 2 / (p * (1.0 - p))
        i00 += h
        i01 += h * x
        i11 += h * x * x
    return ((i00, i01), (i01, i11))


def _slope_variance(
    c: float, d: float, pi0: float, odds_ratio: float, share: float | None
) -> float:
    """[I⁻¹]₁₁ for one respondent: I₀₀ / det I."""
    (i00, i01), (_, i11) = information(c=c, d=d, pi0=pi0, odds_ratio=odds_ratio, share=share)
    det = i00 * i11 - i01 * i01
    if not (det > 0 and math.isfinite(det)):
        # Every respondent's μ is at 0 or 1 in floating point: the reports carry no information
        # on the slope here (an extreme π₀ or odds ratio), so no n reaches any power.
        raise ArgumentError("effect", "no information on the effect at these pi0 and odds_ratio")
    return i00 / det


def power(
    *,
    c: float,
    d: float,
    pi0: float,
    odds_ratio: float,
    share: float | None,
    alpha: float,
    n: float,
) -> float:
    """The Wald test's power at ``n`` respondents (two-sided, level α)."""
    z = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    se = math.sqrt(_slope_variance(c, d, pi0, odds_ratio, share) / n)
    shift = abs(math.log(odds_ratio)) / se
    return _NORMAL.cdf(shift - z) + _NORMAL.cdf(-shift - z)


def sample_size(
    *,
    c: float,
    d: float,
    pi0: float,
    odds_ratio: float,
    share: float | None,
    alpha: float,
    target: float,
) -> int:
    """The smallest n whose :func:`power` is ≥ ``target`` (needs an odds ratio ≠ 1)."""
    if odds_ratio == 1.0:
        raise ArgumentError("odds_ratio", "must differ from 1 to compute a sample size")
    variance = _slope_variance(c, d, pi0, odds_ratio, share)
    z = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    z_beta = _NORMAL.inv_cdf(target)
    raw = (z + z_beta) ** 2 * variance / math.log(odds_ratio) ** 2
    if not raw <= MAX_N:
        raise ArgumentError("effect", f"needs more than {MAX_N:.0e} respondents: no practical n")
    n = max(1, math.ceil(raw - 1e-9))

    def at(m: int) -> float:
        return power(c=c, d=d, pi0=pi0, odds_ratio=odds_ratio, share=share, alpha=alpha, n=m)

    # The closed form ignores the far tail: step to the exact smallest n.
    while n > 1 and at(n - 1) >= target:
        n -= 1
    while at(n) < target:
        n += 1
    return n
