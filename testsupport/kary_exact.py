"""Exact references for n shuffled k-RR reports (test and bench only, issue 27; numpy + scipy):
the exact law of the whole histogram for every dataset at small n (:func:`histogram_laws`), and
lower bounds on the exact worst-case ε at any n (:func:`floor_epsilon`).

The stated ε of a k-ary section (:mod:`dpcore.central.shuffle_blanket`) is an *upper* bound on the
worst case over every dataset of the others. The exact worst case is not known for k ≥ 3, so its
tightness is certified from below: the exact ε of two particular datasets, each seen through the
coarse view (count on x, count on x′, the rest). Merging the other k − 2 values is a
post-processing, and one dataset is one candidate for the worst, so each is a lower bound on the
exact worst-case ε; stated ÷ the larger of them bounds stated ÷ exact from above.
(docs/formulas.md#how-tight-the-blanket-is)

* **All others on one third value** (:func:`third_log_delta`). With the blanket's notation
  (module notes of ``shuffle_blanket``, 2 and 4) the adversary sees s and a but not o: the others'
  reports outside {x, x′} mix with the third value they hold. The law of (s, o) is the same under
  x and x′ and P_x is linear in λ, so the view's pair is the blanket's pair at
  λ̄(s) = E[λ(s, o) | s]:

      δ(ε) = Σ_s P[s]·H(s, λ̄(s)),
      H(s, λ) = κ·((s/2)·P[Bin(s − 1, ½) ≥ j − 1] − a₀·P[Bin(s, ½) ≥ j])

  (κ, a₀, j as there; Σ_{a ≥ j} a·b_s(a) = (s/2)·P[Bin(s − 1, ½) ≥ j − 1]). The blanket is
  Σ_s E[H(s, λ(s, o)) | s]: the gap is Jensen's, H being convex in λ.
* **All others on x** (:func:`x_log_delta`). Under x the n reports are multinomial (p on x, r on
  x′, (k − 2)r on the rest); the likelihood ratio of x′ to x at the cell (a, b) is
  ρ = 1 + (a·(e^{−ε₀} − 1) + b·(e^{ε₀} − 1))/n, so δ(ε) = max(E[(1 − e^ε·ρ)₊], E[(ρ − e^ε)₊]).

Every truncation only lowers δ: the windows of ±10 standard deviations drop whole non-negative
terms P[s]·H (each kept s keeps both of its branches, so P[s] is whole), and o's window lowers
E[λ | s], under which H does not fall. The rounding (≲ 10⁻⁸ relative, found by an adversarial
review: the subtraction in H, and ρ's near e^{−ε₀} before 1 − e^ε·ρ) is covered by a factor
1 − 10⁻⁶.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import bdtrc

from dpcore.central.shuffle_pair import log_binom_pmf


def histogram_laws(
    n: int, eps0: float, k: int, others: tuple[int, ...]
) -> tuple[dict[tuple[int, ...], float], dict[tuple[int, ...], float]]:
    """Exact laws of the full k-ary histogram: the others' values, the target 0 against 1."""
    e0 = math.exp(eps0)
    r = 1.0 / (e0 + k - 1.0)

    def report(value: int) -> list[float]:
        return [e0 * r if v == value else r for v in range(k)]

    law: Counter[tuple[int, ...]] = Counter({(0,) * k: 1.0})
    for value in others:
        nxt: Counter[tuple[int, ...]] = Counter()
        probs = report(value)
        for h, w in law.items():
            for v in range(k):
                nxt[(*h[:v], h[v] + 1, *h[v + 1 :])] += w * probs[v]
        law = nxt
    out = []
    for target in (0, 1):
        final: Counter[tuple[int, ...]] = Counter()
        probs = report(target)
        for h, w in law.items():
            for v in range(k):
                final[(*h[:v], h[v] + 1, *h[v + 1 :])] += w * probs[v]
        out.append(dict(final))
    return out[0], out[1]


