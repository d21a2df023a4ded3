"""Exact power and sample size of the prevalence tests of :mod:`dpcore.local.power`.

Pure (numpy + stdlib). Formulas and sources: docs/formulas.md#exact-power.

The tests are the same two-sided level-α tests the normal approximation describes, on the
report counts — binomial, not normal — with z = Φ⁻¹(1 − α/2):

* one sample: X ~ Bin(n, λ₁), reject H₀: λ = λ₀ when ``|X/n − λ₀| / √(λ₀(1 − λ₀)/n) > z``;
* two groups of n: A ~ Bin(n, λ₀), B ~ Bin(n, λ₁), reject when the pooled statistic
  ``|B/n − A/n| / √(2·p̄(1 − p̄)/n) > z``, ``p̄ = (A + B)/(2n)`` (no rejection when p̄ ∈ {0, 1}).

The exact power is P_H₁(reject) = Σ over the rejection region of the binomial pmf — computed in
log space (the running sum of ``ln[(n − k)/(k + 1)·λ/(1 − λ)]``, normalised over the window,
then log-sum-exp), so nothing underflows or loses digits at n = 10⁹. For two groups the
region is, for each a, the b outside an interval (the statistic's square is a convex quadratic
in b minus a concave one), so the sum is Σ_a pmf_A(a)·[F_B(lo(a)) + S_B(hi(a))]: O(n^½) work,
not O(n). Each end of the interval is first put by the quadratic formula and then moved to the
first integer that the statistic itself (as written above, in floating point) rejects — the
region is the statistic's, not the formula's. The counts are summed over a window
``nλ ± t``, t = L/3 + √(L²/9 + 2Lσ²), L = ln(2/10⁻¹⁷), σ² = nλ(1 − λ): by Bernstein's inequality
the mass outside is below 10⁻¹⁷, so the power is exact to 10⁻¹⁶ (plus rounding).

Exact power is not monotone in n (the discrete rejection region jumps), so :func:`sample_size`
returns the smallest n such that every n' from n up to the search bound N has power ≥ the target
(N ≥ 1.1 × the normal-approximation n, raised until its power reaches the target); a smaller n
may reach the target by one tooth of the saw. Sources: Chow, Shao & Wang 2008 §4.1 (the tests);
Chernick & Liu 2002, Am. Stat. 56:149 (the saw-toothed exact power of binomial tests).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from dpcore.local import power as approximate

__all__ = ["SEARCH_LIMIT", "power", "sample_size"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: The largest search bound (n, per group for two samples) :func:`sample_size` scans to.
SEARCH_LIMIT = 20_000
_TAIL = math.log(2.0 / 1e-17)


def _window(n: int, lam: float) -> tuple[int, int]:
    """``[lo, hi]`` holding all but 10⁻¹⁷ of Bin(n, λ) (Bernstein)."""
    var = n * lam * (1.0 - lam)
    t = _TAIL / 3.0 + math.sqrt(_TAIL * _TAIL / 9.0 + 2.0 * _TAIL * var)
    return max(0, math.floor(n * lam - t)), min(n, math.ceil(n * lam + t))


def _log_pmf(n: int, lam: float, lo: int, hi: int) -> FloatArray:
    """``ln P(X = k)`` for k = lo…hi, X ~ Bin(n, λ), the window holding all but 10⁻¹⁷.

    Ratios of neighbours, ``P(k + 1)/P(k) = (n − k)/(k + 1) · λ/(1 − λ)``, summed in log space
    and normalised over the window: ``lgamma(n + 1)`` and ``k·ln λ`` are ~10¹⁰ at n = 10⁹, and
    their rounding (~10⁻⁶ absolute) would be the pmf's relative error; the ratios' is 10⁻¹⁶."""
    k = np.arange(lo, hi + 1, dtype=np.float64)
    if lam <= 0.0 or lam >= 1.0:
        sure = 0 if lam <= 0.0 else n
        return np.where(k == sure, 0.0, -np.inf)
    odds = lam / (1.0 - lam)
    steps = np.log((n - k[:-1]) / (k[:-1] + 1.0) * odds)
    unnormalised = np.concatenate(([0.0], np.cumsum(steps)))
    return np.asarray(unnormalised - _logsumexp(unnormalised))


def _logsumexp(values: FloatArray) -> float:
    top = float(np.max(values)) if values.size else -math.inf
    if top == -math.inf:
        return -math.inf
    return top + math.log(float(np.sum(np.exp(values - top))))


def _one_sample_rejects(x: IntArray, n: int, lam0: float, z: float) -> npt.NDArray[np.bool_]:
    se = math.sqrt(lam0 * (1.0 - lam0) / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = (x / n - lam0) / se
    return np.asarray(np.abs(np.nan_to_num(stat, nan=0.0)) > z)


def _two_sample_rejects(a: IntArray, b: IntArray, n: int, z: float) -> npt.NDArray[np.bool_]:
    pooled = (a + b) / (2.0 * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        stat = (b / n - a / n) / np.sqrt(2.0 * pooled * (1.0 - pooled) / n)
    return np.asarray(np.abs(np.nan_to_num(stat, nan=0.0, posinf=0.0, neginf=0.0)) > z)


def _edges(
    guess: FloatArray, centre: IntArray, rejects: Callable[[IntArray], BoolArray], n: int
) -> tuple[IntArray, IntArray]:
    """From guesses of the two roots: the largest rejected k below ``centre`` (−1 if none) and
    the smallest rejected k above it (n + 1 if none), checked with ``rejects`` itself."""
    low = np.clip(np.floor(guess[0]).astype(np.int64) + 2, -1, centre)
    high = np.clip(np.ceil(guess[1]).astype(np.int64) - 2, centre, n + 1)
    for _ in range(6):  # the formula is off by rounding only: a step or two
        move = (low >= 0) & ~rejects(np.maximum(low, 0))
        low = np.where(move, low - 1, low)
        move = (high <= n) & ~rejects(np.minimum(high, n))
        high = np.where(move, high + 1, high)
    return low, high


def _tails(log_pmf: FloatArray, lo: int, low: IntArray, high: IntArray) -> FloatArray:
    """``ln[P(X ≤ low) + P(X ≥ high)]`` per entry, from the window's log pmf starting at lo."""
    cdf = np.logaddexp.accumulate(log_pmf)
    sf = np.logaddexp.accumulate(log_pmf[::-1])[::-1]
    size = len(log_pmf)
    i_low = np.clip(low - lo, -1, size - 1)
    i_high = np.clip(high - lo, 0, size)
    left = np.where(i_low >= 0, cdf[np.maximum(i_low, 0)], -np.inf)
    right = np.where(i_high < size, sf[np.minimum(i_high, size - 1)], -np.inf)
    return np.asarray(np.logaddexp(left, right))


