"""Amplification by shuffling (dpcore.central.shuffle): the FMT 2021 pair summed exactly
(mpmath, by enumeration) for small n, the paper's closed-form theorem as an upper envelope, the
basic properties (never above ε₀, falls with n), the issue-27 regressions (no δ floor) and the
guarantee that names its method. Deep-tail checks: test_shuffle_pair.py; datasets:
test_shuffle_datasets.py."""

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
    # Every c is its own block below c = 250: the bound is the pair's exact δ times the 1e-6
    # safety factor for rounding (dpcore/central/shuffle_pair.py).
    for eps in (0.0, 0.1, 0.3, eps0 / 2):
        ours = shuffle.shuffled_delta(n, eps0, eps)
        exact = float(mp_delta(n, eps0, eps))
        assert exact <= ours <= exact * (1 + 2e-6) + 1e-300


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
    # A row of many questions can sum to a local ε whose e^ε₀ overflows: no amplification, no 500.
    huge = shuffle.shuffled_guarantee(1000, 800.0, 1e-6, 2)
    assert huge.epsilon == 800.0
    assert shuffle.shuffled_delta(1000, 800.0, 1.0) == 1.0


def test_no_delta_floor_at_1e_10() -> None:
    """Issue 27: the clone counts' lost mass (1.7e-10 at n = 10⁵, ε₀ = ln 3) was charged as δ, so
    δ = 1e-10 got ε = ε₀ = 1.0986 (no amplification) where the bound gives 0.0285."""
    eps = shuffle.shuffled_epsilon(100_000, math.log(3), 1e-10)
    assert 0.02 < eps <= 0.0286


def test_no_inflation_just_above_the_floor() -> None:
    """Issue 27: 0.270 (inflated by the floor) where the bound is 0.253 (ε₀ = 4, n = 10⁵)."""
    eps = shuffle.shuffled_epsilon(100_000, 4.0, 1e-10)
    assert eps == pytest.approx(0.2535, rel=2e-3)


def test_amplifies_down_to_1e_100_and_grows_as_delta_shrinks() -> None:
    values = [shuffle.shuffled_epsilon(100_000, math.log(3), 10.0**-e) for e in (3, 10, 50, 100)]
    assert all(a < b for a, b in itertools.pairwise(values))
    assert values[-1] < 0.2 < math.log(3)


def test_guarantee_names_the_tightest_sound_method() -> None:
    n, eps0, delta = 10_000, 2.0, 1e-6
    generic = shuffle.shuffled_guarantee(n, eps0, delta)
    assert generic.method == "clones-2021"
    assert generic.epsilon == shuffle.shuffled_epsilon(n, eps0, delta)
    assert (generic.n, generic.local_epsilon, generic.delta) == (n, eps0, delta)
    binary = shuffle.shuffled_guarantee(n, eps0, delta, 2)
    assert binary.method == "histogram-splits"  # one yes/no column: every split bounded
    assert binary.epsilon < 0.6 * generic.epsilon  # 0.0873 against 0.155
    pair23 = shuffle._epsilon(shuffle.clone_pair(n, eps0, 2), eps0, delta)
    assert binary.epsilon < 0.8 * pair23  # 0.0873 against 0.115
    assert binary.method in shuffle.METHODS and generic.method in shuffle.METHODS
    # k-RR: fewer clones (p = 2/(e^ε₀ + k − 1)) but a smaller differing share; both sound.
    five = shuffle.shuffled_guarantee(n, eps0, delta, 5)
    assert five.epsilon <= generic.epsilon
    with pytest.raises(ValueError):
        shuffle.shuffled_guarantee(n, eps0, delta, 1)


def test_one_million_rows_in_well_under_two_seconds() -> None:
    import time

    shuffle.shuffled_guarantee.cache_clear()
    start = time.process_time()
    shuffle.shuffled_guarantee(1_000_000, 0.5, 1e-50, 2)
    assert time.process_time() - start < 2.0
