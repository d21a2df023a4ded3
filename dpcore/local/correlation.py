"""Correlation of a randomized yes/no trait with a direct variable or another randomized trait
(docs/formulas.md#correlation): Fox & Tracy (1984), as RRreg's ``RRcor``.

A randomized report Z of a binary trait X with ``P(Z = 1 | X) = c·X + d`` is, after the linear
rescaling ``X̃ = (Z − d)/c``, the trait plus an error U with E[U | X] = 0, independent of the
other variable's error. So ``Cov(X̃, Y) = Cov(X, Y)`` (and ``Cov(X̃, Ỹ) = Cov(X, Y)`` for two
independent randomizations), while ``Var(X̃) = λ(1 − λ)/c²`` exceeds ``Var(X) = π(1 − π)``. The
corrected correlation is the reports' Pearson correlation scaled back by the attenuation factor
of each randomized variable:

    r = r_obs · Π_{randomized} √(λ̂(1 − λ̂) / (c² π̂(1 − π̂))),   π̂ = (λ̂ − d)/c,

which is RRreg's ``cor(x.est) · √((1 + q_i)(1 + q_j))`` (its ``q = mask.var/x.var`` is
``λ(1 − λ)/(c² π(1 − π)) − 1`` for every binary design). ``estimate`` is r clipped to [−1, 1]
as RRcor does; ``estimate_unclipped`` is r. The SE is the delta method (Casella & Berger 2002,
§5.5.4) over the five sample moments (x̄, ȳ, x̄², ȳ², x̄y) with their sample covariance, the
gradient by central differences; the interval is Wald's, the p-value that of r = 0.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from dpcore.errors import ArgumentError
from dpcore.stats import z_value

Vector = npt.NDArray[np.float64]


@dataclasses.dataclass(frozen=True)
class Scale:
    """How a variable was measured: ``randomized`` with ``P(report 1 | X) = c·X + d`` (X binary),
    or direct (``randomized=False``; ``c``/``d`` unused)."""

    randomized: bool
    c: float = 1.0
    d: float = 0.0


DIRECT = Scale(randomized=False)


@dataclasses.dataclass(frozen=True)
class Correlation:
    n: int
    confidence: float
    estimate: float | None
    estimate_unclipped: float | None
    observed: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    z: float | None
    p_value: float | None


def _factor(scale: Scale, mean: float) -> float:
    """√(λ(1 − λ)/(c² π(1 − π))) for a randomized variable (1 for a direct one); NaN when π̂ is
    outside (0, 1) (the trait's variance is not identified there)."""
    if not scale.randomized:
        return 1.0
    pi = (mean - scale.d) / scale.c
    if not 0.0 < pi < 1.0:
        return math.nan
    return math.sqrt(mean * (1.0 - mean) / (scale.c**2 * pi * (1.0 - pi)))


def _r(m: Vector, sx: Scale, sy: Scale) -> float:
    mx, my, mxx, myy, mxy = (float(v) for v in m)
    vx, vy = mxx - mx * mx, myy - my * my
    if vx <= 0.0 or vy <= 0.0:
        return math.nan
    return (mxy - mx * my) / math.sqrt(vx * vy) * _factor(sx, mx) * _factor(sy, my)


def _check(
    x: Sequence[float], y: Sequence[float], weights: Sequence[float], scales: list[Scale]
) -> None:
    if not len(x) == len(y) == len(weights):
        raise ArgumentError("x", "x, y and weights need the same length")
    if any(not math.isfinite(w) or w < 0 for w in weights):
        raise ArgumentError("weights", "weights must be non-negative counts")
    for name, values, scale in (("x", x, scales[0]), ("y", y, scales[1])):
        if scale.randomized:
            if not (scale.c > 0 and scale.d >= 0 and scale.c + scale.d <= 1):
                raise ArgumentError(name, "a randomized variable needs 0 < c, 0 ≤ d, c + d ≤ 1")
            if any(v not in (0.0, 1.0) for v in values):
                raise ArgumentError(name, "a randomized variable's reports are 0 or 1")
        elif any(not math.isfinite(v) for v in values):
            raise ArgumentError(name, "values must be finite")


def correlation(
    x: Sequence[float],
    y: Sequence[float],
    *,
    x_scale: Scale,
    y_scale: Scale,
    weights: Sequence[float] | None = None,
    confidence: float = 0.95,
) -> Correlation:
    """The corrected correlation of X and Y (module docstring) from per-respondent values (or
    pooled patterns with ``weights`` = their counts). Figures are None when a variance is zero
    or a randomized trait's π̂ is outside (0, 1)."""
    w_list = [1.0] * len(x) if weights is None else [float(v) for v in weights]
    _check(x, y, w_list, [x_scale, y_scale])
    z_crit = z_value(confidence)
    w = np.asarray(w_list, dtype=np.float64)
    n = float(w.sum())
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    g = np.stack([xs, ys, xs * xs, ys * ys, xs * ys])  # 5 × patterns
    empty = Correlation(int(n), confidence, None, None, None, None, None, None, None, None)
    if n < 3:
        return empty
    m = (g @ w) / n
    r = _r(m, x_scale, y_scale)
    if not math.isfinite(r):
        return empty
    centred = g - m[:, None]
    cov_m = (centred * w) @ centred.T / (n - 1) / n  # Cov of the moment means
    grad = np.zeros(5)
    for i in range(5):
        h = 1e-6 * max(1.0, abs(float(m[i])))
        up, down = m.copy(), m.copy()
        up[i] += h
        down[i] -= h
        grad[i] = (_r(up, x_scale, y_scale) - _r(down, x_scale, y_scale)) / (2 * h)
    var = float(grad @ cov_m @ grad)
    se = math.sqrt(var) if math.isfinite(var) and var > 0 else None
    observed = _r(m, DIRECT, DIRECT)
    zs = r / se if se else None
    return Correlation(
        n=int(n),
        confidence=float(confidence),
        estimate=min(1.0, max(-1.0, r)),
        estimate_unclipped=r,
        observed=observed,
        std_error=se,
        ci_low=r - z_crit * se if se else None,
        ci_high=r + z_crit * se if se else None,
        z=zs,
        p_value=math.erfc(abs(zs) / math.sqrt(2.0)) if zs is not None else None,
    )