def _one_sample(n: int, lam0: float, lam1: float, z: float) -> float:
    lo, hi = _window(n, lam1)
    half = z * math.sqrt(n * lam0 * (1.0 - lam0))
    centre = np.array([min(max(round(n * lam0), 0), n)], dtype=np.int64)
    guess = np.array([[n * lam0 - half], [n * lam0 + half]])
    low, high = _edges(guess, centre, lambda x: _one_sample_rejects(x, n, lam0, z), n)
    return float(np.exp(_tails(_log_pmf(n, lam1, lo, hi), lo, low, high)[0]))


def _two_sample(n: int, lam0: float, lam1: float, z: float) -> float:
    a_lo, a_hi = _window(n, lam0)
    b_lo, b_hi = _window(n, lam1)
    a = np.arange(a_lo, a_hi + 1, dtype=np.int64)
    # 2n(b − a)² − z²·s(2n − s) = 0, s = a + b: (2n + z²)b² + βb + γ = 0.
    af = a.astype(np.float64)
    quad = 2.0 * n + z * z
    lin = -4.0 * n * af - 2.0 * n * z * z + 2.0 * af * z * z
    const = 2.0 * n * af * af - 2.0 * n * z * z * af + z * z * af * af
    root = np.sqrt(np.maximum(lin * lin - 4.0 * quad * const, 0.0))
    guess = np.vstack([(-lin - root) / (2.0 * quad), (-lin + root) / (2.0 * quad)])
    low, high = _edges(guess, a, lambda b: _two_sample_rejects(a, b, n, z), n)
    inner = _tails(_log_pmf(n, lam1, b_lo, b_hi), b_lo, low, high)
    return float(math.exp(_logsumexp(_log_pmf(n, lam0, a_lo, a_hi) + inner)))


def power(*, test: str, c: float, d: float, pi0: float, pi1: float, alpha: float, n: int) -> float:
    """Exact power of the two-sided level-α test at ``n`` respondents (per group for two
    samples): module docstring."""
    if test not in ("one_sample", "two_sample"):
        raise ValueError(f"test must be one_sample or two_sample (got {test!r})")
    if n < 1:
        raise ValueError("n must be at least 1")
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    lam0, lam1 = c * pi0 + d, c * pi1 + d
    exact = _one_sample(n, lam0, lam1, z) if test == "one_sample" else _two_sample(n, lam0, lam1, z)
    return min(max(exact, 0.0), 1.0)


def sample_size(
    *, test: str, c: float, d: float, pi0: float, pi1: float, alpha: float, target: float
) -> tuple[int, int]:
    """``(n, N)``: the smallest n whose exact power is ≥ ``target`` at every n' in [n, N], and the
    search bound N (module docstring). Raises ``ValueError`` when N would pass
    :data:`SEARCH_LIMIT` (the scan costs one exact power per n)."""
    normal = approximate.sample_size(
        test=test, c=c, d=d, pi0=pi0, pi1=pi1, alpha=alpha, target=target
    )

    def at(size: int) -> float:
        return power(test=test, c=c, d=d, pi0=pi0, pi1=pi1, alpha=alpha, n=size)

    bound = max(normal + 20, math.ceil(1.1 * normal))
    while True:
        if bound > SEARCH_LIMIT:
            raise ValueError(f"the exact sample size is searched up to n = {SEARCH_LIMIT} only")
        if at(bound) >= target:
            break
        bound = math.ceil(1.1 * bound) + 20
    n = bound
    while n > 1 and at(n - 1) >= target:
        n -= 1
    return n, bound
