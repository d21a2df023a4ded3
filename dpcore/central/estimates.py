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

Number questions (DESIGN.md §5: "bounds declared at design time; clip, then noisy sum and noisy
count") — see :func:`grid_step`, :func:`sum_sensitivity` (with the proof), :func:`grid_sum` and
:func:`number_estimate`. The stored sum ``S`` is a float; adding integer noise to it as-is would
leak its fractional part (Mironov 2012), so it is first put on an integer grid ``U = round(S/s)``
and only the integer ``U`` gets (exact, integer) noise.

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
from statistics import NormalDist

__all__ = [
    "GRID_CELLS",
    "CellEstimate",
    "NumberEstimate",
    "cell_estimates",
    "count_estimate",
    "float_sum_error_units",
    "grid_step",
    "grid_sum",
    "lambda_variance",
    "max_safe_respondents",
    "number_estimate",
    "sum_sensitivity",
    "wilson_bounds",
    "z_value",
]

# The grid step is the largest "nice" number ({1, 2, 5}·10^k) not above B/GRID_CELLS.
GRID_CELLS = 1000
# IEEE-754 binary64 unit roundoff u = 2⁻⁵³.
UNIT_ROUNDOFF = Fraction(1, 2**53)


# Validation (every public function): a bad argument raises ValueError naming it. Counts are
# bounded by 2⁵³ (exact in a float; far above any survey, and noise of that size is no release).
MAX_COUNT = 2**53


def _real(field: str, value: object) -> float:
    """A finite real number (int, float, Fraction, ...; not bool) as a float, else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{field} must be a number (got {value!r:.60})")
    if not -1e308 < value < 1e308:  # also NaN; compares ints exactly, before float() could raise
        raise ValueError(f"{field} must be a finite number (got {value!r:.60})")
    return float(value)


def _count(field: str, value: object) -> int:
    """An integer (or integral float) count with |value| ≤ 2⁵³ (noisy counts may be negative)."""
    if type(value) is int and -MAX_COUNT <= value <= MAX_COUNT:  # the common case
        return value
    x = _real(field, value)
    if not x.is_integer() or abs(x) > MAX_COUNT:
        raise ValueError(f"{field} must be an integer of magnitude at most 2**53 (got {x!r})")
    return int(value)  # type: ignore[call-overload]


def _step(value: object) -> Fraction:
    """A grid step: a finite number > 0, converted exactly."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"step must be a positive number (got {value!r:.60})")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"step must be finite (got {value!r})")
    step = Fraction(value)  # type: ignore[arg-type]
    if step <= 0:
        raise ValueError(f"step must be > 0 (got {value!r})")
    return step


def z_value(confidence: float) -> float:
    """Two-sided standard-normal quantile: z = Φ⁻¹((1 + confidence)/2)."""
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ValueError(f"confidence must be a number in (0, 1) (got {confidence!r:.60})")
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must lie in (0, 1)")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_bounds(rate: float, n: float, z: float) -> tuple[float, float]:
    """Wilson score interval for a proportion ``rate`` observed on ``n`` (possibly fractional).

    ``n ≤ 0`` (or so small that z²/n overflows) gives [0, 1], the limit of the interval as
    n → 0; ``n = ∞`` gives the point [rate, rate].
    """
    rate = min(1.0, max(0.0, _real("rate", rate)))
    if isinstance(n, bool) or not isinstance(n, numbers.Real) or n != n:
        raise ValueError(f"n must be a number (got {n!r:.60})")
    z = _real("z", z)
    if n <= 0:
        return 0.0, 1.0
    n = float(n) if n < 1e308 else math.inf
    z2 = z * z
    denom = 1.0 + z2 / n
    if not math.isfinite(denom):
        return 0.0, 1.0
    centre = (rate + z2 / (2.0 * n)) / denom
    half = z * math.sqrt(rate * (1.0 - rate) / n + z2 / (4.0 * n) / n) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def lambda_variance(lam: float, n: float, noise_variance: float, k: int) -> float:
    """Var(λ̂_v) ≈ λ(1 − λ)/N + V·[(1 − λ)² + (k − 1)λ²]/N² (see the module docstring)."""
    lam, n = _real("lam", lam), _real("n", n)
    noise_variance = _real("noise_variance", noise_variance)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral) or not 1 <= k <= MAX_COUNT:
        raise ValueError(f"k must be a positive number of cells (got {k!r:.60})")
    if not 0.0 <= lam <= 1.0 or noise_variance < 0.0:
        raise ValueError("lam must lie in [0, 1] and noise_variance be ≥ 0")
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
        raise ValueError("c must be non-zero")
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
        raise ValueError("c must be finite and non-zero")
    noise_variance = _real("noise_variance", noise_variance)
    if noise_variance < 0.0:
        raise ValueError(f"noise_variance must be ≥ 0 (got {noise_variance!r})")
    if not isinstance(noisy_counts, Mapping):
        raise ValueError("noisy_counts must map each cell to its noisy count")
    order = list(cells) if cells is not None else list(noisy_counts)
    missing = [v for v in order if v not in noisy_counts]
    if missing:
        raise ValueError(f"noisy_counts has no count for cell {missing[0]!r:.60}")
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


