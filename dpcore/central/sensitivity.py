"""Sensitivity of a release and the noise scaled to it (pure: plain values, never a model).

A release is ``m`` independent *contributions*: one histogram per yes/no, choice or category
question (Δ = 1: one respondent moves one cell by one), one per option of a multi-select
question (:func:`multi_sensitivities`: k histograms, so L1 = k and L2 = √k), two per number
question — the grid sum U = round(S/s) with Δ = K = ⌈B/s⌉ + 1 (:func:`sum_sensitivity`, proof
there) and the count n with Δ = 1. Noise is scaled per contribution from one *unit* parameter
(:mod:`dpcore.central.mechanisms`, the one place it is derived): a contribution of sensitivity
Δ gets Δ·t (discrete Laplace) or (Δσ)² (discrete Gaussian). The derivation of the privacy argument:
:mod:`privacy.services.plan`.

Number questions (docs/formulas.md#number-sums: bounds declared at design time; clip, then a
noisy sum and a noisy count): the stored sum ``S`` is a float; adding integer noise to it as-is
would leak its fractional part (Mironov 2012), so it is first put on an integer grid
``U = round(S/s)`` and only the integer ``U`` gets (exact, integer) noise. Higham 2002, *Accuracy
and Stability of Numerical Algorithms*, §4.2 (floating-point summation).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from dpcore.central.events import Event
from dpcore.central.mechanisms import (
    DiscreteGaussianRho,
    DiscreteLaplace,
    UnitNoise,
    accounted_sigma,
    mechanism_of,
)
from dpcore.errors import ArgumentError, PrivacyParameterError
from dpcore.validation import real as _real

__all__ = [
    "GRID_CELLS",
    "Contribution",
    "NumberGrid",
    "UnitNoise",
    "accounted_sigma",
    "exact_step",
    "float_sum_error_units",
    "grid_step",
    "grid_sum",
    "max_safe_respondents",
    "multi_sensitivities",
    "number_grid",
    "release_events",
    "sum_sensitivity",
    "unit_contributions",
    "unit_noise",
]

# The grid step is the largest "nice" number ({1, 2, 5}·10^k) not above B/GRID_CELLS.
GRID_CELLS = 1000
# IEEE-754 binary64 unit roundoff u = 2⁻⁵³.
UNIT_ROUNDOFF = Fraction(1, 2**53)


def exact_step(value: object) -> Fraction:
    """A grid step: a finite number > 0, converted exactly."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError("step", f"step must be a positive number (got {value!r:.60})")
    if isinstance(value, float) and not math.isfinite(value):
        raise ArgumentError("step", f"step must be finite (got {value!r})")
    # typeshed's Fraction() overloads take int, float, Decimal, Rational or str, not numbers.Real.
    step: Fraction = Fraction(value)  # type: ignore[call-overload]
    if step <= 0:
        raise ArgumentError("step", f"step must be > 0 (got {value!r})")
    return step