def hockey(p: dict[tuple[int, ...], float], q: dict[tuple[int, ...], float], eps: float) -> float:
    """max of the two directions' δ(ε) between two laws."""
    g = math.exp(eps)
    keys = set(p) | set(q)
    one = sum(max(p.get(y, 0.0) - g * q.get(y, 0.0), 0.0) for y in keys)
    two = sum(max(q.get(y, 0.0) - g * p.get(y, 0.0), 0.0) for y in keys)
    return max(one, two)


_WIDTH = 10.0  # window half-width in standard deviations: mass left out ≲ e^{−50}
_ROUNDING = 1.0 - 1e-6


def _log_binom(lo: int, hi: int, n: int, p: float) -> np.ndarray:
    return log_binom_pmf(lo, hi, n, math.log(p), math.log1p(-p))


# Up to this many trials a binomial is summed whole: at small n a window of ±10 sd can cut mass
# that matters at a deep δ (4 % of δ = 2.6e-12 at n = 8, found by the review's cases).
_WHOLE = 2_000


def _window(n: int, p: float) -> tuple[int, int]:
    if n <= _WHOLE:
        return 0, n
    mean, sd = n * p, math.sqrt(n * p * (1.0 - p))
    return max(0, math.floor(mean - _WIDTH * sd) - 1), min(n, math.ceil(mean + _WIDTH * sd) + 1)


@dataclass(frozen=True)
class ThirdView:
    """s, P[s] and λ̄(s) = E[λ(s, o) | s] of the all-third dataset (truncated: both only lower)."""

    s: np.ndarray
    mass: np.ndarray
    lam: np.ndarray


@lru_cache(maxsize=64)
def third_view(n: int, eps0: float, k: int) -> ThirdView:
    e0, e0m1 = math.exp(eps0), math.expm1(eps0)
    r = 1.0 / (e0 + k - 1.0)
    q = (k - 2) * r / (1.0 - 2.0 * r)
    m = n - 1
    lo, hi = _window(m, 2.0 * r)
    # C's law one wider than the s range on each side, so that every kept s has both branches:
    # dropping one would raise λ̄ (the branch outside {x, x′} has the lower λ) and so δ.
    c_lo, c_hi = max(0, lo - 1), min(m, hi + 1)
    p_c = np.exp(_log_binom(c_lo, c_hi, m, 2.0 * r))
    rows_s, rows_mass, rows_lam = [], [], []
    for s in range(max(1, lo), hi + 2):
        weights, means = [], []
        # target inside {x, x′}: C = s − 1, o = Bin(n − s, q);
        # outside: C = s, o = 1 + Bin(n − 1 − s, q)
        for c, w, size, shift in (
            (s - 1, (e0 + 1.0) * r, n - s, 0),
            (s, (k - 2) * r, n - 1 - s, 1),
        ):
            if not 0 <= c <= m or size < 0:
                continue  # impossible (C ≤ n − 1): its weight is exactly 0
            if size == 0:
                o, p_o = np.array([float(shift)]), np.ones(1)
            else:
                o_lo, o_hi = _window(size, q)
                o = np.arange(o_lo, o_hi + 1, dtype=np.float64) + shift
                p_o = np.exp(_log_binom(o_lo, o_hi, size, q))
            lam = s * e0m1 / (s * (e0m1 + 2.0) + 2.0 * o)
            weights.append(w * p_c[c - c_lo])
            means.append(float((p_o * lam).sum()))
        mass = sum(weights)
        if mass > 0.0:
            rows_s.append(s)
            rows_mass.append(mass)
            # normalised weights first: w·E[λ] of a denormal w would round to a λ̄ of 0
            rows_lam.append(sum(w / mass * e for w, e in zip(weights, means, strict=True)))
    return ThirdView(np.array(rows_s, dtype=np.float64), np.array(rows_mass), np.array(rows_lam))


def pair_h(s: np.ndarray, lam: np.ndarray, eps: float) -> np.ndarray:
    """H(s, λ) at e^ε of the blanket's pair, in closed form (module notes)."""
    gamma, gm1 = math.exp(eps), math.expm1(eps)
    a0 = s * (gamma + (1.0 - lam) * gm1 / (2.0 * lam)) / (1.0 + gamma)
    j = np.floor(a0) + 1.0
    kappa = 2.0 * lam * (1.0 + gamma) / s
    return np.maximum(kappa * (0.5 * s * _half_tail(j - 1.0, s - 1.0) - a0 * _half_tail(j, s)), 0.0)


