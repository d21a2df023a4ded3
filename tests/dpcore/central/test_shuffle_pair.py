"""The clone pair's δ(ε) summed in log space (dpcore.central.shuffle_pair), against mpmath where
mpmath enumerates every c and a in 60 digits: no δ floor down to 1e-100, blocks that bound it from
both sides, and ε by bisection that is sound (its δ is ≤ the target) and within 1 % of exact."""

from __future__ import annotations

import math

import mpmath
import pytest

from dpcore.central import shuffle
from dpcore.central.shuffle_pair import ClonePair, pair_log_delta


def mp_log_delta(pair: ClonePair, eps: float) -> mpmath.mpf:
    """ln δ(ε) of the pair, every c and every a up to the last positive term (they are a prefix:
    P_c(a)/Q_c(a) falls with a), incrementally in 60 digits. The c
    whose weight is below 1e-150 are skipped: ≤ n·1e-150, nothing against the δ ≥ 1e-100 tested."""
    mpmath.mp.dps = 60
    n, p, alpha = pair.n, mpmath.mpf(pair.p), mpmath.mpf(pair.alpha)
    gamma = mpmath.exp(mpmath.mpf(eps))
    u, v = alpha - gamma * (1 - alpha), gamma * alpha - (1 - alpha)
    total = mpmath.mpf(0)
    weight = (1 - p) ** (n - 1)
    for c in range(n):
        if c:
            weight *= mpmath.mpf(n - c) / c * p / (1 - p)
        if weight < mpmath.mpf("1e-150"):
            continue
        b_prev, b = mpmath.mpf(0), mpmath.mpf(2) ** (-c)
        h = mpmath.mpf(0)
        for a in range((c + 1) // 2 + 2):
            term = u * b - v * b_prev
            if term <= 0:
                break  # the positive terms are a prefix
            h += term
            b_prev, b = b, (b * (c - a) / (a + 1) if a < c else mpmath.mpf(0))
        total += weight * h
    total *= mpmath.mpf(pair.weight)
    return mpmath.log(total) if total > 0 else mpmath.mpf("-inf")


@pytest.mark.parametrize(
    ("n", "eps0", "k"), [(120, math.log(3), None), (300, 2.0, 2), (200, 1.0, 3)]
)
def test_exact_mode_equals_mpmath_deep_in_the_tail(n: int, eps0: float, k: int | None) -> None:
    pair = shuffle.clone_pair(n, eps0, k)
    for eps in (0.0, 0.3 * eps0, 0.6 * eps0, 0.9 * eps0, 0.99 * eps0):
        exact = float(mp_log_delta(pair, eps))
        ours = pair_log_delta(pair, eps, exact=True)
        # Only the 1e-6 safety factor and the e^-800 tails separate them (module notes).
        assert exact <= ours <= exact + 2e-6, (eps, exact, ours)
        assert pair_log_delta(pair, eps) >= exact  # the blocked sum is an upper bound
        assert pair_log_delta(pair, eps, lower=True) <= exact + 1e-9


@pytest.mark.parametrize("delta", [1e-3, 1e-10, 1e-30, 1e-60, 1e-100])
def test_epsilon_is_sound_and_within_one_percent_down_to_1e_100(delta: float) -> None:
    # Near ε₀ only a = 0 is positive: δ(ε) ≈ u·E[2^-C] = u·(1 − p/2)^(n − 1), u → 0. At ε₀ = ln 3
    # (k = 2: p = ½) and n = 1200 that is u·10^-150, so δ = 1e-100 is reached with ε < ε₀ — the
    # old code stopped amplifying near 1e-10 (its floor: the lost mass of C).
    n, eps0 = 1200, math.log(3)
    pair = shuffle.clone_pair(n, eps0, 2)
    eps = shuffle._epsilon(pair, eps0, delta)  # the 2023 pair's own ε (k = 2 states less)
    assert 0 < eps < eps0
    assert mp_log_delta(pair, eps) <= math.log(delta)  # sound
    assert mp_log_delta(pair, eps / 1.01) > math.log(delta)  # and not 1 % above the exact ε


def test_generic_bound_too_down_to_1e_100() -> None:
    n, eps0 = 1500, 1.0  # p = e^-1: (1 − p/2)^1499 ≈ 1e-133 (the previous test's notes)
    pair = shuffle.clone_pair(n, eps0)
    for delta in (1e-6, 1e-100):
        eps = shuffle.shuffled_epsilon(n, eps0, delta)
        assert 0 < eps < eps0
        assert mp_log_delta(pair, eps) <= math.log(delta)
        assert mp_log_delta(pair, eps / 1.01) > math.log(delta)


def test_blocks_bracket_the_exact_value_at_large_n() -> None:
    # n = 10⁶: blocks of ≈ 0.4 % of c. The exact value lies between the two ends; they are close.
    pair = shuffle.clone_pair(1_000_000, 1.0, 2)
    for eps in (0.002, 0.005, 0.01):
        upper = pair_log_delta(pair, eps)
        lower = pair_log_delta(pair, eps, lower=True)
        assert lower <= upper
        assert upper - lower < 0.05 * max(1.0, abs(upper))  # within 5 % in ln δ


def test_pure_local_end() -> None:
    pair = shuffle.clone_pair(1000, 1.5, 2)
    assert pair_log_delta(pair, 1.5) == -math.inf  # the pair is ε₀-DP: δ(ε₀) = 0
    assert pair_log_delta(ClonePair(n=1, p=0.5, alpha=0.75), 0.1) == 0.0
