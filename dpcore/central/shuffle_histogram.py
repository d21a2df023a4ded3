"""The shuffled file of binary randomized response when every other answer is the same: a LOWER
bound on the true shuffled ε, for comparison only (docs/formulas.md#shuffling).

With binary RR of ε₀ (a report is the true answer w.p. e^{ε₀}/(e^{ε₀} + 1)), q = 1/(e^{ε₀} + 1)
and the n − 1 others all answering 0, the shuffled file is the count of 1-reports,
X + T with X ~ Bin(n − 1, q) and T ~ Bernoulli(q) (target answers 0) or Bernoulli(1 − q)
(target answers 1). Its δ(ε) = max over both directions of Σ_k (P(k) − e^ε Q(k))₊ is computed
exactly in log space. It is the exact δ *of that pair of datasets* — not of the worst case: some
mixed datasets of the others give a larger δ (e.g. n = 60, ε₀ = 4, ε = 0.05: 0.42 against
0.34; tests/dpcore/central/test_shuffle_datasets.py), and no proof of the worst case is at hand,
so nothing states this value. The stated ε (``clones-2023``) is above every dataset's.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.central.shuffle_pair import log_binom_pmf

__all__ = ["alike_epsilon", "alike_log_delta"]

_SD_SPAN = 45.0


def alike_log_delta(n: int, eps0: float, eps: float) -> float:
    """ln δ(ε) of the count of 1-reports, the n − 1 others all answering 0 (module notes)."""
    q = 1.0 / (math.exp(eps0) + 1.0)
    m = n - 1
    sd = math.sqrt(m * q * (1.0 - q))
    lo = max(0, math.floor(m * q - _SD_SPAN * sd) - 5)
    hi = min(m, math.ceil(m * q + _SD_SPAN * sd) + 5)
    log_x = log_binom_pmf(lo, hi, m, math.log(q), math.log1p(-q))
    # X(k) and X(k − 1) on k = lo … hi + 1 (zero outside the window: a lower bound).
    cur = np.concatenate((log_x, [-math.inf]))
    prev = np.concatenate(([-math.inf], log_x))
    gamma = math.exp(eps)
    best = -math.inf
    for t1 in (q, 1.0 - q):  # P[T = 1] under the first dataset; the other has 1 − t1
        t2 = 1.0 - t1
        # P(k) − γQ(k) = X(k)·((1 − t1) − γ(1 − t2)) + X(k − 1)·(t1 − γ·t2)
        a_coef, b_coef = (1.0 - t1) - gamma * (1.0 - t2), t1 - gamma * t2
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.exp(prev - cur)  # X(k − 1)/X(k)
            value = np.where(np.isfinite(cur), a_coef + b_coef * ratio, b_coef)
            log_base = np.where(np.isfinite(cur), cur, prev)
            if_pos = value > 0.0
            terms = np.where(if_pos, log_base + np.log(np.where(if_pos, value, 1.0)), -math.inf)
        best = max(best, float(np.logaddexp.reduce(terms)))
    return min(best, 0.0)


def alike_epsilon(n: int, eps0: float, delta: float) -> float:
    """Smallest ε (to 0.01 %, lower end: this is a lower bound) with alike δ(ε) ≤ δ."""
    target = math.log(delta)
    if alike_log_delta(n, eps0, 0.0) <= target:
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > 1e-9 + 1e-4 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if alike_log_delta(n, eps0, mid) > target else (lo, mid)
    return lo
