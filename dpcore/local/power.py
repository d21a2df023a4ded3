"""Power and sample size for prevalence tests under a randomized design (analytic).

Pure (stdlib only). Formulas and sources: docs/formulas.md#power.

Any design reports "yes" (or, for k-RR, the option of interest) with probability
``λ = c·π + d``, so a test about π is a test about the report rate λ, and ``π̂ = (λ̂ − d)/c``
has standard deviation ``√(λ(1 − λ)/n)/c``. Two-sided level α, ``z = Φ⁻¹(1 − α/2)``,
``Δ = |π₁ − π₀|`` (normal approximation; Chow, Shao & Wang 2008, *Sample Size Calculations in
Clinical Research*, §4.1–4.2; for randomized response Ulrich et al. 2012, Psychol. Methods
17:458, and ``rr::power.rr.test``):

* one sample, H₀: π = π₀, test statistic ``(π̂ − π₀)/(σ₀/√n)``, ``σ_j = √(λ_j(1 − λ_j))/c``:

      power(n) = Φ((√n·Δ − z·σ₀)/σ₁) + Φ((−√n·Δ − z·σ₀)/σ₁),
      n = ⌈((z·σ₀ + z_β·σ₁)/Δ)²⌉,  z_β = Φ⁻¹(power);

* two groups of n each, H₀: π_A = π_B, the pooled two-proportion z test on the report rates,
  ``σ₀ = √(2·λ̄(1 − λ̄))/c`` (λ̄ = (λ₀ + λ₁)/2), ``σ₁ = √(λ₀(1 − λ₀) + λ₁(1 − λ₁))/c``, and the same
  two formulas (n per group).

:func:`sample_size` returns the smallest n whose *normal-approximation* power (:func:`power`) is
≥ the target. The exact power of the test (binomial report counts) at that n can fall short: at
ε = 3 (optimal forced response or Warner), π 0.05 → 0.10, α = 0.05, target 0.8, n = 360 has
approximate power 0.800 but exact power 0.783 (tests/surveys/analysis/test_power.py); plan with a
margin near π = 0, or use :mod:`dpcore.local.power_exact` (the binomial power and sample size).
Checked against Monte Carlo simulation of the test in the same file.
"""

from __future__ import annotations

import math
from statistics import NormalDist

__all__ = ["power", "sample_size"]

_NORMAL = NormalDist()


def _sigmas(test: str, c: float, d: float, pi0: float, pi1: float) -> tuple[float, float]:
    lam0, lam1 = c * pi0 + d, c * pi1 + d
    v0, v1 = lam0 * (1.0 - lam0), lam1 * (1.0 - lam1)
    if test == "one_sample":
        return math.sqrt(v0) / c, math.sqrt(v1) / c
    if test == "two_sample":
        mean = (lam0 + lam1) / 2.0
        return math.sqrt(2.0 * mean * (1.0 - mean)) / c, math.sqrt(v0 + v1) / c
    raise ValueError(f"test must be one_sample or two_sample (got {test!r})")


def power(
    *, test: str, c: float, d: float, pi0: float, pi1: float, alpha: float, n: float
) -> float:
    """Power of the two-sided level-α test at ``n`` respondents (per group for two samples)."""
    sigma0, sigma1 = _sigmas(test, c, d, pi0, pi1)
    z = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    shift = math.sqrt(n) * abs(pi1 - pi0)
    if sigma1 == 0.0:  # a degenerate alternative (λ₁ ∈ {0, 1}): the test rejects surely or never
        return 1.0 if shift > z * sigma0 else 0.0
    return _NORMAL.cdf((shift - z * sigma0) / sigma1) + _NORMAL.cdf((-shift - z * sigma0) / sigma1)


def sample_size(
    *, test: str, c: float, d: float, pi0: float, pi1: float, alpha: float, target: float
) -> int:
    """Smallest n (per group for two samples) whose normal-approximation :func:`power` is ≥
    ``target`` (the exact power may be a little lower: module docstring); needs π₁ ≠ π₀."""
    if pi0 == pi1:
        raise ValueError("pi1 must differ from pi0")
    sigma0, sigma1 = _sigmas(test, c, d, pi0, pi1)
    z = _NORMAL.inv_cdf(1.0 - alpha / 2.0)
    z_beta = _NORMAL.inv_cdf(target)
    n = max(1, math.ceil(((z * sigma0 + z_beta * sigma1) / abs(pi1 - pi0)) ** 2 - 1e-9))
    # The closed form ignores the far tail and rounding: step to the exact smallest n.
    while n > 1 and power(test=test, c=c, d=d, pi0=pi0, pi1=pi1, alpha=alpha, n=n - 1) >= target:
        n -= 1
    while power(test=test, c=c, d=d, pi0=pi0, pi1=pi1, alpha=alpha, n=n) < target:
        n += 1
    return n
