"""Amplification by shuffling (dpcore.central.shuffle): the FMT 2021 pair summed exactly
(mpmath, by enumeration) for small n, the paper's closed-form theorem as an upper envelope, and
the basic properties (never above ε₀, falls with n)."""

from __future__ import annotations

import itertools
import math

import mpmath
import pytest

from dpcore.central import shuffle


def mp_delta(n: int, eps0: float, eps: float) -> mpmath.mpf:
    """δ(ε) of the clone pair (FMT 2021 §5), every c and a enumerated in 50 digits."""
    mpmath.mp.dps = 50
    p = mpmath.exp(-mpmath.mpf(eps0))
    alpha = mpmath.exp(mpmath.mpf(eps0)) / (1 + mpmath.exp(mpmath.mpf(eps0)))
    total = mpmath.mpf(0)
    for c in range(n):
        weight = mpmath.binomial(n - 1, c) * p**c * (1 - p) ** (n - 1 - c)

        def b(a: int, c: int = c) -> mpmath.mpf:
            return mpmath.binomial(c, a) / mpmath.mpf(2) ** c if 0 <= a <= c else mpmath.mpf(0)

        h = mpmath.mpf(0)
        for a in range(c + 2):
            pa = alpha * b(a) + (1 - alpha) * b(a - 1)
            qa = alpha * b(a - 1) + (1 - alpha) * b(a)
            h += max(mpmath.mpf(0), pa - mpmath.exp(mpmath.mpf(eps)) * qa)
        total += weight * h
    return total


@pytest.mark.parametrize(("n", "eps0"), [(5, 1.0), (20, 0.5), (30, 2.0)])
def test_small_n_equals_the_exact_pair(n: int, eps0: float) -> None:
    # Every c is its own block for n ≤ 40: the bound is the pair's exact δ (up to rounding).
    for eps in (0.0, 0.1, 0.3, eps0 / 2):
        ours = shuffle.shuffled_delta(n, eps0, eps)
        exact = mp_delta(n, eps0, eps)
        assert ours == pytest.approx(float(exact), rel=1e-9, abs=1e-15)


def test_epsilon_solves_the_bound() -> None:
    n, eps0, delta = 20, 1.0, 1e-2
    eps = shuffle.shuffled_epsilon(n, eps0, delta)
    assert mp_delta(n, eps0, eps) <= delta
    assert mp_delta(n, eps0, eps * 0.98) > delta  # and it is not loose (bisection to 0.1 %)


@pytest.mark.parametrize(
    ("n", "eps0", "delta"),
    [(10_000, 1.0, 1e-6), (10_000, 3.0, 1e-6), (100_000, 4.0, 1e-6), (1_000, 1.0, 1e-6)],
)
def test_below_the_papers_closed_form(n: int, eps0: float, delta: float) -> None:
    """FMT 2021 Thm 3.1 is an upper bound on the same quantity; the numerical one is tighter
    (their §6 reports it well below the closed form)."""
    ours = shuffle.shuffled_epsilon(n, eps0, delta)
    closed = shuffle.closed_form_epsilon(n, eps0, delta)
    assert closed is not None
    assert 0 < ours < closed
    assert ours < eps0


def test_never_above_local_and_falls_with_n() -> None:
    values = [shuffle.shuffled_epsilon(n, 2.0, 1e-6) for n in (10, 100, 1_000, 10_000)]
    assert values[0] <= 2.0
    assert all(a >= b for a, b in itertools.pairwise(values))
    # ε ≈ const·√(e^{ε₀} ln(1/δ)/n) for large n: 10× the rows → about √10 smaller.
    assert values[2] / values[3] == pytest.approx(math.sqrt(10), rel=0.2)


def test_bad_input() -> None:
    with pytest.raises(ValueError):
        shuffle.shuffled_epsilon(10, 0.0, 1e-6)
    assert shuffle.shuffled_epsilon(1, 1.0, 1e-6) == 1.0
    assert shuffle.closed_form_epsilon(100, 5.0, 1e-6) is None
