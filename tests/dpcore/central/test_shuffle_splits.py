"""One binary RR column's shuffled file bounded over every split of the others' answers
(dpcore.central.shuffle_splits, method ``histogram-splits``), against brute force: every split's
exact δ(ε) in mpmath (small n) or in float64 log space (n = 600, δ down to 1e-100); the removal
lemma and the reflection it rests on, numerically; soundness (never below the true worst case)
and tightness (≤ 1.01× it where it amplifies); k ≥ 3 has ``privacy-blanket``."""

from __future__ import annotations

import math
from functools import cache

import mpmath
import numpy as np
import pytest
from scipy.special import gammaln, logsumexp

from dpcore.central import shuffle
from dpcore.central.shuffle_splits import splits_bound, splits_epsilon, splits_log_delta


def keep(eps0: float) -> float:
    return math.exp(eps0) / (1.0 + math.exp(eps0))


@cache
def mp_law(m: int, a: int, eps0: float) -> tuple[mpmath.mpf, ...]:
    """Law of N_a = Bin(a, p) + Bin(m − a, q), convolved in 50 digits."""
    mpmath.mp.dps = 50
    p = mpmath.e ** mpmath.mpf(eps0) / (1 + mpmath.e ** mpmath.mpf(eps0))
    q = 1 - p
    g = [mpmath.binomial(a, x) * p**x * q ** (a - x) for x in range(a + 1)]
    h = [mpmath.binomial(m - a, z) * q**z * p ** (m - a - z) for z in range(m - a + 1)]
    f = [mpmath.mpf(0)] * (m + 1)
    for x, gx in enumerate(g):
        for z, hz in enumerate(h):
            f[x + z] += gx * hz
    return tuple(f)


def mp_log_delta(m: int, a: int, eps0: float, eps: float, *, reverse: bool = False) -> float:
    """ln δ(ε) of P₁ against P₀ (P₀ against P₁ with ``reverse``) for split a, every y."""
    mpmath.mp.dps = 50
    f = (mpmath.mpf(0), *mp_law(m, a, eps0), mpmath.mpf(0))  # f(y − 1) at index y
    p = mpmath.e ** mpmath.mpf(eps0) / (1 + mpmath.e ** mpmath.mpf(eps0))
    q, gamma = 1 - p, mpmath.e ** mpmath.mpf(eps)
    total = mpmath.mpf(0)
    for y in range(m + 2):
        one, zero = p * f[y] + q * f[y + 1], q * f[y] + p * f[y + 1]
        term = zero - gamma * one if reverse else one - gamma * zero
        total += max(term, 0)
    return float(mpmath.log(total)) if total > 0 else -math.inf


def log_law(m: int, a: int, eps0: float) -> np.ndarray:
    """ln of the law of N_a in float64 log space: log-sum-exp over x (no cancellation)."""
    lp, lq = math.log(keep(eps0)), math.log1p(-keep(eps0))
    x, z = np.arange(a + 1), np.arange(m - a + 1)
    lg = gammaln(a + 1) - gammaln(x + 1) - gammaln(a - x + 1) + x * lp + (a - x) * lq
    lh = gammaln(m - a + 1) - gammaln(z + 1) - gammaln(m - a - z + 1) + z * lq + (m - a - z) * lp
    zi = np.arange(m + 1)[None, :] - x[:, None]  # z = y − x for every (x, y)
    terms = np.where((zi >= 0) & (zi <= m - a), lg[:, None] + lh[np.clip(zi, 0, m - a)], -np.inf)
    return np.asarray(logsumexp(terms, axis=0))


@cache
def every_law(n: int, eps0: float) -> tuple[np.ndarray, ...]:
    return tuple(log_law(n - 1, a, eps0) for a in range(n))


def log_delta(lf: np.ndarray, eps0: float, eps: float) -> float:
    """ln Σ_y (A·f(y − 1) − B·f(y))₊ from ln f, term by term in log space."""
    p = keep(eps0)
    q, gamma = 1.0 - p, math.exp(eps)
    a_coef, b_coef = p - gamma * q, gamma * p - q
    if a_coef <= 0:
        return -math.inf
    prev = np.concatenate(([-np.inf], lf)) + math.log(a_coef)
    cur = np.concatenate((lf, [-np.inf])) + math.log(b_coef)
    pos = prev > cur
    gap = np.where(pos, cur - prev, -1.0)
    terms = np.where(pos, prev + np.log1p(-np.exp(gap)), -np.inf)
    return float(logsumexp(terms))


@pytest.mark.parametrize("eps0", [0.5, 2.0])
def test_every_split_bound_is_above_mpmath_and_within_2e_6(eps0: float) -> None:
    n = 40
    m = n - 1
    bound = splits_bound(n, eps0, 1e-100, 1)  # step 1: every split of all m others
    lower = splits_bound(n, eps0, 1e-100, 1, True)
    for eps in (0.0, 0.1, 0.4 * eps0, 0.9 * eps0):
        ours = splits_log_delta(bound, eps)
        low = splits_log_delta(lower, eps, lower=True)
        for a in range(m + 1):
            exact = mp_log_delta(m, a, eps0, eps)
            assert exact <= ours[a] <= exact + 2e-6, (eps, a, exact, ours[a])
            assert low[a] <= exact + 1e-12


