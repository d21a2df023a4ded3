"""The shuffled section of one k-ary randomized response, bounded by an exactly computed privacy
blanket (docs/formulas.md#the-blanket-k-3, issue 27).

Setting: n reports of k-RR at ε₀ — with r = 1/(e^{ε₀} + k − 1) a report is the true value w.p.
e^{ε₀}r and each other value w.p. r — shuffled; neighbouring datasets differ in one person's (the
target's) value, x against x′.

1. **The blanket** (Balle, Bell, Gascón & Nissim 2019). k-RR draws, with probability k·r, a value
   uniform over the k values, and otherwise reports the true one. Tell the adversary which of the
   others drew uniformly (the blanket: Bin(n − 1, kr) of them). The others' other reports are then
   their true values, which a worst-case adversary knows, so the shuffled file is a
   post-processing of (who is in the blanket, the multiset of the blanket's and the target's
   reports), and that view's δ(ε) bounds the file's for **every** dataset of the others.
2. **What the view depends on.** Among the blanket's and the target's reports let s be those in
   {x, x′}, o the rest, a those equal to x. How the o spread over the other k − 2 values is the
   same under x and x′, and (s, o) has the same law under both (the target lands in {x, x′} w.p.
   (e^{ε₀} + 1)r either way). Given (s, o), P(a | x) ∝ C(s, a)·((e^{ε₀} − 1)a + s + o), so

       P_x = λ·(1 + Bin(s − 1, ½)) + (1 − λ)·Bin(s, ½),  P_x′ = λ·Bin(s − 1, ½) + (1 − λ)·Bin(s, ½),
       λ(s, o) = s(e^{ε₀} − 1)/(s(e^{ε₀} + 1) + 2o),

   and δ(ε) = Σ_{s,o} P[s, o]·H(s, λ(s, o)), H the pair's hockey-stick divergence at γ = e^ε (both
   directions equal: a ↦ s − a swaps them). At k = 2 (o = 0) this is the ``clones-2023`` pair.
3. **Monotone.** H(s, λ) does not grow with s (add a fair coin to the three laws: a
   post-processing) and does not fall with λ (P(λ) = (λ/λ′)·P(λ′) + (1 − λ/λ′)·Bin(s, ½), whose
   last part is common: joint convexity). λ rises with s and falls with o.
4. **The law of (s, o).** C ~ Bin(n − 1, 2r) blanket reports fall in {x, x′}; given C,
   U ~ Bin(n − 1 − C, q), q = (k − 2)r/(1 − 2r), fall outside. The target is in {x, x′} w.p.
   (e^{ε₀} + 1)r (s = C + 1, o = U), else (s = C, o = U + 1). So
   P[s] = (e^{ε₀} + 1)r·P[C = s − 1] + (k − 2)r·P[C = s], and for s ≤ s₁, o is stochastically at
   least Bin(n − s₁, q) (n − s ≥ n − s₁, and U + 1 ≥ Bin(n − s, q) + Bern(q)). Hence, for blocks
   S = [s₀, s₁] of s and O = [o₀, o₁] of that binomial,

       δ(ε) ≤ Σ_S P[s ∈ S] · Σ_O P[Bin(n − s₁, q) ∈ O] · H(s₀, λ(s₁, o₀))

   (the blocks of :func:`dpcore.central.shuffle_pair.block_bounds`; s, o outside their Chernoff
   windows (mass ≤ floor·e^−30 each, the floor a δ it is sharp down to) are charged H ≤ 1).
5. **H without cancellation.** P_x(a) − γP_x′(a) = b_s(a)·κ(a − a₀) with κ = 2λ(1 + γ)/s and
   a₀ = s(γ + (1 − λ)(γ − 1)/(2λ))/(1 + γ) ≥ s/2, so H = κ·Σ_{a ≥ j} b_s(a)(a − a₀),
   j = ⌊a₀⌋ + 1, = κ·(R(j) + (j − a₀)·T(j)) with T(j) = P[Bin(s, ½) ≥ j] and
   R(j) = Σ_{i > j} T(i): sums of positive terms (log-sum-exp), computed once per s₀ for every ε
   and λ. a₀ is lowered by 10⁻¹³(a₀ + 1) first, which only raises H and covers its rounding
   (e^ε₀ − 1, e^ε − 1 and 1 − λ are computed without cancellation; below ε₀ = 10⁻⁶ nothing is
   computed and ε₀ is stated). The a
   above the window (Hoeffding: P[Bin(s, ½) ≥ s/2 + t] ≤ e^{−2t²/s}, cut at floor·e^−30) add at most
   κ·s times that. ln b_s and ln P[C = c] carry relative error ≲ 1e-9 (one lgamma plus exact
   log-ratios), covered by multiplying δ by e^{10⁻⁶}.

It is sound for every dataset; how far above the worst real dataset it sits is measured in
bench/RESULTS.md §14 (the blanket's extra knowledge — who drew uniformly — is its only slack).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from dpcore.central.shuffle_pair import (
    TINY_EPS0,
    binomial_blocks,
    binomial_edges,
    block_bounds,
    block_log_mass,
    log_binom_pmf,
    log_chernoff,
)

__all__ = ["blanket_epsilon", "blanket_log_delta"]

FloatArray = npt.NDArray[np.float64]

# The mass left out of each window (Chernoff, Hoeffding; charged H ≤ 1) is ≤ floor·e^_BELOW.
_BELOW = -30.0
# Multiplier on δ for the log-pmfs' rounding (module notes, 5).
_LOG_SAFETY = 1e-6
# a₀ is lowered by this relative amount before j is taken (module notes, 5): ≈ 50× its rounding
# (a few operations, each ≤ 2⁻⁵³ relative), and small enough not to swamp δ at large e^ε.
_A0_SLACK = 1e-13
# Bisection: stop when hi − lo ≤ _REL·hi + _ABS.
_REL = 1e-4
_ABS = 1e-9
# ε₀ from which e^ε₀ is not computed: no amplification is stated.
_HUGE = 700.0


@dataclass(frozen=True)
class _Plan:
    """Everything that does not depend on ε, flattened over the (S, O) block pairs."""

    s0: FloatArray  # s₀ of the pair's S block
    lam: FloatArray  # λ(s₁, o₀)
    rest: FloatArray  # 1 − λ(s₁, o₀), computed directly (no cancellation)
    log_weight: FloatArray  # ln P[s ∈ S] + ln P[O]
    start: npt.NDArray[np.int64]  # index of T(w₀) of s₀'s window in the flat arrays
    w0: FloatArray  # first a of the window (⌊s₀/2⌋)
    top: FloatArray  # last a of the window
    log_t: FloatArray  # ln T(j), windows concatenated
    log_r: FloatArray  # ln R(j)
    log_tail: float  # ln of the mass of s and o outside their windows (H ≤ 1 there)


def _window(s: int, log_tail: float) -> tuple[int, int, FloatArray, FloatArray]:
    """(w₀, top, ln T, ln R) of Bin(s, ½) over a = w₀ … top (module notes, 5)."""
    w0 = s // 2
    top = min(s, math.ceil(s / 2 + math.sqrt(-log_tail * s / 2)))
    log_b = log_binom_pmf(w0, top, s, -math.log(2.0), -math.log(2.0))
    log_t = np.logaddexp.accumulate(log_b[::-1])[::-1]
    tail = np.logaddexp.accumulate(log_t[:0:-1])[::-1]  # Σ_{i > j} T(i) for j < top
    log_r = np.concatenate((tail, [-math.inf]))
    return w0, top, log_t, log_r


def _o_blocks(
    m: int, q: float, log_tail: float
) -> tuple[npt.NDArray[np.int64], FloatArray, float, float]:
    """Blocks of Bin(m, q): (first o, ln P[block], ln P[below], ln P[above]); m = 0: o = 0."""
    if q <= 0.0 or m <= 0:
        return np.zeros(1, dtype=np.int64), np.zeros(1), -math.inf, -math.inf
    first, _, log_mass, below, above = binomial_blocks(m, q, False, log_tail)
    return first, log_mass, below, above


@lru_cache(maxsize=8)
def _plan(n: int, eps0: float, k: int, log_tail: float) -> _Plan:
    m, e0, e0m1 = n - 1, math.exp(eps0), math.expm1(eps0)
    r = 1.0 / (e0 + k - 1.0)
    q = (k - 2) * r / (1.0 - 2.0 * r)
    lo, hi = binomial_edges(m, 2.0 * r, log_tail)
    log_c = log_binom_pmf(lo, hi, m, math.log(2.0 * r), math.log1p(-2.0 * r))
    pad = np.full(1, -math.inf)
    # ln P[s, target in {x, x′}] and ln P[s, target outside], s = lo … hi + 1 (module notes, 4).
    log_in = math.log((e0 + 1.0) * r) + np.concatenate((pad, log_c))
    log_out = np.concatenate((log_c, pad)) + (math.log((k - 2) * r) if k > 2 else -math.inf)
    mean, sd = m * 2.0 * r + 1.0, math.sqrt(m * 2.0 * r * (1.0 - 2.0 * r))
    first, last = block_bounds(lo, hi + 1, mean, sd, False)
    mass_in = block_log_mass(log_in, lo, first, last)
    mass_out = block_log_mass(log_out, lo, first, last)
    tails = [
        log_chernoff(m, 2.0 * r, lo - 1.0) if lo > 0 else -math.inf,
        log_chernoff(m, 2.0 * r, hi + 1.0) if hi < m else -math.inf,
    ]
    rows: list[tuple[FloatArray, FloatArray, FloatArray, int]] = []
    windows: dict[int, tuple[int, int, FloatArray, FloatArray]] = {}
    for i, (s0, s1) in enumerate(zip(first.tolist(), last.tolist(), strict=True)):
        if s1 == 0:
            continue  # s = 0: the target's report is outside {x, x′}, the view is the same
        s0 = max(s0, 1)
        # target inside: o = U ≥ Bin(n − s₁, q); outside: o = U + 1, U ≥ Bin(n − 1 − s₁, q)
        for mass, size, shift in ((mass_in[i], n - s1, 0), (mass_out[i], n - 1 - s1, 1)):
            if mass == -math.inf:
                continue
            o_first, o_mass, below, above = _o_blocks(size, q, log_tail)
            tails += [mass + below, mass + above]
            o = o_first.astype(np.float64) + shift
            below_lam = s1 * (e0m1 + 2.0) + 2.0 * o  # s₁(e^ε₀ + 1) + 2o
            lam, rest = s1 * e0m1 / below_lam, (2.0 * s1 + 2.0 * o) / below_lam
            rows.append((lam, rest, mass + o_mass, s0))
        if s0 not in windows:
            windows[s0] = _window(s0, log_tail)
    offsets, total = {}, 0
    for s in sorted(windows):
        offsets[s] = total
        total += len(windows[s][2])

    def spread(value: dict[int, float]) -> FloatArray:
        return np.concatenate([np.full(len(lam), value[s]) for lam, _, _, s in rows])

    return _Plan(
        s0=spread({s: float(s) for s in windows}),
        lam=np.concatenate([lam for lam, _, _, _ in rows]),
        rest=np.concatenate([rest for _, rest, _, _ in rows]),
        log_weight=np.concatenate([w for _, _, w, _ in rows]),
        start=spread({s: float(offsets[s]) for s in windows}).astype(np.int64),
        w0=spread({s: float(w[0]) for s, w in windows.items()}),
        top=spread({s: float(w[1]) for s, w in windows.items()}),
        log_t=np.concatenate([windows[s][2] for s in sorted(windows)]),
        log_r=np.concatenate([windows[s][3] for s in sorted(windows)]),
        log_tail=float(np.logaddexp.reduce(tails)),
    )


def blanket_log_delta(
    n: int, eps0: float, k: int, eps: float, floor_delta: float = 1e-100
) -> float:
    """ln of an upper bound on δ(ε) of n shuffled k-RR reports at ε₀, for every dataset; sharp
    down to ``floor_delta`` (what lies beyond the windows, ≤ floor·e^−30, is charged whole)."""
    if k < 2:
        raise ValueError("k-ary randomized response needs k ≥ 2")
    if eps < 0.0:  # the windows start at a = ⌊s/2⌋, where a₀ is for ε ≥ 0
        raise ValueError("eps must be ≥ 0")
    if n < 2 or eps0 >= _HUGE or eps0 < TINY_EPS0:
        return 0.0 if eps < eps0 else -math.inf
    plan = _plan(n, eps0, k, math.log(floor_delta) + _BELOW)
    gamma = math.exp(eps)
    s, lam = plan.s0, plan.lam
    a0 = s * (gamma + plan.rest * math.expm1(eps) / (2.0 * lam)) / (1.0 + gamma)
    a0 = a0 - _A0_SLACK * (a0 + 1.0)
    j = np.floor(a0) + 1.0
    log_kappa = np.log(2.0 * lam * (1.0 + gamma) / s)
    inside = j <= plan.top
    idx = plan.start + np.clip(j - plan.w0, 0, None).astype(np.int64)
    idx = np.where(inside, idx, 0)
    log_h = np.where(
        inside,
        np.logaddexp(plan.log_r[idx], np.log(j - a0) + plan.log_t[idx]),
        -math.inf,
    )
    # a above a cut window (or j beyond it): Σ b(a)(a − a₀) ≤ s·P[Bin(s, ½) ≥ t], Hoeffding.
    cut = np.where(inside, plan.top + 1.0, j)
    log_above = np.log(s) - 2.0 * (cut - s / 2.0) ** 2 / s
    log_h = np.logaddexp(log_h, np.where(plan.top < s, log_above, -math.inf))
    total = float(np.logaddexp.reduce(plan.log_weight + log_kappa + log_h))
    total = float(np.logaddexp(total, plan.log_tail)) + _LOG_SAFETY
    return min(0.0, total)


@lru_cache(maxsize=256)
def blanket_epsilon(n: int, eps0: float, delta: float, k: int) -> float:
    """The smallest ε (upper end of a bisection, 0.01 %) whose blanket δ(ε) ≤ δ; ≤ ε₀."""
    if n < 2 or eps0 >= _HUGE or eps0 < TINY_EPS0:
        return eps0
    target = math.log(delta)
    if blanket_log_delta(n, eps0, k, 0.0, delta) <= target:
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > _ABS + _REL * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if blanket_log_delta(n, eps0, k, mid, delta) > target else (lo, mid)
    return hi
