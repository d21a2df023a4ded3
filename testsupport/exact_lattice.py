"""Exact references for the PLD accountant (test-only; numpy + mpmath).

* :func:`lattice` — one pair's privacy-loss law, exactly on its lattice (the discrete Gaussian
  cut at |x| ≤ R with R so large that the cut mass is below e^{−80}·δ, sent to ∞);
* :func:`self_compose` — the k-fold composition by *direct* convolution (no FFT: every entry is a
  sum of products of non-negative numbers, so its relative error is ≲ k·2⁻⁵³);
* :func:`exact_epsilon` — compose the groups (outer sums of the loss lattices), sort, and solve
  δ(ε) = Σ_ℓ ω(ℓ)(1 − e^{ε−ℓ})₊ + ω(∞) for ε exactly per segment, in 50-digit mpmath;
* :func:`mp_delta_single` — δ(ε) of one discrete Gaussian / Laplace pair from its pmf in mpmath.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import mpmath
import numpy as np

from dpcore.central.pld import DiscreteLaplacePair, Pair

mpmath.mp.dps = 50


def lattice(pair: Pair, delta: float) -> tuple[float, float, np.ndarray, float]:
    """(offset, step, P-masses ascending in loss, ω(∞)) of one pair."""
    if isinstance(pair, DiscreteLaplacePair):
        k, eps = pair.shift, pair.epsilon
        q = math.exp(-eps / k)
        x = np.arange(k, -1, -1, dtype=np.float64)
        mass = (1 - q) / (1 + q) * np.exp(-x * eps / k)
        mass[0] = q**k / (1 + q)
        mass[-1] = 1 / (1 + q)
        return -eps, 2 * eps / k, mass, 0.0
    sigma, k = pair.sigma, pair.shift
    radius = k + math.ceil(sigma * math.sqrt(2 * (-math.log(delta) + 80))) + 2
    x = np.arange(radius, -radius - 1, -1, dtype=np.float64)
    w = np.exp(-(x * x) / (2 * sigma * sigma))
    z = math.fsum(w.tolist())  # the cut terms are below e^{-80}·δ: invisible in a float sum
    return (k * k - 2 * k * radius) / (2 * sigma * sigma), k / sigma**2, w / z, 0.0


def self_compose(mass: np.ndarray, k: int) -> np.ndarray:
    """k-fold convolution by repeated squaring with direct (non-FFT) convolution."""
    result = np.ones(1)
    base = mass
    while k:
        if k & 1:
            result = np.convolve(result, base)
        k >>= 1
        if k:
            base = np.convolve(base, base)
    return result


def composed_support(groups: Mapping[Pair, int], delta: float) -> tuple[np.ndarray, np.ndarray]:
    """Loss values and P-masses of the whole composition (outer sums across groups)."""
    loss, mass = np.zeros(1), np.ones(1)
    for pair, k in groups.items():
        offset, step, m, _ = lattice(pair, delta)
        composed = self_compose(m, k)
        keep = composed > 0
        g_loss = (k * offset + step * np.arange(composed.size))[keep]
        loss = np.add.outer(loss, g_loss).ravel()
        mass = np.multiply.outer(mass, composed[keep]).ravel()
        big = mass > mass.max() * 1e-300  # drop underflowed cells only
        loss, mass = loss[big], mass[big]
    order = np.argsort(loss)
    return loss[order], mass[order]


def exact_epsilon(groups: Mapping[Pair, int], delta: float) -> float:
    """The exact ε(δ) of the composition (float result of a 50-digit solve)."""
    loss, mass = composed_support(groups, delta)
    # Suffix sums in extended precision are not needed for the search (only for the last step).
    a = np.cumsum(mass[::-1])[::-1]
    b = np.cumsum((mass * np.exp(-loss))[::-1])[::-1]
    a_above = np.append(a[1:], 0.0)
    b_above = np.append(b[1:], 0.0)
    d_at = a_above - np.exp(loss) * b_above
    start = int(np.searchsorted(loss, 0.0, side="right"))
    cand = np.nonzero(d_at[start:] > delta)[0]
    if not cand.size:
        # answer in [0, loss[start]]
        j = start - 1
    else:
        j = start + int(cand[-1])
    # ε in (loss[j], loss[j+1]]: A − e^ε B = δ with A, B the mass strictly above j.
    above = slice(j + 1, None)
    # Correctly rounded sums of the positive terms, then the final solve in 50 digits.
    big_a = mpmath.mpf(math.fsum(mass[above].tolist()))
    big_b = mpmath.mpf(math.fsum((mass[above] * np.exp(-loss[above])).tolist()))
    eps = mpmath.log(big_a - delta) - mpmath.log(big_b)
    return max(0.0, float(eps))


def mp_delta_single(pair: Pair, epsilon: float, delta_cut: float = 1e-30) -> mpmath.mpf:
    """δ(ε) of one pair, summed from its pmf in 50 digits."""
    eps = mpmath.mpf(epsilon)
    if isinstance(pair, DiscreteLaplacePair):
        k, e = pair.shift, mpmath.mpf(pair.epsilon)
        q = mpmath.exp(-e / k)
        terms = [(1 / (1 + q), e), (q**k / (1 + q), -e)]
        terms += [((1 - q) / (1 + q) * q**x, (k - 2 * x) * e / k) for x in range(1, k)]
    else:
        s2 = mpmath.mpf(pair.sigma) ** 2
        k = pair.shift
        radius = k + int(pair.sigma * math.sqrt(2 * (-math.log(delta_cut) + 300))) + 2
        xs = range(-radius, radius + 1)
        z = mpmath.fsum(mpmath.exp(-(mpmath.mpf(x) ** 2) / (2 * s2)) for x in xs)
        terms = [
            (mpmath.exp(-(mpmath.mpf(x) ** 2) / (2 * s2)) / z, (k * k - 2 * k * x) / (2 * s2))
            for x in range(-radius, radius + 1)
        ]
    return mpmath.fsum(w * (1 - mpmath.exp(eps - ell)) for w, ell in terms if ell > eps)


def mp_epsilon_single(pair: Pair, delta: float) -> float:
    """Solve δ(ε) = δ for one pair in mpmath (bisection to 1e-15 relative)."""
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    if mp_delta_single(pair, 0.0) <= delta:
        return 0.0
    while mp_delta_single(pair, float(hi)) > delta:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        if mp_delta_single(pair, float(mid)) > delta:
            lo = mid
        else:
            hi = mid
    return float(lo)