def _half_tail(j: np.ndarray, n: np.ndarray) -> np.ndarray:
    """P[Bin(n, ½) ≥ j]."""
    inside = (j >= 1.0) & (j <= n)
    below = np.where(inside, j - 1.0, 0.0).astype(np.int64)
    tail = bdtrc(below, np.where(inside, n, 1.0).astype(np.int64), 0.5)
    return np.where(j <= 0.0, 1.0, np.where(j > n, 0.0, tail))


def third_log_delta(n: int, eps0: float, k: int, eps: float) -> float:
    view = third_view(n, eps0, k)
    keep = view.lam > 0.0  # an s of mass ≲ 1e-308: dropping its term only lowers δ
    h = pair_h(view.s[keep], view.lam[keep], eps)
    delta = float((view.mass[keep] * h).sum()) * _ROUNDING
    return math.log(delta) if delta > 0.0 else -math.inf


@dataclass(frozen=True)
class XView:
    """The coarse cells of the all-on-x dataset under x: masses, sorted by ρ."""

    mass: np.ndarray
    rho: np.ndarray


@lru_cache(maxsize=16)
def x_view(n: int, eps0: float, k: int) -> XView:
    e0 = math.exp(eps0)
    r = 1.0 / (e0 + k - 1.0)
    p = e0 * r
    a_lo, a_hi = _window(n, p)
    log_a = _log_binom(a_lo, a_hi, n, p)
    b_share = r / (1.0 - p)  # of the reports not on x, those on x′
    masses, rhos = [], []
    for a, log_pa in zip(range(a_lo, a_hi + 1), log_a.tolist(), strict=True):
        rest = n - a
        if rest == 0 or b_share >= 1.0:
            b = np.array([float(rest)])
            log_pb = np.zeros(1)
        else:
            b_lo, b_hi = _window(rest, b_share)
            b = np.arange(b_lo, b_hi + 1, dtype=np.float64)
            log_pb = _log_binom(b_lo, b_hi, rest, b_share)
        masses.append(np.exp(log_pa + log_pb))
        rhos.append(1.0 + (a * math.expm1(-eps0) + b * math.expm1(eps0)) / n)
    mass, rho = np.concatenate(masses), np.concatenate(rhos)
    order = np.argsort(rho, kind="stable")
    return XView(mass[order], rho[order])


def x_log_delta(n: int, eps0: float, k: int, eps: float) -> float:
    view, gamma = x_view(n, eps0, k), math.exp(eps)
    low = int(np.searchsorted(view.rho, 1.0 / gamma, side="left"))
    high = int(np.searchsorted(view.rho, gamma, side="right"))
    one = float((view.mass[:low] * (1.0 - gamma * view.rho[:low])).sum())
    two = float((view.mass[high:] * (view.rho[high:] - gamma)).sum())
    delta = max(one, two) * _ROUNDING
    return math.log(delta) if delta > 0.0 else -math.inf


# All-on-x is a two-dimensional sum; past this n the all-third dataset is the larger floor
# anyway (bench/RESULTS.md §14), and leaving a candidate out only lowers the floor.
X_VIEW_MAX_N = 100_000


def floor_epsilon(n: int, eps0: float, delta: float, k: int) -> float:
    """A lower bound on the exact worst-case ε at δ: the larger of the two datasets' exact ε
    (coarse view), each the lower end of a bisection (its δ(ε) is above δ there)."""
    if k < 3:
        raise ValueError("the floor is for k ≥ 3")
    target = math.log(delta)

    def above(eps: float) -> bool:
        if third_log_delta(n, eps0, k, eps) > target:
            return True
        return n <= X_VIEW_MAX_N and x_log_delta(n, eps0, k, eps) > target

    if not above(0.0):
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > 1e-7 + 1e-6 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return lo
