"""The hockey-stick divergence of a clone pair, summed in log space (docs/formulas.md#shuffling).

A *clone pair* (Feldman, McMillan & Talwar 2021 §5; 2023 §3) is, with C ~ Bin(n − 1, p) clones,
A ~ Bin(C, ½) and a coin Δ,

    P = (A + Δ, C + 1 − A − Δ), Δ ~ Bernoulli(α),   Q = the same with Δ ~ Bernoulli(1 − α),

scaled by a weight w ≤ 1 (the share of the target's report that differs between x and x′; see
:mod:`dpcore.central.shuffle`). C is visible, so δ(ε) = w·Σ_c P[C = c]·H_c(γ), γ = e^ε, with

    H_c(γ) = Σ_{a ≤ a*} (u·b_c(a) − v·b_c(a − 1)),   u = α − γ(1 − α),  v = γα − (1 − α),

b_c = Bin(c, ½), and a* the last a with a/(c − a + 1) < u/v (the ratio b_c(a − 1)/b_c(a) rises
with a, so the positive terms are a prefix). Both directions are equal (a ↦ c + 1 − a swaps P
and Q). Every term is positive, so the sum is taken in log space with no cancellation.

**No δ floor.** Nothing is computed as 1 − (a sum of probabilities):
- the c outside [lo, hi] are charged by Chernoff bounds, ln P[C < lo] ≤ −(n − 1)·KL(lo/(n − 1) ‖ p)
  (with H ≤ 1) and the same above hi (with H ≤ H_hi: H_c falls with c); lo and hi are where that
  bound reaches e^−800, far below any δ the app accepts (≥ 1e-100);
- the a below the summed window are bounded by a geometric series (the ratio is < 1 there);
- ln b_c(a) and ln P[C = c] come from one lgamma each plus exact log-ratios (relative error
  ≲ 1e-9 at n = 10⁶); every δ is multiplied by e^{10⁻⁶} to cover it.

**Blocks.** H_{c+1} ≤ H_c (P_{c+1}, Q_{c+1} are P_c, Q_c plus an independent coin: a
post-processing), so a block of c is bounded above by H at its first c and below by H at its last
one. Blocks are one c wide below c = 250 and ≈ 0.4 % of c above (one sd wide beyond mean + 8 sd
of C: H is smallest there; the lower tail, where a deep δ lives, stays fine), which
keeps the ε between the two ends within ≈ 0.2 % (bench/shuffle_accounting.py measures it);
``exact=True`` makes every block one c (the pair's exact δ, used by the tests against mpmath).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "TINY_EPS0",
    "ClonePair",
    "binomial_blocks",
    "binomial_edges",
    "block_bounds",
    "block_log_mass",
    "log_binom_pmf",
    "log_chernoff",
    "pair_log_delta",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: ε₀ below which no amplification is computed and ε₀ itself is stated (sound: the shuffle is a
#: post-processing of ε₀-DP reports): e^ε₀ − 1 and e^ε − 1 are then too close to rounding for the
#: bounds' e^(10⁻⁶) margin (an adversarial review found a bound below the truth at ε₀ ≈ 3e-8).
TINY_EPS0 = 1e-6
# ln of the mass of C left out on each side (Chernoff); e^-800 underflows every δ we state.
_LOG_TAIL = -800.0
# Multiplier on δ for the floating-point error of the log-pmfs (module notes).
_LOG_SAFETY = 1e-6
# Block width ≈ _BLOCK·c below mean + _BULK sd of C; one sd above.
_BLOCK = 0.004
_BULK = 8.0
# Window of a summed below a*, in sd of Bin(c, ½) (the rest: geometric bound).
_A_SPAN = 16.0


@dataclass(frozen=True)
class ClonePair:
    """n reports; p = P[another report is a clone]; α = P[Δ = 1] under x; weight w."""

    n: int
    p: float
    alpha: float
    weight: float = 1.0


def log_binom_pmf(lo: int, hi: int, n: int, log_p: float, log_q: float) -> FloatArray:
    """ln Bin(k; n, p) for k = lo … hi: lgamma at k = lo, then the exact ratios
    ln(P[k+1]/P[k]) = ln((n − k)/(k + 1)) + ln p − ln q, summed (vectorized)."""
    first = (
        math.lgamma(n + 1.0)
        - math.lgamma(lo + 1.0)
        - math.lgamma(n - lo + 1.0)
        + lo * log_p
        + (n - lo) * log_q
    )
    k = np.arange(lo, hi, dtype=np.float64)
    steps = np.log((n - k) / (k + 1.0)) + (log_p - log_q)
    return np.concatenate(([first], first + np.cumsum(steps)))


def log_chernoff(m: int, p: float, c: float) -> float:
    """ln of the Chernoff bound on P[Bin(m, p) ≤ c] (c ≤ mp) or P[Bin(m, p) ≥ c] (c ≥ mp)."""
    x = min(max(c / m, 0.0), 1.0)
    kl = 0.0
    if x > 0.0:
        kl += x * math.log(x / p)
    if x < 1.0:
        kl += (1.0 - x) * math.log((1.0 - x) / (1.0 - p))
    return -m * max(kl, 0.0)


def binomial_edges(m: int, p: float, log_tail: float = _LOG_TAIL) -> tuple[int, int]:
    """The narrowest [lo, hi] with Chernoff bounds P[C < lo], P[C > hi] ≤ e^log_tail (bisection
    on the monotone bounds), C ~ Bin(m, p)."""
    mean = m * p
    lo, top = 0, max(1, math.floor(mean))
    if log_chernoff(m, p, 0.0) <= log_tail:  # P[C < 1] is negligible: find the largest such c
        lo = 1
        if log_chernoff(m, p, top - 1.0) <= log_tail:
            lo = top
        while top - lo > 1:
            mid = (lo + top) // 2
            lo, top = (mid, top) if log_chernoff(m, p, mid - 1.0) <= log_tail else (lo, mid)
    hi, bottom = m, min(m - 1, math.ceil(mean))
    if log_chernoff(m, p, float(m)) <= log_tail:  # P[C > m − 1] is negligible
        hi = m - 1
        if log_chernoff(m, p, bottom + 1.0) <= log_tail:
            hi = bottom
        while hi - bottom > 1:
            mid = (bottom + hi) // 2
            bottom, hi = (bottom, mid) if log_chernoff(m, p, mid + 1.0) <= log_tail else (mid, hi)
    return lo, max(lo, hi)


def block_bounds(
    lo: int, hi: int, mean: float, sd: float, exact: bool
) -> tuple[IntArray, IntArray]:
    """First and last c of the blocks covering [lo, hi]: one c wide below c = 250, ≈ _BLOCK·c
    up to mean + _BULK·sd, one sd beyond (module notes); every block one c if ``exact``."""
    starts = [lo]
    while True:
        c = starts[-1]
        width = 1 if exact else max(1, int(_BLOCK * c))
        if not exact and c - mean > _BULK * sd:  # the lower tail stays fine: deep δ lives there
            width = max(width, int(sd))
        if c + width > hi:
            break
        starts.append(c + width)
    first = np.asarray(starts, dtype=np.int64)
    last = np.concatenate((first[1:] - 1, [hi])).astype(np.int64)
    return first, last


def block_log_mass(log_pmf: FloatArray, lo: int, first: IntArray, last: IntArray) -> FloatArray:
    """ln of each block's mass, log_pmf[i] being ln P[c = lo + i]."""
    return np.array(
        [
            np.logaddexp.reduce(log_pmf[s - lo : e - lo + 1])
            for s, e in zip(first, last, strict=True)
        ]
    )


