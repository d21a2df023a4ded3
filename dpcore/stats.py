"""The normal quantile and the Wilson score interval: the one copy both halves of the core use.

Pure (numpy and the standard library only). :mod:`dpcore.local.intervals` (randomized-response
estimates) and :mod:`dpcore.central.estimates` (central-DP releases, at a possibly fractional
*effective* sample size) both call :func:`wilson_bounds`; the numpy :func:`wilson_bounds_array`
performs the same IEEE operations in the same order, so it agrees with the scalar one bit for bit.

Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
JASA 22(158):209–212.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from dpcore.validation import check_confidence

__all__ = ["FloatArray", "clip01", "wilson_bounds", "wilson_bounds_array", "z_value"]

FloatArray = npt.NDArray[np.float64]


@lru_cache(maxsize=256)
def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile ``z = Φ⁻¹((1 + confidence)/2)``; 0.95 → 1.959964.

    Cached: repeated calls at the same confidence cost a dictionary lookup.
    """
    return _z(check_confidence(confidence))


def clip01(x: float) -> float:
    """Clip a float to [0, 1]."""
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


def wilson_bounds(rate: float, n: float, z: float) -> tuple[float, float]:
    """Wilson (1927) score interval for a proportion ``rate`` observed on ``n`` trials, given z.

    ``centre = (λ̂ + z²/2n)/(1 + z²/n)``, ``half = z/(1 + z²/n) · √(λ̂(1 − λ̂)/n + z²/4n²)``.

    Edges (no validation: the callers have validated, this is the per-question hot path):

    * the bounds are clamped so that ``0 ≤ L ≤ λ̂ ≤ U ≤ 1`` holds exactly in floating point (at
      λ̂ ∈ {0, 1} the formula touches the boundary only up to rounding);
    * ``n ≤ 0`` (or so small that z²/n overflows) gives [0, 1], the limit as n → 0;
    * ``n = ∞`` gives the point [λ̂, λ̂] (an effective sample size without any variance).
    """
    if not n > 0:
        return 0.0, 1.0
    z2n = z * z / n
    denom = 1.0 + z2n
    if not math.isfinite(denom):
        return 0.0, 1.0
    centre = (rate + z2n / 2.0) / denom
    half = z / denom * math.sqrt(rate * (1.0 - rate) / n + z2n / (4.0 * n))
    low = centre - half
    high = centre + half
    low = 0.0 if low < 0.0 else (rate if low > rate else low)
    high = 1.0 if high > 1.0 else (rate if high < rate else high)
    return low, high


def wilson_bounds_array(rates: FloatArray, n: int, z: float) -> tuple[FloatArray, FloatArray]:
    """:func:`wilson_bounds` over an array of rates at one ``n ≥ 1`` (same operations, same
    rounding)."""
    z2n = z * z / n
    denom = 1.0 + z2n
    centre = (rates + z2n / 2.0) / denom
    half = z / denom * np.sqrt(rates * (1.0 - rates) / n + z2n / (4.0 * n))
    low = np.clip(np.minimum(centre - half, rates), 0.0, 1.0)
    high = np.clip(np.maximum(centre + half, rates), 0.0, 1.0)
    return low, high