def test_deep_tail_one_split_against_mpmath() -> None:
    # n = 600, ε₀ = 0.5: the largest split's δ is ≈ 1e-44 at ε = 0.3, 1e-97 at 0.45 and below
    # 1e-100 at 0.46 (the others' δ are smaller still).
    n, eps0 = 600, 0.5
    m = n - 1
    bound = splits_bound(n, eps0, 1e-100, 1)
    for eps in (0.3, 0.45, 0.46):
        ours = splits_log_delta(bound, eps)
        for a in (0, 1, 300, m - 1, m):
            exact = mp_log_delta(m, a, eps0, eps)
            assert exact <= ours[a], (eps, a, exact, ours[a])
            if exact > math.log(1e-100) - 20:  # far below δ only a tail bound is kept (e^-30 δ)
                assert ours[a] <= exact + 2e-6, (eps, a, exact, ours[a])
    assert math.log(1e-100) < mp_log_delta(m, m, eps0, 0.45) < math.log(1e-95)
    assert mp_log_delta(m, m, eps0, 0.46) < math.log(1e-100)


def test_reflection_swaps_the_directions() -> None:
    n, eps0, eps = 30, 1.5, 0.3
    m = n - 1
    for a in (0, 4, 15, 29):
        forward = mp_log_delta(m, a, eps0, eps)
        assert mp_log_delta(m, m - a, eps0, eps, reverse=True) == pytest.approx(forward, abs=1e-12)


@pytest.mark.parametrize(("eps0", "j"), [(0.5, 3), (2.0, 5), (4.0, 8)])
def test_removing_others_never_lowers_delta(eps0: float, j: int) -> None:
    # The lemma: split a of m others ≤ split a₀ of m − j others whenever a ∈ [a₀, a₀ + j].
    m = 80
    for eps in (0.05, 0.3 * eps0, 0.8 * eps0):
        for a0 in (0, 10, 40, m - j):
            fewer = log_delta(log_law(m - j, a0, eps0), eps0, eps)
            for a in range(a0, a0 + j + 1):
                assert log_delta(log_law(m, a, eps0), eps0, eps) <= fewer + 1e-12


def mp_worst(n: int, eps0: float, eps: float) -> float:
    return max(mp_log_delta(n - 1, a, eps0, eps) for a in range(n))


@pytest.mark.parametrize("eps0", [0.5, math.log(3), 2.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_epsilon_is_sound_and_within_one_percent_mpmath(eps0: float, delta: float) -> None:
    n = 60
    eps = splits_epsilon(n, eps0, delta)
    assert mp_worst(n, eps0, eps) <= math.log(delta)  # never below the true worst case
    if eps < 0.999 * eps0:
        assert mp_worst(n, eps0, eps / 1.01) > math.log(delta)  # within 1 %


@pytest.mark.parametrize("delta", [1e-30, 1e-100])
def test_epsilon_down_to_1e_100_every_split_float64(delta: float) -> None:
    n, eps0 = 600, 0.5
    laws = every_law(n, eps0)
    eps = splits_epsilon(n, eps0, delta)
    assert 0 < eps < eps0  # it amplifies even at 1e-100
    assert max(log_delta(lf, eps0, eps) for lf in laws) <= math.log(delta)
    assert max(log_delta(lf, eps0, eps / 1.01) for lf in laws) > math.log(delta)


@pytest.mark.parametrize("eps0", [math.log(3), 2.0])
def test_grid_with_removal_is_sound_and_tight(eps0: float) -> None:
    # n = 401 with step 5 (j = 4): the lemma's grid, ≈ 1 + j/(2m) = 1.005 above the exact maximum.
    n, delta = 401, 1e-8
    exact = splits_epsilon(n, eps0, delta, step=1)
    grid = splits_epsilon(n, eps0, delta, step=5)
    assert exact <= grid <= 1.01 * exact


def test_shuffled_guarantee_names_the_splits_bound_for_yes_no_only() -> None:
    binary = shuffle.shuffled_guarantee(2000, math.log(3), 1e-6, 2)
    assert binary.method == "histogram-splits"
    assert binary.method in shuffle.METHODS
    pair = shuffle.clone_pair(2000, math.log(3), 2)
    assert binary.epsilon < 0.9 * shuffle._epsilon(pair, math.log(3), 1e-6)
    assert shuffle.shuffled_guarantee(2000, math.log(3), 1e-6, 3).method == "privacy-blanket"
    assert shuffle.shuffled_guarantee(2000, math.log(3), 1e-6).method == "clones-2021"