@lru_cache(maxsize=128)
def binomial_blocks(
    m: int, p: float, exact: bool, log_tail: float = _LOG_TAIL
) -> tuple[IntArray, IntArray, FloatArray, float, float]:
    """Blocks of c for C ~ Bin(m, p): (first c, last c, ln P[block], ln P[C < lo], ln P[C > hi]),
    lo and hi where the Chernoff bound on what lies beyond reaches e^log_tail."""
    lo, hi = binomial_edges(m, p, log_tail)
    log_pmf = log_binom_pmf(lo, hi, m, math.log(p), math.log1p(-p))
    first, last = block_bounds(lo, hi, m * p, math.sqrt(m * p * (1.0 - p)), exact)
    below = log_chernoff(m, p, lo - 1) if lo > 0 else -math.inf
    above = log_chernoff(m, p, hi + 1) if hi < m else -math.inf
    return first, last, block_log_mass(log_pmf, lo, first, last), below, above


def _log_hockey(cs: IntArray, alpha: float, gamma: float) -> FloatArray:
    """ln H_c(γ) for each c in cs (an upper bound: the a left out are bounded geometrically)."""
    u, v = alpha - gamma * (1.0 - alpha), gamma * alpha - (1.0 - alpha)
    if u <= 0.0:
        return np.full(cs.shape, -math.inf)
    t = u / (u + v)  # a < t·(c + 1) ⇔ a/(c − a + 1) < u/v
    c = cs.astype(np.float64)
    a_star = np.minimum(np.ceil(t * (c + 1.0)) - 1.0, c)
    span = math.ceil(_A_SPAN * 0.5 * math.sqrt(float(cs.max()) + 1.0)) + 8
    j = np.arange(span, dtype=np.float64)
    a = a_star[:, None] - j[None, :]  # a*, a* − 1, …
    valid = a >= 0.0
    a_safe = np.where(valid, a, 0.0)
    cc = c[:, None]
    # ln b_c(a*) by lgamma; then ln b(a − 1) − ln b(a) = ln(a/(c − a + 1)), summed downwards.
    anchor = np.array(
        [
            math.lgamma(ci + 1.0) - math.lgamma(ai + 1.0) - math.lgamma(ci - ai + 1.0)
            for ci, ai in zip(c.tolist(), a_star.tolist(), strict=True)
        ]
    ) - c * math.log(2.0)
    step = np.log(np.where(valid[:, :-1] & (a_safe[:, :-1] > 0), a_safe[:, :-1], 1.0))
    step -= np.log(cc - a_safe[:, :-1] + 1.0)
    log_b = anchor[:, None] + np.concatenate((np.zeros((len(cs), 1)), np.cumsum(step, axis=1)), 1)
    ratio = a_safe / (cc - a_safe + 1.0)  # b(a − 1)/b(a)
    coef = u - v * ratio
    ok = valid & (coef > 0.0)
    log_terms = np.where(ok, log_b + np.log(np.where(ok, coef, 1.0)), -math.inf)
    total = np.logaddexp.reduce(log_terms, axis=1)
    # Below the window: Σ_{a < a_lo} u·b(a) ≤ u·b(a_lo)·ρ/(1 − ρ), ρ = a_lo/(c − a_lo + 1) < 1.
    a_lo = np.maximum(a_star - (span - 1), 0.0)
    has_tail = a_lo > 0.0
    rho = np.where(has_tail, a_lo / (c - a_lo + 1.0), 0.5)
    idx = np.minimum(a_star - a_lo, span - 1).astype(np.int64)
    log_b_lo = log_b[np.arange(len(cs)), idx]
    log_tail = math.log(u) + log_b_lo + np.log(rho) - np.log1p(-rho)
    out: FloatArray = np.where(has_tail, np.logaddexp(total, log_tail), total)
    return out


def pair_log_delta(
    pair: ClonePair, eps: float, *, exact: bool = False, lower: bool = False
) -> float:
    """ln of an upper bound on the pair's δ(ε) (``lower=True``: ln of a lower bound, no tails).

    With ``exact=True`` every block is one c, so upper and lower agree up to the safety factor
    and the tails (both ≤ e^-800)."""
    if pair.n < 2:
        return 0.0 if eps < math.log(pair.alpha / (1.0 - pair.alpha)) else -math.inf
    gamma = math.exp(eps)
    first, last, log_mass, below, above = binomial_blocks(pair.n - 1, pair.p, exact)
    log_h = _log_hockey(last if lower else first, pair.alpha, gamma)
    terms = log_mass + log_h
    total = float(np.logaddexp.reduce(terms)) if len(terms) else -math.inf
    if not lower:
        # C < lo: H ≤ 1; C > hi: H ≤ H_hi (H falls with c).
        h_hi = float(_log_hockey(last[-1:], pair.alpha, gamma)[0])
        total = float(np.logaddexp.reduce([total, below, above + h_hi])) + _LOG_SAFETY
    else:
        total -= _LOG_SAFETY
    return min(0.0, total + math.log(pair.weight))
