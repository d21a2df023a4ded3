"""Goodness of fit of a design whose parameters are bounded: the likelihood-ratio test of the
constrained (model) fit against the unconstrained (saturated) one.

Pure: numpy and the standard library. Formulas and sources: docs/formulas.md#goodness-of-fit.

The designs here are *exactly identified* (as many report rates as parameters: one for a
single-group design such as crosswise, two for cheating detection), so without constraints the
model fits any data perfectly. What the data can contradict is the parameter region: π, β, γ ≥ 0
(cheating detection: the simplex) or 0 ≤ π ≤ 1 (one group: λ between ``d`` and ``c + d``). A
moment estimate outside the region is evidence against the model, measured by

    G² = 2·Σ_i [ℓ_i(λ̂_i) − ℓ_i(λ̃_i)],  ℓ_i(λ) = yes_i·ln λ + (n_i − yes_i)·ln(1 − λ),

with λ̂ the observed rates and λ̃ the report rates at the constrained ML estimate. G² = 0 when the
moment estimate lies in the region. Its null distribution is not χ²: the truth may lie on the
region's boundary, where (Self & Liang 1987, JASA 82:605–610, case with a cone; Shapiro 1985,
Biometrika 72:133–144) G² is asymptotically a χ̄² mixture ``Σ_j w_j·χ²_j``:

* inside the region: G² → 0 (the test is conservative there);
* on one face (one constraint active, e.g. γ = 0): ``½χ²₀ + ½χ²₁``;
* at a vertex where two faces meet at angle α (measured in the Fisher metric
  ``W = diag(n_i/(λ_i(1 − λ_i)))`` of the report rates): ``w₀ = α/2π``, ``w₁ = ½``,
  ``w₂ = (π − α)/2π`` (Kudô 1963; Shapiro 1985, §3). If W is degenerate there (a rate of 0 or 1)
  the least favourable weights ``(0, ½, ½)`` are used.

The p-value uses the weights at the constrained estimate (plug-in): ``p = Σ_j w_j·P(χ²_j > G²)``,
``P(χ²₀ > g) = 0`` for g > 0; ``df`` reported is the largest j with ``w_j > 0``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from dpcore.local.compare import chi2_sf

__all__ = ["BoundaryFit", "binary_fit", "chi_bar_sf", "two_group_fit", "vertex_weights"]

#: A parameter within this of a constraint counts as on it (the golden-section search's precision
#: is far finer; a moment estimate that far inside has G² ≈ 0 anyway).
ACTIVE_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True)
class BoundaryFit:
    """The likelihood-ratio test of the model's region: ``g2`` (G²), its ``df`` (largest χ²
    component), ``p_value`` and the χ̄² ``weights`` (w₀, w₁, …) it was referred to."""

    g2: float
    df: int
    p_value: float
    weights: tuple[float, ...]


def chi_bar_sf(value: float, weights: Sequence[float]) -> float:
    """``P(χ̄² > value) = Σ_{j≥1} w_j·P(χ²_j > value)`` (1 when ``value`` ≤ 0)."""
    if value <= 0.0:
        return 1.0
    return min(1.0, sum(w * chi2_sf(value, j) for j, w in enumerate(weights) if j and w > 0.0))


def _binomial_ll(yes: int, n: int, rate: float) -> float:
    total = 0.0
    for k, p in ((yes, rate), (n - yes, 1.0 - rate)):
        if k:
            total += -math.inf if p <= 0.0 else k * math.log(p)
    return total


def _g2(yes: Sequence[int], n: Sequence[int], fitted: Sequence[float]) -> float:
    """``2·Σ_i [ℓ_i(yes_i/n_i) − ℓ_i(fitted_i)]`` (never negative: rounding clipped)."""
    total = 0.0
    for k, m, rate in zip(yes, n, fitted, strict=True):
        total += _binomial_ll(k, m, k / m) - _binomial_ll(k, m, rate)
    return max(0.0, 2.0 * total)


def _fit(g2: float, weights: tuple[float, ...]) -> BoundaryFit:
    df = max(j for j, w in enumerate(weights) if w > 0.0)
    return BoundaryFit(g2, max(df, 1), chi_bar_sf(g2, weights), weights)


def binary_fit(*, yes: int, n: int, c: float, d: float) -> BoundaryFit | None:
    """One group with ``λ = c·π + d``, 0 ≤ π ≤ 1: λ̃ is λ̂ clipped to ``[d, c + d]`` (sorted);
    G² against ``½χ²₀ + ½χ²₁`` (one bound is active whenever G² > 0). None without reports."""
    if n <= 0:
        return None
    low, high = sorted((d, c + d))
    rate = yes / n
    fitted = min(max(rate, low), high)
    g2 = _g2([yes], [n], [fitted]) if fitted != rate else 0.0
    return _fit(g2, (0.5, 0.5))


def vertex_weights(
    matrix: np.ndarray, rates: Sequence[float], n: Sequence[int], edges: Sequence[Sequence[float]]
) -> tuple[float, float, float]:
    """χ̄² weights at a vertex whose two faces run along the θ-directions ``edges``: the angle α
    between ``A·e₁`` and ``A·e₂`` in the metric ``W = diag(n_i/(λ_i(1 − λ_i)))``."""
    lam = np.asarray(rates, dtype=np.float64)
    if np.any(lam <= 0.0) or np.any(lam >= 1.0):
        return (0.0, 0.5, 0.5)  # W degenerate: the least favourable weights
    w = np.asarray(n, dtype=np.float64) / (lam * (1.0 - lam))
    a, b = (matrix @ np.asarray(e, dtype=np.float64) for e in edges)
    cos = float(a @ (w * b)) / math.sqrt(float(a @ (w * a)) * float(b @ (w * b)))
    alpha = math.acos(min(1.0, max(-1.0, cos)))
    return (alpha / (2.0 * math.pi), 0.5, (math.pi - alpha) / (2.0 * math.pi))


def two_group_fit(
    *,
    matrix: np.ndarray,
    yes: Sequence[int],
    n: Sequence[int],
    theta: tuple[float, float],
    vertex_edges: Sequence[Sequence[float]] | None,
    inside: bool,
) -> BoundaryFit | None:
    """Two groups with ``λ = A·θ``: ``theta`` is the constrained ML estimate; ``inside`` when the
    moment estimate is in the region (G² = 0, p = 1); ``vertex_edges`` the θ-directions of the two
    faces when ``theta`` is a vertex of the region (None on a face). None without reports in
    either group."""
    if min(n) <= 0:
        return None
    if inside:
        return BoundaryFit(0.0, 1, 1.0, (1.0,))
    fitted = [float(row[0] * theta[0] + row[1] * theta[1]) for row in matrix]
    g2 = _g2(yes, n, fitted)
    weights: tuple[float, ...] = (0.5, 0.5)
    if vertex_edges is not None:
        weights = vertex_weights(matrix, fitted, n, vertex_edges)
    return _fit(g2, weights)