def _bound(lo: float, hi: float) -> Fraction:
    """B = max(|min|, |max|) as an exact rational (the largest |value| an answer can have)."""
    lo, hi = _real("lo", lo), _real("hi", hi)
    if not lo < hi:
        raise ArgumentError("bounds", "number bounds must be finite with min < max")
    bound = max(abs(Fraction(lo)), abs(Fraction(hi)))
    if bound == 0:  # pragma: no cover — impossible with lo < hi
        raise ArgumentError("bounds", "number bounds must not both be 0")
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
    Releases do not rely on it: they sum the stored answers exactly
    (:mod:`surveys.analysis.exact_sums`,
    η = 0), so the bound holds for any N and no release is refused because of N (a refusal that
    depends on N would itself leak N without noise).
    """
    s = grid_step(lo, hi) if step is None else exact_step(step)
    return math.ceil(_bound(lo, hi) / s) + 1


def float_sum_error_units(n: int, lo: float, hi: float, step: Fraction | None = None) -> Fraction:
    """η = 2γ_N·N·B/s: the bound, in grid units, on the floating-point error of two stored sums
    of at most N answers each (see :func:`sum_sensitivity`, step 2). Exact rational."""
    s = grid_step(lo, hi) if step is None else exact_step(step)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise ArgumentError("n", f"n must be an integer (got {n!r:.60})")
    if n <= 1:
        return Fraction(0)
    if n >= 2**53:  # γ_n needs n·u < 1; far beyond max_safe_respondents anyway
        raise ArgumentError("n", f"n must be below 2**53 (got {n!r:.60})")
    gamma = n * UNIT_ROUNDOFF / (1 - n * UNIT_ROUNDOFF)
    return 2 * gamma * n * _bound(lo, hi) / s


def max_safe_respondents(lo: float, hi: float, step: Fraction | None = None) -> int:
    """The largest N with η(N) < 1 (:func:`float_sum_error_units`); η grows with N.

    Capped at 2⁵² (a caller's own, very coarse ``step`` could otherwise push N to where
    γ_N = Nu/(1 − Nu) is undefined).
    """
    s = grid_step(lo, hi) if step is None else exact_step(step)
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


def grid_sum(total: float | Fraction, step: Fraction) -> int:
    """U = round(S/s), computed exactly (S's binary value as a Fraction; ties to even)."""
    if isinstance(total, bool) or not isinstance(total, numbers.Real):
        raise ArgumentError("total", f"total must be a number (got {total!r:.60})")
    if isinstance(total, float) and not math.isfinite(total):
        raise ArgumentError("total", "the stored sum must be finite")
    return round(Fraction(total) / exact_step(step))


# ------------------------------------------------------------------------ contributions and noise


def multi_sensitivities(options: int) -> list[int]:
    """Δ_j of a multi-select question with k options: k contributions of Δ = 1.

    **Claim.** Each respondent of a multi question sends one report per option, (yes or no for
    option i). Release option i as its own two-cell histogram (YES_i, NO_i). Adding or removing
    one respondent moves exactly one cell of *every* option's histogram by one: the question's
    cells move by L1 = k and L2 = √k in total — not 1, as a single-report question's would.

    **Proof.** The respondent adds 1 to YES_i or to NO_i for each i = 1…k and to nothing else
    of the question. Per histogram i the change is one cell by one (Δ_i = 1 in L1 and L2);
    across the k histograms Σ_i Δ_i = k and √(Σ_i Δ_i²) = √k. So counting the question as k
    contributions of Δ = 1 — each with the unit noise t = m/ε (or σ) on each cell — charges
    each option ε/m (or 1/(2σ²) zCDP) and the release m·(ε/m) = ε in total, with m counting all
    k: the reported ε is the true one, never below it. ∎
    """
    if isinstance(options, bool) or not isinstance(options, int) or options < 1:
        raise ArgumentError("options", f"a multi question has k ≥ 1 options (got {options!r})")
    return [1] * options


@dataclass(frozen=True)
class Contribution:
    """One independently noised piece of a release — a histogram, or a sum on a grid.

    Adding or removing one record changes exactly one of its cells, by at most ``sensitivity``
    (so Δ is the same in L1 and L2); its noise is the unit noise scaled by Δ. The caller says
    what its records contribute: dpcore knows no question kinds.
    """

    sensitivity: int = 1

    def __post_init__(self) -> None:
        k = self.sensitivity
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ArgumentError("sensitivity", f"a contribution has Δ ≥ 1 (got {k!r})")


def unit_contributions(count: int) -> tuple[Contribution, ...]:
    """``count`` histograms of Δ = 1 (e.g. one per option of :func:`multi_sensitivities`)."""
    return tuple(Contribution(1) for _ in range(count))


@dataclass(frozen=True)
class NumberGrid:
    """A number question's design-time grid: step s, sum sensitivity K, float-safe N."""

    lo: float
    hi: float
    step: Fraction
    sensitivity: int
    max_respondents: int


def number_grid(lo: float, hi: float) -> NumberGrid:
    """The grid of a number question, from its declared bounds only (never from the data)."""
    lo, hi = float(lo), float(hi)
    step = grid_step(lo, hi)
    return NumberGrid(
        lo=lo,
        hi=hi,
        step=step,
        sensitivity=sum_sensitivity(lo, hi, step),
        max_respondents=max_safe_respondents(lo, hi, step),
    )


def unit_noise(
    *,
    mechanism: str,
    contributions: int,
    epsilon: float | None = None,
    rho: float | None = None,
    delta: float | None = None,
    sigma: float | None = None,
    sensitivities: Sequence[int] | None = None,
) -> UnitNoise:
    """The unit noise of the mechanism named by plain fields: :func:`~dpcore.central.mechanisms.
    mechanism_of`, then its :meth:`unit_noise` (the one derivation)."""
    chosen = mechanism_of(mechanism, epsilon=epsilon, delta=delta, rho=rho, sigma=sigma)
    return chosen.unit_noise(contributions, sensitivities)


def release_events(
    *,
    mechanism: str,
    contributions: int,
    epsilon: float | None,
    rho: float | None,
    sensitivities: Sequence[int] | None = None,
    parameter: Fraction | None = None,
) -> list[Event]:
    """What a release is charged, each parameter rounded *up* (never under-charging): the
    events of :mod:`dpcore.central.mechanisms` for plain fields (``rho`` is the unit noise's ρ for
    gaussian, ``parameter`` its exact σ², needed with ``sensitivities``).

    Store the list with :func:`dpcore.central.event_codec.encode_release` (parts, if they differ).
    """
    if mechanism == DiscreteLaplace.name:
        laplace = mechanism_of(mechanism, epsilon=epsilon)
        return laplace.events(contributions, laplace.unit_noise(contributions), sensitivities)
    mechanism_of(mechanism, rho=1.0)  # an unknown name is refused by name
    if not (sensitivities and parameter is not None) and rho is None:
        raise PrivacyParameterError("rho", "required for the gaussian mechanism")
    unit = UnitNoise(parameter or Fraction(0), 0.0, 0.0, rho)
    exact = sensitivities if parameter is not None else None
    return DiscreteGaussianRho(rho or 1.0).events(contributions, unit, exact)