def _bound(lo: float, hi: float) -> Fraction:
    """B = max(|min|, |max|) as an exact rational (the largest |value| an answer can have)."""
    lo, hi = _real("lo", lo), _real("hi", hi)
    if not lo < hi:
        raise ValueError("number bounds must be finite with min < max")
    bound = max(abs(Fraction(lo)), abs(Fraction(hi)))
    if bound == 0:  # pragma: no cover — impossible with lo < hi
        raise ValueError("number bounds must not both be 0")
    return bound


def grid_step(lo: float, hi: float) -> Fraction:
    """The grid step s for a number question with design-time bounds [lo, hi] (exact rational).

    s = the largest "nice" step m·10^k (m ∈ {1, 2, 5}, k ∈ ℤ) with s ≤ B/1000, B = max(|lo|, |hi|).
    It depends on the bounds only — never on the data. Why relative to B and not to hi − lo:
    the noise on the sum is proportional to K·s = (⌈B/s⌉ + 1)·s < B + 2s, i.e. at most 0.5 %
    above the ideal B, and B/s ∈ [1000, 2500) keeps the floating-point margin of
    :func:`sum_sensitivity` independent of where the range sits. Rounding the *total* to the grid
    moves it by at most s/2 ≤ B/2000 (once, not per answer). Nice steps make ``noisy_sum``
    print cleanly.
    """
    target = _bound(lo, hi) / GRID_CELLS
    # A float guess, corrected exactly below (log10 of num and den: a subnormal bound's Fraction
    # would underflow to 0.0 as a float).
    k = math.floor(math.log10(target.numerator) - math.log10(target.denominator))
    best: Fraction | None = None
    for exp in (k - 1, k, k + 1):
        for m in (1, 2, 5):
            step = m * (Fraction(10) ** exp)
            if step <= target and (best is None or step > best):
                best = step
    assert best is not None
    return best


