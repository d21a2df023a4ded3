"""Privacy amplification by shuffling (Feldman, McMillan & Talwar 2021, "Hiding Among the Clones",
FOCS 2021, arXiv:2012.12803).

Setting: n people each send one report made by an ε₀-DP local randomizer (here: one row of
randomized answers; its ε₀ is the sum of the row's questions' local ε, by composition), and the
recipient sees only the *shuffled multiset* of reports — no order, no link to anyone, nothing
else. Then the shuffled output is (ε, δ)-DP with ε far below ε₀ when n is large.

**The numerical bound** (FMT 2021, Thm. 3.2 and §5). Every other person's report is, with
probability e^{−ε₀}, a "clone" — distributed like the target's report on x₁ or on x₁′, each with
probability ½ — so the whole output is a post-processing of the pair, with C ~ Bin(n − 1, e^{−ε₀})
and A ~ Bin(C, ½):

    P = (A + Δ, C + 1 − A − Δ), Δ ~ Bernoulli(α),     Q = the same with Δ ~ Bernoulli(1 − α),
    α = e^{ε₀}/(1 + e^{ε₀}).

C is visible (it is the total), so δ(ε) = Σ_c P[C = c]·H_c(ε) with H_c the hockey-stick
divergence of P_c(a) = α·b_c(a) + (1 − α)·b_c(a − 1) against Q_c(a) = α·b_c(a − 1) + (1 − α)·b_c(a),
b_c = Bin(c, ½), a = 0 … c + 1 (both directions are equal: a ↦ c + 1 − a swaps them). P_c/Q_c falls
with a, so H_c(ε) = Σ_{a} (P_c(a) − e^ε Q_c(a))₊ is a prefix sum.

H_c decreases in c: P_{c+1} and Q_{c+1} are P_c and Q_c plus an independent Bernoulli(½) — a
post-processing. So over a block c ∈ [c₁, c₂] the value at c₁ bounds all of it, and the mass of C
outside the computed range counts with H ≤ 1: the result is an upper bound on δ(ε) of the FMT
pair, hence of the shuffled output. ε is then found by bisection (the upper end is returned), and
is never above ε₀ (the shuffle is a post-processing of ε₀-DP reports).

Heterogeneous rows: every row is ε_max-DP, so ε₀ = the largest row ε is used (sound; the
personalized bounds of later work are tighter).

:func:`closed_form_epsilon` is the paper's Theorem 3.1 (for ε₀ ≤ ln(n/(16 ln(2/δ)))):
    ε ≤ ln(1 + (e^{ε₀} − 1)/(e^{ε₀} + 1)·(8√(e^{ε₀} ln(4/δ))/√n + 8e^{ε₀}/n)).
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = ["ASSUMPTIONS", "closed_form_epsilon", "shuffled_delta", "shuffled_epsilon"]

FloatArray = npt.NDArray[np.float64]

#: What the shuffled-export guarantee assumes, in plain words (shown with the export).
ASSUMPTIONS = (
    "Each row is one person's randomized answers, made on their own device by the survey's "
    "randomizers (no direct answers in the file).",
    "The rows are shuffled and carry nothing that links them to a person, an invitation, a time "
    "or each other; the recipient gets only this file.",
    "Everyone who answered is counted in n, and the randomizers ran exactly as designed.",
    "It protects a person against whoever holds only this file; the survey's operators, who see "
    "reports as they arrive, are protected against by each row's own (local) ε only.",
)

# Mass of C ignored on each side before counting it as δ (it is added with H = 1).
_C_TAIL = 1e-18
# Number of blocks of c evaluated (at their lower ends).
_BLOCKS = 40


def _log_binom_pmf(lo: int, hi: int, n: int, log_p: float, log_q: float) -> FloatArray:
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


def _hockey(c: int, alpha: float, eps: float) -> float:
    """H_c(ε) = Σ_a (P_c(a) − e^ε Q_c(a))₊ for the clone pair with c clones."""
    log_half = math.log(0.5)
    # P_c/Q_c ≥ e^ε ≥ 1 only for a ≤ (c + 1)/2 (the ratio falls with a and is 1 at the middle).
    top = min(c, (c + 1) // 2 + 1)
    b = np.exp(_log_binom_pmf(0, top, c, log_half, log_half))  # b_c(a), a = 0 … top
    b_prev = np.concatenate(([0.0], b[:-1]))  # b_c(a − 1)
    p = alpha * b + (1.0 - alpha) * b_prev
    q = alpha * b_prev + (1.0 - alpha) * b
    diff = p - math.exp(eps) * q
    return float(np.sum(diff[diff > 0.0]))


@lru_cache(maxsize=256)
def _c_law(n: int, eps0: float) -> tuple[int, int, FloatArray]:
    """The range [lo, hi] of C ~ Bin(n − 1, e^{−ε₀}) holding all but 2·_C_TAIL, and its pmf."""
    p = math.exp(-eps0)
    mean = (n - 1) * p
    sd = math.sqrt(max((n - 1) * p * (1 - p), 1e-12))
    half = math.ceil(10.0 * sd) + 10
    lo, hi = max(0, math.floor(mean) - half), min(n - 1, math.ceil(mean) + half)
    pmf = np.exp(_log_binom_pmf(lo, hi, n - 1, -eps0, math.log1p(-p)))
    return lo, hi, pmf


def shuffled_delta(n: int, eps0: float, eps: float) -> float:
    """Upper bound on δ(ε) of n shuffled ε₀-DP reports (module notes)."""
    if n < 2:
        return 1.0 if eps < eps0 else 0.0
    alpha = math.exp(eps0) / (1.0 + math.exp(eps0)) if eps0 < 700 else 1.0
    lo, hi, pmf = _c_law(n, eps0)
    outside = max(0.0, 1.0 - float(np.sum(pmf)))  # mass of C not in [lo, hi]: H ≤ 1
    total = outside
    edges = np.unique(np.linspace(lo, hi + 1, min(_BLOCKS, hi - lo + 1) + 1).astype(np.int64))
    for start, stop in itertools.pairwise(edges):
        mass = float(np.sum(pmf[start - lo : stop - lo]))
        if mass > 0.0:
            total += mass * _hockey(int(start), alpha, eps)  # H_c ≤ H_start on the block
    return min(1.0, total)


@lru_cache(maxsize=256)
def shuffled_epsilon(n: int, eps0: float, delta: float) -> float:
    """Smallest ε (bisection, upper end, to 0.1 % + 1e-5) with shuffled_delta ≤ δ; ≤ ε₀."""
    if not (eps0 > 0 and 0 < delta < 1) or n < 1:
        raise ValueError("need n ≥ 1, eps0 > 0 and delta in (0, 1)")
    if n < 2 or shuffled_delta(n, eps0, eps0) > delta:
        return eps0
    lo, hi = 0.0, eps0
    if shuffled_delta(n, eps0, 0.0) <= delta:
        return 0.0
    while hi - lo > 1e-5 + 1e-3 * hi:
        mid = 0.5 * (lo + hi)
        if shuffled_delta(n, eps0, mid) > delta:
            lo = mid
        else:
            hi = mid
    return hi


def closed_form_epsilon(n: int, eps0: float, delta: float) -> float | None:
    """FMT 2021, Theorem 3.1 (None outside its range ε₀ ≤ ln(n/(16 ln(2/δ))))."""
    if n < 2 or eps0 > math.log(n / (16.0 * math.log(2.0 / delta))):
        return None
    e0 = math.exp(eps0)
    inner = 8.0 * math.sqrt(e0 * math.log(4.0 / delta)) / math.sqrt(n) + 8.0 * e0 / n
    return math.log1p((e0 - 1.0) / (e0 + 1.0) * inner)
