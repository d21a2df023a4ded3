"""Debiasing and intervals for central-DP releases of randomized-response counts (pure, no Django).

A release publishes, for every question, one noisy count per cell (reported option):
``C̃_v = C_v + η_v`` with independent, mean-zero noise of variance ``V`` per cell (discrete Laplace
or discrete Gaussian, :mod:`privacy.noise`; ``V`` from :func:`privacy.calibrate.noise_variance`).
The number of respondents is *not* released separately (it would cost more budget), so every
estimator uses the noisy total ``Ñ = Σ_u C̃_u``.

Linear form (DESIGN.md §4). For every question kind the probability that a respondent *reports*
cell ``v`` is ``λ_v = c·π_v + d``:

* yes/no design (forced response, Warner, unrelated question): the "yes" cell with the design's
  ``(c, d)``;
* k-RR choice: ``c = p − q`` and ``d = q`` with keep probability ``p`` and other probability ``q``;
* category (asked directly): ``c = 1``, ``d = 0``.

Estimators::

    λ̂_v = C̃_v / Ñ,            π̂_v = (λ̂_v − d) / c          (``estimate_unclipped``)
    estimate = clip(π̂_v, 0, 1)

The *count* form ``(C̃_v − d·Ñ)/c`` is linear in the noisy counts, so it is exactly unbiased for the
noiseless ``(C_v − d·N)/c`` (the noise has mean zero); the proportion is a ratio of noisy counts
and is consistent with an O(V/N²) bias.

Variance (delta method). With ``k`` cells, ``∂λ_v/∂C_v = (1 − λ_v)/N`` and ``∂λ_v/∂C_u = −λ_v/N``
(u ≠ v). Independent noise of variance V on each cell adds
``V·[(1 − λ_v)² + (k − 1)·λ_v²]/N²``; multinomial sampling of the reports given N adds
``λ_v(1 − λ_v)/N``::

    Var(λ̂_v) ≈ λ_v(1 − λ_v)/N + V·[(1 − λ_v)² + (k − 1)·λ_v²]/N²
    SE(π̂_v) = √Var(λ̂_v) / |c|

(for k = 2 this is :func:`privacy.calibrate.expected_estimate_error`'s formula.)

Interval: the Wilson interval for λ (DESIGN.md §4) at the *effective* sample size
``N_eff = λ*(1 − λ*)/Var(λ̂)`` evaluated at ``λ* = clip(λ̂, 1/(2N), 1 − 1/(2N))`` (the Kish
design-effect device: the noise inflates the variance like a smaller sample would), then mapped
through ``(· − d)/c`` and clipped to [0, 1]. Without noise (V = 0) ``N_eff = N`` and this is
exactly the interval of the non-private estimates. If ``Ñ < 1`` nothing can be estimated: the
estimate is ``None`` and the interval is [0, 1].

Sources: Warner 1965; Wang et al. 2017 (k-RR); Wilson 1927; Kish 1965 (design effect); the
delta method, e.g. Casella & Berger §5.5.4.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

__all__ = [
    "CellEstimate",
    "cell_estimates",
    "count_estimate",
    "lambda_variance",
    "wilson_bounds",
    "z_value",
]


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile: z = Φ⁻¹((1 + confidence)/2)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie in (0, 1)")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_bounds(rate: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``rate`` observed on ``n`` (possibly fractional)."""
    rate = min(1.0, max(0.0, rate))
    if n <= 0:
        return 0.0, 1.0
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (rate + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(rate * (1.0 - rate) / n + z2 / (4.0 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def lambda_variance(lam: float, n: float, noise_variance: float, k: int) -> float:
    """Var(λ̂_v) ≈ λ(1 − λ)/N + V·[(1 − λ)² + (k − 1)λ²]/N² (see the module docstring)."""
    if n <= 0:
        return math.inf
    sampling = lam * (1.0 - lam) / n
    noise = noise_variance * ((1.0 - lam) ** 2 + (k - 1) * lam * lam) / (n * n)
    return sampling + noise


def count_estimate(noisy_count: float, noisy_total: float, c: float, d: float) -> float:
    """Debiased count of respondents with the trait/option: (C̃_v − d·Ñ)/c — linear, unbiased."""
    return (noisy_count - d * noisy_total) / c


@dataclass(frozen=True)
class CellEstimate:
    """The debiased estimate for one cell (option) of one question."""

    cell: str
    noisy_count: int
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float

    def as_dict(self) -> dict[str, object]:
        return {
            "option": self.cell,
            "noisy_count": self.noisy_count,
            "estimate": self.estimate,
            "estimate_unclipped": self.estimate_unclipped,
            "std_error": self.std_error,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
        }


def cell_estimates(
    noisy_counts: Mapping[str, int],
    *,
    c: float,
    d: float,
    noise_variance: float,
    confidence: float = 0.95,
    cells: Sequence[str] | None = None,
) -> list[CellEstimate]:
    """Debiased estimates, standard errors and intervals for every cell of one question.

    ``noisy_counts`` maps every cell of the question (all options, from the design — never only
    the ones present in the data) to its noisy count; ``(c, d)`` is the linear form of the design
    (module docstring); ``noise_variance`` is V, the variance of the noise added to each cell.
    """
    if c == 0 or not math.isfinite(c):
        raise ValueError("c must be finite and non-zero")
    order = list(cells) if cells is not None else list(noisy_counts)
    k = len(order)
    total = float(sum(noisy_counts[v] for v in order))
    z = z_value(confidence)
    out: list[CellEstimate] = []
    for v in order:
        count = int(noisy_counts[v])
        if total < 1.0:
            out.append(CellEstimate(v, count, None, None, None, 0.0, 1.0))
            continue
        lam_hat = count / total
        unclipped = (lam_hat - d) / c
        lam_clip = min(1.0, max(0.0, lam_hat))
        se = math.sqrt(lambda_variance(lam_clip, total, noise_variance, k)) / abs(c)
        edge = 1.0 / (2.0 * total)
        lam_star = min(1.0 - edge, max(edge, lam_clip))
        n_eff = lam_star * (1.0 - lam_star) / lambda_variance(lam_star, total, noise_variance, k)
        lo, hi = wilson_bounds(lam_clip, n_eff, z)
        a, b = (lo - d) / c, (hi - d) / c
        if a > b:
            a, b = b, a
        out.append(
            CellEstimate(
                cell=v,
                noisy_count=count,
                estimate=min(1.0, max(0.0, unclipped)),
                estimate_unclipped=unclipped,
                std_error=se,
                ci_low=min(1.0, max(0.0, a)),
                ci_high=min(1.0, max(0.0, b)),
            )
        )
    return out
