"""Two-group linear designs: ``(λ₁, λ₂)ᵀ = A·θ`` for two parameters θ, from two binomials.

The machinery shared by the designs whose device draws one of two groups per respondent (reports
``{group, report}``): cheating detection (:mod:`dpcore.local.cheater`, θ = (π, β) on the simplex
π + β ≤ 1) and the unrelated question with an unknown innocuous prevalence
(:mod:`dpcore.local.designs.unrelated_question_unknown`, θ = (π, u) in the unit square). With
``λ̂_i = yes_i/n_i``: the moment estimator ``θ̂ = A⁻¹·λ̂`` (unbiased) and its covariance
``A⁻¹·diag(λ̂_i(1 − λ̂_i)/n_i)·A⁻ᵀ``. The model is saturated, so when θ̂ lies in the parameter
region it *is* the maximum-likelihood estimate; when it does not, the ML estimate lies on the
region's boundary, found by a golden-section search on each edge (the log-likelihood is concave
there, λ being linear in θ). Pure: numpy and the standard library.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import numpy as np

from dpcore.local.bounded_interval import bounded_interval

__all__ = [
    "EMPTY",
    "Edge",
    "ParameterEstimate",
    "Point",
    "boundary_ml",
    "covariance",
    "log_likelihood",
    "parameter_estimate",
]

Point = tuple[float, float]
Edge = tuple[Point, Point]
_SEARCH_STEPS = 200  # golden-section steps: (0.618)^200 ≈ 1e-42 of the edge


def log_likelihood(matrix: np.ndarray, theta: Point, yes: Sequence[int], n: Sequence[int]) -> float:
    """``Σ_i yes_i·ln λ_i + (n_i − yes_i)·ln(1 − λ_i)`` with ``λ_i = A_i0·θ₀ + A_i1·θ₁``."""
    total = 0.0
    for row, k_yes, m in zip(matrix, yes, n, strict=True):
        lam = theta[0] * float(row[0]) + theta[1] * float(row[1])
        for k, p in ((k_yes, lam), (m - k_yes, 1.0 - lam)):
            if k:
                total += -math.inf if p <= 0.0 else k * math.log(p)
    return total


def _edge_maximum(
    value_at: Callable[[Point], float], start: Point, end: Point
) -> tuple[float, Point]:
    """Golden-section maximum of a concave function on the segment start → end."""

    def point(t: float) -> Point:
        return (start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1]))

    def value(t: float) -> float:
        return value_at(point(t))

    lo, hi = 0.0, 1.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(_SEARCH_STEPS):
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        if value(a) < value(b):
            lo = a
        else:
            hi = b
    t = max(((lo + hi) / 2.0, 0.0, 1.0), key=value)
    return value(t), point(t)


def boundary_ml(
    matrix: np.ndarray, yes: Sequence[int], n: Sequence[int], edges: Sequence[Edge]
) -> Point:
    """The ML θ on the boundary of the parameter region (its ``edges``)."""

    def value_at(theta: Point) -> float:
        return log_likelihood(matrix, theta, yes, n)

    return max((_edge_maximum(value_at, a, b) for a, b in edges), key=lambda r: r[0])[1]


def covariance(inverse: np.ndarray, rates: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``A⁻¹·diag(λ_i(1 − λ_i)/n_i)·A⁻ᵀ``: the covariance of ``θ̂ = A⁻¹·λ̂`` at ``rates``."""
    result: np.ndarray = inverse @ np.diag(rates * (1.0 - rates) / sizes) @ inverse.T
    return result


@dataclasses.dataclass(frozen=True)
class ParameterEstimate:
    """One parameter: the reported (ML, in [0, 1]) estimate, the unbiased moment estimate, its
    SE and a Wald interval."""

    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


EMPTY = ParameterEstimate(None, None, None, None, None)


def parameter_estimate(
    point: float, unbiased: float, var: float, ivar: float, conf: float
) -> ParameterEstimate:
    """Plug-in SE; the bounded interval with σ ≥ the Agresti–Coull SE, widened to the point."""
    low, high = bounded_interval(unbiased, math.sqrt(max(var, ivar, 0.0)), 0.0, 1.0, conf)
    return ParameterEstimate(
        point, unbiased, math.sqrt(max(var, 0.0)), min(low, point), max(high, point)
    )