def sum_sensitivity(lo: float, hi: float, step: Fraction | None = None) -> int:
    """K = ⌈B/s⌉ + 1: the add/remove sensitivity of U = round(S/s) in grid units.

    **Claim.** Let S(D) be the (float) sum of the answers of dataset D, every answer x satisfying
    lo ≤ x ≤ hi (enforced when the answer is submitted, and the bounds are frozen once a survey
    opens), B = max(|lo|, |hi|), and U(D) = round(S(D)/s) for any round-to-nearest-integer rule
    (ties either way). If D′ adds or removes one respondent, |U(D′) − U(D)| ≤ ⌈B/s⌉ + 1 = K,
    provided the floating-point accumulation error of the two sums is below one grid unit in
    total (η < 1, below).

    **Proof.** (1) Any nearest-integer rounding has |round(a) − a| ≤ ½, so
    |round(a) − round(b)| ≤ |a − b| + 1; the left side is an integer, hence
    |round(a) − round(b)| ≤ ⌊|a − b| + 1⌋ = ⌊|a − b|⌋ + 1.
    (2) With exact arithmetic S(D′) − S(D) = ±x with |x| ≤ B. The stored sums are floats: any
    summation order of N terms has |fl(Σ) − Σ| ≤ γ_{N−1}·Σ|xᵢ| with γ_k = ku/(1 − ku), u = 2⁻⁵³
    (Higham 2002, eq. 4.4; the tally shards and the SQL SUM over them form one summation tree).
    With N = the larger of the two respondent counts, a = S(D)/s and b = S(D′)/s (computed
    exactly: s is rational and S is converted exactly), |a − b| ≤ B/s + η with
    η = 2γ_N·N·B/s (:func:`float_sum_error_units`).
    (3) For 0 ≤ η < 1, ⌊B/s + η⌋ ≤ ⌈B/s⌉ (if B/s is an integer the floor is B/s; otherwise
    ⌊B/s + η⌋ ≤ ⌊B/s⌋ + 1 = ⌈B/s⌉). By (1), |U(D′) − U(D)| ≤ ⌈B/s⌉ + 1 = K. ∎

    The "+1" is needed: with s = 1, B = 1, S(D) = 0.5 → U = 0 (half-even) or 1, and S(D′) = 1.5
    → U′ = 2: |U′ − U| = 2 = ⌈B/s⌉ + 1. The count n changes by exactly 1 (sensitivity 1).
    η < 1 holds for every N ≤ :func:`max_safe_respondents` (over a million with B/s < 2500).
    Releases do not rely on it: they sum the stored answers exactly (:mod:`surveys.exact_sums`,
    η = 0), so the bound holds for any N and no release is refused because of N (a refusal that
    depends on N would itself leak N without noise).
    """
    s = grid_step(lo, hi) if step is None else _step(step)
    return math.ceil(_bound(lo, hi) / s) + 1


def float_sum_error_units(n: int, lo: float, hi: float, step: Fraction | None = None) -> Fraction:
    """η = 2γ_N·N·B/s: the bound, in grid units, on the floating-point error of two stored sums
    of at most N answers each (see :func:`sum_sensitivity`, step 2). Exact rational."""
    s = grid_step(lo, hi) if step is None else _step(step)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ValueError(f"n must be an integer (got {n!r:.60})")
    if n <= 1:
        return Fraction(0)
    if n >= 2**53:  # γ_n needs n·u < 1; far beyond max_safe_respondents anyway
        raise ValueError(f"n must be below 2**53 (got {n!r:.60})")
    gamma = n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)
    return 2 * gamma * n * _bound(lo, hi) / s


def max_safe_respondents(lo: float, hi: float, step: Fraction | None = None) -> int:
    """The largest N with η(N) < 1 (:func:`float_sum_error_units`); η grows with N.

    Capped at 2⁵² (a caller's own, very coarse ``step`` could otherwise push N to where
    γ_N = Nu/(1 − Nu) is undefined).
    """
    s = grid_step(lo, hi) if step is None else _step(step)
    lo_n, hi_n = 1, 2
    while float_sum_error_units(hi_n, lo, hi, s) < 1:
        if hi_n >= 2**52:
            return hi_n
        lo_n, hi_n = hi_n, hi_n * 2
    while hi_n - lo_n > 1:
        mid = (lo_n + hi_n) // 2
        if float_sum_error_units(mid, lo, hi, s) < 1:
            lo_n = mid
        else:
            hi_n = mid
    return lo_n


def grid_sum(total: float, step: Fraction) -> int:
    """U = round(S/s), computed exactly (S's binary value as a Fraction; ties to even)."""
    if isinstance(total, bool) or not isinstance(total, numbers.Real):
        raise ValueError(f"total must be a number (got {total!r:.60})")
    if isinstance(total, float) and not math.isfinite(total):
        raise ValueError("the stored sum must be finite")
    return round(Fraction(total) / _step(step))  # type: ignore[arg-type]


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
        raise ValueError("number bounds must be finite with min < max")
    sum_noise_variance = _real("sum_noise_variance", sum_noise_variance)
    count_noise_variance = _real("count_noise_variance", count_noise_variance)
    if sum_noise_variance < 0.0 or count_noise_variance < 0.0:
        raise ValueError("noise variances must be ≥ 0")
    z = z_value(confidence)
    exact_sum = _step(step) * units
    if not -1e308 < exact_sum < 1e308:
        raise ValueError(f"step · noisy_sum_units is beyond the float range (step = {step!r:.60})")
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
