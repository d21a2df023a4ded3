"""Debiasing and intervals for central-DP releases of randomized-response counts (pure, no Django).

A release publishes, for every question, one noisy count per cell (reported option):
``C̃_v = C_v + η_v`` with independent, mean-zero noise of variance ``V`` per cell (discrete Laplace
or discrete Gaussian, :mod:`dpcore.central.noise`; ``V`` from
:func:`dpcore.central.calibration.noise_variance`).
The number of respondents is *not* released separately (it would cost more budget), so every
estimator uses the noisy total ``Ñ = Σ_u C̃_u``.

Linear form (docs/formulas.md#linear-form). For every question kind the probability that a
respondent *reports* cell ``v`` is ``λ_v = c·π_v + d``:

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

(for k = 2 this is :func:`dpcore.central.calibration.expected_estimate_error`'s formula.)

Interval: the Wilson interval for λ (docs/formulas.md#wilson) at the *effective* sample size
``N_eff = λ*(1 − λ*)/Var(λ̂)`` evaluated at ``λ* = clip(λ̂, 1/(2N), 1 − 1/(2N))`` (the Kish
design-effect device: the noise inflates the variance like a smaller sample would), then mapped
through ``(· − d)/c`` and clipped to [0, 1]. Without noise (V = 0) ``N_eff = N`` and this is
exactly the interval of the non-private estimates. If ``Ñ < 1`` nothing can be estimated: the
estimate is ``None`` and the interval is [0, 1].

Number questions (docs/formulas.md#release-number: bounds declared at design time; clip, then a
noisy sum and a noisy count) — see :mod:`dpcore.central.sensitivity` (the grid step, the sum's
sensitivity with its proof, the grid sum) and :func:`number_estimate`. The stored sum ``S`` is a
float; adding integer noise to it as-is would leak its fractional part (Mironov 2012), so it is
first put on an integer grid ``U = round(S/s)`` and only the integer ``U`` gets (exact, integer)
noise.

Sources: Warner 1965; Wang et al. 2017 (k-RR); Wilson 1927; Kish 1965 (design effect); the
delta method, e.g. Casella & Berger §5.5.4; Popoviciu 1935 (variance of a bounded variable);
Higham 2002, *Accuracy and Stability of Numerical Algorithms*, §4.2 (floating-point summation).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from dpcore import stats
from dpcore.central.sensitivity import exact_step as _step
from dpcore.errors import ArgumentError
from dpcore.stats import z_value
from dpcore.validation import MAX_COUNT
from dpcore.validation import real as _real
from dpcore.validation import signed_count as _count

__all__ = [
    "CellEstimate",
    "NumberEstimate",
    "cell_estimates",
    "count_estimate",
    "lambda_variance",
    "number_estimate",
    "wilson_bounds",
    "z_value",
]


def wilson_bounds(rate: float, n: float, z: float) -> tuple[float, float]:
    """The Wilson interval of :func:`dpcore.stats.wilson_bounds`, its arguments validated: a
    ``rate`` outside [0, 1] is clipped into it, ``n`` may be fractional (an effective sample
    size), ≤ 0 (→ [0, 1]) or beyond the float range (→ ∞, the point [rate, rate])."""
    rate = min(1.0, max(0.0, _real("rate", rate)))
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or n != n:
        raise ArgumentError("n", f"n must be a number (got {n!r:.60})")
    z = _real("z", z)
    n = float(n) if n < 1e308 else math.inf
    return stats.wilson_bounds(rate, n, z)


def lambda_variance(lam: float, n: float, noise_variance: float, k: int) -> float:
    """Var(λ̂_v) ≈ λ(1 − λ)/N + V·[(1 − λ)² + (k − 1)λ²]/N² (see the module docstring)."""
    lam, n = _real("lam", lam), _real("n", n)
    noise_variance = _real("noise_variance", noise_variance)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= MAX_COUNT:
        raise ArgumentError("k", f"k must be a positive number of cells (got {k!r:.60})")
    if not 0.0 <= lam <= 1.0 or noise_variance < 0.0:
        raise ArgumentError("lam", "lam must lie in [0, 1] and noise_variance be ≥ 0")
    if n <= 0:
        return math.inf
    sampling = lam * (1.0 - lam) / n
    noise = noise_variance * ((1.0 - lam) ** 2 + (k - 1) * lam * lam) / n / n
    return sampling + noise


def count_estimate(noisy_count: float, noisy_total: float, c: float, d: float) -> float:
    """Debiased count of respondents with the trait/option: (C̃_v − d·Ñ)/c — linear, unbiased."""
    noisy_count = _real("noisy_count", noisy_count)
    noisy_total = _real("noisy_total", noisy_total)
    c, d = _real("c", c), _real("d", d)
    if c == 0.0:
        raise ArgumentError("c", "c must be non-zero")
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
    c, d = _real("c", c), _real("d", d)
    if c == 0.0:
        raise ArgumentError("c", "c must be finite and non-zero")
    noise_variance = _real("noise_variance", noise_variance)
    if noise_variance < 0.0:
        raise ArgumentError(
            "noise_variance", f"noise_variance must be ≥ 0 (got {noise_variance!r})"
        )
    if not isinstance(noisy_counts, Mapping):
        raise ArgumentError("noisy_counts", "noisy_counts must map each cell to its noisy count")
    order = list(cells) if cells is not None else list(noisy_counts)
    missing = [v for v in order if v not in noisy_counts]
    if missing:
        raise ArgumentError(
            "noisy_counts", f"noisy_counts has no count for cell {missing[0]!r:.60}"
        )
    counts = {v: _count(f"noisy_counts[{v!r:.60}]", noisy_counts[v]) for v in order}
    k = len(order)
    total = float(sum(counts.values()))
    z = z_value(confidence)
    out: list[CellEstimate] = []
    for v in order:
        count = counts[v]
        if total < 1.0:
            out.append(CellEstimate(v, count, None, None, None, 0.0, 1.0))
            continue
        lam_hat = count / total
        unclipped = (lam_hat - d) / c
        lam_clip = min(1.0, max(0.0, lam_hat))
        se = math.sqrt(lambda_variance(lam_clip, total, noise_variance, k)) / abs(c)
        edge = 1.0 / (2.0 * total)
        lam_star = min(1.0 - edge, max(edge, lam_clip))
        var_star = lambda_variance(lam_star, total, noise_variance, k)
        n_eff = lam_star * (1.0 - lam_star) / var_star if var_star > 0.0 else math.inf
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


# --------------------------------------------------------------------------- number questions


@dataclass(frozen=True)
class NumberEstimate:
    """The released sum, count and mean of one number question (one group)."""

    noisy_sum: float
    noisy_count: int
    mean: float | None
    mean_unclipped: float | None
    std_error: float | None
    ci_low: float
    ci_high: float
    note: str | None = None


def number_estimate(
    *,
    noisy_sum_units: int,
    noisy_count: int,
    step: Fraction,
    lo: float,
    hi: float,
    sum_noise_variance: float,
    count_noise_variance: float,
    confidence: float = 0.95,
) -> NumberEstimate:
    """Mean of a number question from its noisy grid sum and noisy count (post-processing).

    ``noisy_sum = s·Ũ`` with Ũ = U + η_S (in the question's units; E = s·U, within s/2 of the
    true sum S), ``ñ = n + η_n``; ``sum_noise_variance`` V_S is the variance of s·η_S (value
    units²) and ``count_noise_variance`` V_n that of η_n.

    * mean = clip(s·Ũ/ñ, lo, hi); ``None`` (with a note) if ñ ≤ 0.
    * SE² = ((hi − lo)/2)²/ñ + (V_S + mean²·V_n)/ñ². The second term is the noise, by the delta
      method for a ratio of independent noisy terms: Var(S̃/ñ) ≈ (V_S + μ²V_n)/n². The first is a
      *conservative* sampling term: any variable in [lo, hi] has variance ≤ (hi − lo)²/4
      (Popoviciu 1935). The data's own spread (Σx²) is deliberately not used — releasing it would
      need its own budget.
    * interval: mean ± z·SE, clipped to [lo, hi]; [lo, hi] when there is no mean.
    """
    units = _count("noisy_sum_units", noisy_sum_units)
    noisy_count = _count("noisy_count", noisy_count)
    lo, hi = _real("lo", lo), _real("hi", hi)
    if not lo < hi:
        raise ArgumentError("bounds", "number bounds must be finite with min < max")
    sum_noise_variance = _real("sum_noise_variance", sum_noise_variance)
    count_noise_variance = _real("count_noise_variance", count_noise_variance)
    if sum_noise_variance < 0.0 or count_noise_variance < 0.0:
        raise ArgumentError("noise_variance", "noise variances must be ≥ 0")
    z = z_value(confidence)
    exact_sum = _step(step) * units
    if not -1e308 < exact_sum < 1e308:
        raise ArgumentError(
            "step", f"step · noisy_sum_units is beyond the float range (step = {step!r:.60})"
        )
    noisy_sum = float(exact_sum)
    if noisy_count <= 0:
        return NumberEstimate(
            noisy_sum=noisy_sum,
            noisy_count=noisy_count,
            mean=None,
            mean_unclipped=None,
            std_error=None,
            ci_low=lo,
            ci_high=hi,
            note="The noisy count is not positive: no mean can be estimated.",
        )
    n = float(noisy_count)
    unclipped = noisy_sum / n
    mean = min(hi, max(lo, unclipped))
    half_range = (hi - lo) / 2.0
    variance = half_range * half_range / n + (
        sum_noise_variance + mean * mean * count_noise_variance
    ) / (n * n)
    se = math.sqrt(variance)
    half = z * se
    return NumberEstimate(
        noisy_sum=noisy_sum,
        noisy_count=noisy_count,
        mean=mean,
        mean_unclipped=unclipped,
        std_error=se,
        ci_low=max(lo, mean - half),
        ci_high=min(hi, mean + half),
    )
