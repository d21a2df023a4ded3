"""A boundary-aware score interval for a randomized-response prevalence that never collapses.

Pure (stdlib ``math`` only). Formulas and sources: docs/formulas.md#unified-interval.

Every binary design reports "yes" with probability ``λ(π) = c·π + d`` (``0 < c``, ``d ≥ 0``,
``c + d ≤ 1``). The Wilson interval inverts the score statistic

    S(π) = (λ̂ − λ(π))² / (λ(π)(1 − λ(π))/n),   λ̂ = y/n,

without the constraint ``0 ≤ π ≤ 1``: when the whole Wilson interval for λ lies below ``d`` the
set of π it accepts is empty and clipping turns it into the zero-width ``[0, 0]`` (at n = 200 on
the coin design 1.8 % of the time at π = 0). Feldman & Cousins (1998, Phys. Rev. D 57:3873,
"Unified approach to the classical statistical analysis of small signals") remove this by
ordering by the statistic measured from the *constrained* estimate ``π̂ = clip((λ̂ − d)/c, 0, 1)``
(the MLE on [0, 1]):

    T(π) = max(S(π) − S(π̂), 0)          (= S(π) whenever 0 ≤ (λ̂ − d)/c ≤ 1)

and by calibrating its cut-off with its null distribution near the boundary, which is not χ²₁
(at π = 0 it is ½χ²₀ + ½χ²₁, Chernoff 1954). In the Gaussian approximation, with
``σ(π) = √(λ(1 − λ)/n)/c`` and ``μ = min(π, 1 − π)/σ(π)`` (the distance to the nearer boundary
in standard errors), the estimate is ``X ~ N(μ, 1)`` truncated at 0 and

    P_μ(T ≤ t) = 2Φ(√t) − 1                                      if μ ≥ √t,
               = Φ(√t) − Φ(−(μ² + t)/(2μ))                       if 0 < μ < √t,
               = Φ(√t)                                           if μ = 0.

The interval is ``{π ∈ [0, 1] : P_{μ(π)}(T(π) ≤ T_obs(π)) ≤ confidence}``.

* It contains π̂ (``T(π̂) = 0``) and never collapses: ``P_μ(T ≤ t) ≤ Φ(√t)``, so every π with
  ``T(π) ≤ Φ⁻¹(confidence)²`` is accepted, and T is continuous with ``T(π̂) = 0``, so a
  neighbourhood of π̂ in [0, 1] is always inside. (At confidence ≤ ½ that bound is 0, so there
  the interior cut-off ``Φ⁻¹((1 + confidence)/2)²`` is used for every π.)
* Far from both boundaries (μ ≥ 1.96 at 95 %) it is exactly the Wilson-transformed interval.
* Exact coverage (tests/privacy/test_unified_interval.py, bench/RESULTS.md): coin design
  0.936–0.961 at n = 100 and 0.946–0.954 at n = 1000 for π = 0.005…0.995; 0.955/0.949 at π = 0
  (Wilson: 0.972, one-sided); ε = ln 19, n = 50: 0.949 (π = 0.02), 0.956 (π = 0.05).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from dpcore.stats import z_value

__all__ = ["acceptance_probability", "boundary_statistic", "score_statistic", "unified_interval"]

_BISECTIONS = 60  # halves [0, 1] to below 1e-17: the endpoints are exact to double precision
_SQRT2 = math.sqrt(2.0)


def _phi(x: float) -> float:
    """Standard normal CDF ``Φ(x) = ½·erfc(−x/√2)`` (erfc keeps the lower tail accurate)."""
    return 0.5 * math.erfc(-x / _SQRT2)


def score_statistic(y: float, n: float, c: float, d: float, pi: float) -> float:
    """Wilson's score statistic ``S(π) = (y/n − λ)²/(λ(1 − λ)/n)``, ``λ = cπ + d``
    (0 where λ is degenerate and equals y/n, ``+∞`` where it is degenerate and does not)."""
    lam = c * pi + d
    variance = lam * (1.0 - lam) / n
    gap = y / n - lam
    if variance <= 0.0:
        return 0.0 if abs(gap) <= 1e-15 else math.inf
    return gap * gap / variance


def boundary_statistic(y: float, n: float, c: float, d: float, pi: float) -> float:
    """``T(π) = max(S(π) − S(π̂), 0)`` with π̂ the maximum-likelihood estimate on [0, 1]."""
    pi_hat = min(max((y / n - d) / c, 0.0), 1.0)
    here = score_statistic(y, n, c, d, pi)
    if here == math.inf:
        return math.inf
    return max(here - score_statistic(y, n, c, d, pi_hat), 0.0)


def acceptance_probability(t: float, mu: float) -> float:
    """``P_μ(T ≤ t)`` for the boundary-truncated Gaussian (module docstring); ``μ ≥ 0``."""
    if t == math.inf:
        return 1.0
    root = math.sqrt(t)
    if mu >= root:
        return 2.0 * _phi(root) - 1.0
    if mu <= 0.0:
        return _phi(root)
    return _phi(root) - _phi(-(mu * mu + t) / (2.0 * mu))


def _excluded(y: float, n: float, c: float, d: float, pi: float, confidence: float) -> bool:
    """Whether π lies outside the interval: ``P_{μ(π)}(T ≤ t(π)) > confidence``."""
    lam = c * pi + d
    sigma = math.sqrt(max(lam * (1.0 - lam), 0.0) / n) / c
    edge = min(pi, 1.0 - pi)
    # At confidence ≤ ½ the boundary calibration could exclude every π ≠ π̂ (Φ(√t) > ½ for all
    # t > 0): use the interior cut-off χ²₁ there, which keeps the no-collapse guarantee.
    mu = edge / sigma if sigma > 0.0 and confidence > 0.5 else math.inf
    return acceptance_probability(boundary_statistic(y, n, c, d, pi), mu) > confidence


def search_boundary(excluded: Callable[[float], bool], inside: float, outside: float) -> float:
    """Bisection between an accepted value (``inside``) and an excluded one (``outside``): the
    last accepted value, to ``_BISECTIONS`` halvings (also the bounded interval's search)."""
    for _ in range(_BISECTIONS):
        mid = 0.5 * (inside + outside)
        if excluded(mid):
            outside = mid
        else:
            inside = mid
    return inside


def _wilson_if_interior(
    y: float, n: float, c: float, d: float, confidence: float
) -> tuple[float, float] | None:
    """The Wilson interval mapped to π when the unified one provably equals it, else None.

    With ``√T(π) = |π̂ − π|/σ(π)`` and ``μ(π) = min(π, 1 − π)/σ(π)``, the interior formula
    ``2Φ(√T) − 1`` applies wherever ``min(π, 1 − π) ≥ |π̂ − π|``; if the unclipped π̂ lies in
    [0, 1] and the Wilson ends satisfy ``L ≥ π̂/2`` and ``U ≤ (1 + π̂)/2``, that holds on all of
    [L, U] (the conditions are monotone in π), so the accepted set there is ``{S ≤ z²}`` =
    [L, U]; beyond it ``S > z²`` and the boundary formula is larger still (AM–GM:
    ``(μ² + t)/(2μ) ≥ √t``), so nothing outside is accepted. Saves the bisections (≈ 75×).
    """
    if confidence <= 0.5:
        return None
    pi_hat = (y / n - d) / c
    if not 0.0 <= pi_hat <= 1.0:
        return None
    z = z_value(confidence)
    rate = y / n
    z2n = z * z / n
    centre = (rate + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(rate * (1.0 - rate) / n + z2n / (4.0 * n))
    # As dpcore.stats.wilson_bounds: the ends never cross λ̂ through rounding (at λ̂ = 1 the
    # upper end is 1 exactly in real arithmetic, 1 − 2⁻⁵³ in floating point).
    low_rate, high_rate = min(centre - half, rate), max(centre + half, rate)
    low, high = (low_rate - d) / c, (high_rate - d) / c
    if low >= pi_hat / 2.0 and high <= (1.0 + pi_hat) / 2.0 and low < high:
        return low, high
    return None


def unified_interval(
    y: float, n: float, c: float, d: float, confidence: float
) -> tuple[float, float]:
    """The boundary-aware (Feldman–Cousins ordered) score interval ``(low, high)`` for π (no
    validation:
    ``0 ≤ y ≤ n``, ``n ≥ 1``, ``0 < c ≤ 1``, ``0 ≤ d ≤ 1 − c``, ``0 < confidence < 1``).

    ``low < high`` always (module docstring); ``low ≤ π̂ ≤ high``.
    """
    shortcut = _wilson_if_interior(y, n, c, d, confidence)
    if shortcut is not None:
        return shortcut
    pi_hat = min(max((y / n - d) / c, 0.0), 1.0)
    low = 0.0
    if pi_hat > 0.0 and _excluded(y, n, c, d, 0.0, confidence):
        low = search_boundary(lambda p: _excluded(y, n, c, d, p, confidence), pi_hat, 0.0)
    high = 1.0
    if pi_hat < 1.0 and _excluded(y, n, c, d, 1.0, confidence):
        high = search_boundary(lambda p: _excluded(y, n, c, d, p, confidence), pi_hat, 1.0)
    return low, high
