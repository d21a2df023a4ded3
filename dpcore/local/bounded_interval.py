"""An interval for a bounded parameter with a Gaussian estimate that never has zero width.

Pure (stdlib ``math`` only). Formulas and sources: docs/formulas.md#bounded-interval.

Used where the estimate is a linear function of binomial or multinomial proportions: the
cheating-detection parameters π, γ, β (bounds [0, 1]) and the Likert mean score (bounds [1, k]).
The clipped Wald interval ``clip(θ̂ ± z·SE)`` collapses to a point whenever the whole Wald interval
lies beyond a bound (issue 22 item 16: honest-yes [0, 0] at n = [500, 500], yes = [52, 210]; the
mean score [1, 1] when M̂ + z·SE < 1), and whenever the plug-in SE is 0.

The rule is the one the binary estimates meet (:mod:`dpcore.local.unified_interval`): Feldman &
Cousins (1998) ordering for a Gaussian estimate ``u ~ N(θ, σ²)`` of θ ∈ [a, b], with the
statistic measured from the constrained estimate ``θ̂ = clip(u, a, b)``,

    T(θ) = ((u − θ)² − (u − θ̂)²)/σ²,     μ(θ) = min(θ − a, b − θ)/σ,

and θ accepted when ``P_μ(T ≤ T(θ)) ≤ confidence`` (the boundary-truncated Gaussian law of
``unified_interval.acceptance_probability``). It contains θ̂ and a neighbourhood of it (T is
continuous, ``T(θ̂) = 0`` and ``P_μ(T ≤ t) ≤ Φ(√t)``), so it never has zero width; far from both
bounds it is exactly Wald's ``u ± z·σ``.

σ is the interval's standard error (the callers'): the plug-in SE, but never below the SE at
Agresti–Coull adjusted proportions ``(count + z²/k)/(n + z²)`` over ``n + z²`` (k cells; Agresti
& Coull 1998, "Approximate is better than 'exact' for interval estimation of binomial
proportions", Am. Stat. 52:119–126), so it is positive even when every report is the same (the
plug-in SE is then 0) and equals the plug-in SE wherever that is the larger.
"""

from __future__ import annotations

import math

from dpcore.local.unified_interval import acceptance_probability, search_boundary
from dpcore.stats import z_value

__all__ = ["adjusted_proportions", "bounded_interval"]


def adjusted_proportions(
    counts: tuple[int, ...] | list[int], z: float
) -> tuple[list[float], float]:
    """Agresti–Coull adjusted cell proportions ``(count_j + z²/k)/(n + z²)`` and ``n + z²``."""
    k = len(counts)
    total = sum(counts) + z * z
    return [(count + z * z / k) / total for count in counts], total


def _excluded(u: float, sigma: float, a: float, b: float, theta: float, conf: float) -> bool:
    constrained = min(max(u, a), b)
    t = max(((u - theta) ** 2 - (u - constrained) ** 2) / (sigma * sigma), 0.0)
    # At confidence ≤ ½ the boundary calibration could exclude every θ ≠ θ̂ (Φ(√t) > ½ for all
    # t > 0): the interior cut-off is used there, as in unified_interval.
    mu = min(theta - a, b - theta) / sigma if conf > 0.5 else math.inf
    return acceptance_probability(t, mu) > conf


def bounded_interval(
    u: float, sigma: float, a: float, b: float, confidence: float
) -> tuple[float, float]:
    """The interval ``(low, high)`` for θ ∈ [a, b] from the unbiased estimate ``u`` with
    standard error ``sigma`` (module docstring); ``a ≤ low < high ≤ b`` and ``low ≤ clip(u) ≤
    high``. ``sigma`` ≤ 0 or not finite gives the whole range [a, b] (nothing is known)."""
    if not (sigma > 0.0 and math.isfinite(sigma)):
        return a, b
    z = z_value(confidence)
    theta = min(max(u, a), b)
    wald_low, wald_high = u - z * sigma, u + z * sigma
    # Wald's interval, exactly, when the interior law holds on all of it (as in
    # unified_interval._wilson_if_interior: min(θ − a, b − θ) ≥ |u − θ| on [low, high]).
    if (
        confidence > 0.5
        and a <= u <= b
        and wald_low >= (a + u) / 2.0
        and wald_high <= (u + b) / 2.0
        and wald_low < wald_high
    ):
        return wald_low, wald_high
    low = a
    if theta > a and _excluded(u, sigma, a, b, a, confidence):
        low = search_boundary(lambda t: _excluded(u, sigma, a, b, t, confidence), theta, a)
    high = b
    if theta < b and _excluded(u, sigma, a, b, b, confidence):
        high = search_boundary(lambda t: _excluded(u, sigma, a, b, t, confidence), theta, b)
    return low, high
