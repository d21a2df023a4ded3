"""The mean score of an ordered (Likert) k-RR question, debiased, with its standard error.

Pure (standard library only). Formula and sources: docs/formulas.md#mean-score.

Options in their order carry the scores s_j = 1..k. Under k-RR a respondent reports option j with
probability λ_j = c·π_j + d (c = p − q, d = q; Wang, Blocki, Li & Jha 2017), so the unbiased
proportions π̂_j = (λ̂_j − d)/c give the unbiased mean score

    M̂ = Σ_j s_j·π̂_j = (R̄ − d·S)/c,    S = Σ_j s_j = k(k + 1)/2,

where R̄ = Σ_j s_j·λ̂_j is the plain mean of the *reported* scores. M̂ is an exact linear function
of the multinomial proportions λ̂ (Cov λ̂ = (diag λ − λλᵀ)/n), so no delta-method approximation is
needed: Var M̂ = Var(R)/(n·c²), Var(R) = Σ s_j²·λ_j − (Σ s_j·λ_j)², estimated by plugging in λ̂
(as the binary SE √(λ̂(1 − λ̂)/n)/c does).

The true mean score lies in [1, k]: ``estimate`` clips M̂ to it (display); ``estimate_unclipped`` is
M̂ itself (unbiased; export it). The interval is the boundary-aware one of
:mod:`dpcore.local.bounded_interval` on [1, k] — Wald's M̂ ± z·σ away from the ends, never of zero
width (the clipped Wald interval collapsed to [1, 1] whenever M̂ + z·SE < 1) — with σ the SE, but
never below the SE at Agresti–Coull adjusted proportions ``(count_j + z²/k)/(n + z²)`` (positive
even when every report is the same option).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

from dpcore.errors import ArgumentError
from dpcore.local.bounded_interval import adjusted_proportions, bounded_interval
from dpcore.local.designs import KRRDesign
from dpcore.stats import z_value
from dpcore.validation import count as _count

__all__ = ["MeanScoreEstimate", "estimate_mean_score"]


@dataclasses.dataclass(frozen=True)
class MeanScoreEstimate:
    """The debiased mean score (scores 1..k in option order) of ``n`` k-RR reports.

    With ``n == 0`` every float field is None; with ``n == 1`` there is a point estimate but no
    standard error or interval (one report carries no estimate of its spread)."""

    n: int
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float


def _clip(x: float, lo: float, hi: float) -> float:
    return lo if x < lo else (hi if x > hi else x)


def estimate_mean_score(
    design: KRRDesign, *, counts: Sequence[int], confidence: float = 0.95
) -> MeanScoreEstimate:
    """Mean score M̂ = (R̄ − d·k(k+1)/2)/c from the k-RR report counts ``counts`` (option order),
    SE = √((Σ s_j²·λ̂_j − R̄²)/n)/c, the interval of :func:`bounded_interval` on [1, k]."""
    values = tuple(_count(f"counts[{i}]", c) for i, c in enumerate(counts))
    k = design.k
    if len(values) != k:
        raise ArgumentError(
            "counts", f"counts has {len(values)} entries but the design has k = {k}"
        )
    z = z_value(confidence)
    n = sum(values)
    if n == 0:
        return MeanScoreEstimate(0, None, None, None, None, None, confidence)
    c, d = design.c, design.d
    rates = [count / n for count in values]
    reported_mean = math.fsum(s * lam for s, lam in enumerate(rates, start=1))
    reported_sq = math.fsum(s * s * lam for s, lam in enumerate(rates, start=1))
    unclipped = (reported_mean - d * k * (k + 1) / 2) / c
    estimate = _clip(unclipped, 1.0, float(k))
    if n < 2:
        return MeanScoreEstimate(n, estimate, unclipped, None, None, None, confidence)
    variance = max(reported_sq - reported_mean * reported_mean, 0.0)
    std_error = math.sqrt(variance / n) / c
    sigma = max(std_error, _interval_sigma(values, z, c))
    low, high = bounded_interval(unclipped, sigma, 1.0, float(k), confidence)
    return MeanScoreEstimate(n, estimate, unclipped, std_error, low, high, confidence)


def _interval_sigma(values: tuple[int, ...], z: float, c: float) -> float:
    """The interval's σ: √(Var(R)/ñ)/c at the Agresti–Coull adjusted proportions."""
    rates, total = adjusted_proportions(list(values), z)
    mean = math.fsum(s * lam for s, lam in enumerate(rates, start=1))
    square = math.fsum(s * s * lam for s, lam in enumerate(rates, start=1))
    return math.sqrt(max(square - mean * mean, 0.0) / total) / c
