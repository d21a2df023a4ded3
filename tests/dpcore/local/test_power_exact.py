"""dpcore.local.power_exact against independent computations.

The reference sums the binomial pmf over the rejection region by brute force — every report
count (every pair of counts for two groups) tested with the statistic written out here, each
probability an exact rational C(n, k)·λ^k·(1 − λ)^(n−k) (fractions.Fraction of the float λ) — so
it shares no code, no log-space trick and no window with the module. Deterministic: no
randomness, so every check is to rounding (1e-12).
"""

from __future__ import annotations

import math
from fractions import Fraction
from statistics import NormalDist

import pytest
from scipy.stats import binom

from dpcore.local import forced_response, k_rr, optimal_forced_response, warner
from dpcore.local import power as approximate
from dpcore.local.power_exact import SEARCH_LIMIT, power, sample_size


def _pmf(n: int, lam: float) -> list[Fraction]:
    p = Fraction(lam)
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def _brute_force(test: str, c: float, d: float, pi0: float, pi1: float, alpha: float, n: int):
    z = NormalDist().inv_cdf(1 - alpha / 2)
    lam0, lam1 = c * pi0 + d, c * pi1 + d
    if test == "one_sample":
        se = math.sqrt(lam0 * (1 - lam0) / n)
        pmf = _pmf(n, lam1)
        return float(sum(pmf[x] for x in range(n + 1) if abs((x / n - lam0) / se) > z))
    pa, pb = _pmf(n, lam0), _pmf(n, lam1)
    total = Fraction(0)
    for a in range(n + 1):
        for b in range(n + 1):
            pooled = (a + b) / (2 * n)
            if pooled in (0.0, 1.0):
                continue  # 0/0: no rejection
            if abs((b / n - a / n) / math.sqrt(2 * pooled * (1 - pooled) / n)) > z:
                total += pa[a] * pb[b]
    return float(total)


SMALL = [
    ("one_sample", forced_response(0.5, 0.25, 0.25), 0.10, 0.30, 0.05, 60),
    ("one_sample", warner(0.8), 0.30, 0.20, 0.01, 150),
    ("one_sample", optimal_forced_response(3.0), 0.05, 0.05, 0.05, 200),  # the test's size
    ("one_sample", k_rr(4, 1.0), 0.25, 0.50, 0.10, 37),
    ("one_sample", forced_response(1.0, 0.0, 0.0), 0.5, 0.7, 0.05, 25),  # direct questioning
    ("two_sample", forced_response(0.5, 0.25, 0.25), 0.10, 0.40, 0.05, 40),
    ("two_sample", optimal_forced_response(3.0), 0.05, 0.30, 0.05, 45),
    ("two_sample", warner(0.7), 0.20, 0.20, 0.05, 30),
    ("two_sample", forced_response(1.0, 0.0, 0.0), 0.0, 0.3, 0.05, 20),  # λ₀ = 0: all-zero rows
]


@pytest.mark.parametrize(("test", "design", "pi0", "pi1", "alpha", "n"), SMALL)
def test_matches_the_brute_force_sum_of_exact_probabilities(test, design, pi0, pi1, alpha, n):
    figures = {"test": test, "c": design.c, "d": design.d, "pi0": pi0, "pi1": pi1, "alpha": alpha}
    expected = _brute_force(**figures, n=n)
    assert power(**figures, n=n) == pytest.approx(expected, abs=1e-12)


def test_one_sample_at_a_larger_n_matches_scipys_binomial_tails():
    design = optimal_forced_response(1.0)
    lam0, lam1 = design.c * 0.3 + design.d, design.c * 0.33 + design.d
    n, z = 20_000, NormalDist().inv_cdf(0.975)
    half = z * math.sqrt(n * lam0 * (1 - lam0))
    low, high = math.ceil(n * lam0 - half) - 1, math.floor(n * lam0 + half) + 1
    expected = binom.cdf(low, n, lam1) + binom.sf(high - 1, n, lam1)
    got = power(test="one_sample", c=design.c, d=design.d, pi0=0.3, pi1=0.33, alpha=0.05, n=n)
    assert got == pytest.approx(expected, abs=1e-12)


def test_the_normal_approximation_promises_080_where_the_exact_power_is_0783():
    # ε = 3, optimal forced response (Warner-equivalent), π 0.05 → 0.10, α = 0.05: n = 360.
    design = optimal_forced_response(3.0)
    figures = {"test": "one_sample", "c": design.c, "d": design.d, "pi0": 0.05, "pi1": 0.10}
    assert approximate.sample_size(**figures, alpha=0.05, target=0.8) == 360
    assert approximate.power(**figures, alpha=0.05, n=360) == pytest.approx(0.8001, abs=1e-4)
    exact = power(**figures, alpha=0.05, n=360)
    assert exact == pytest.approx(_brute_force(**figures, alpha=0.05, n=360), abs=1e-12)
    assert exact == pytest.approx(0.7827, abs=1e-4)
    n, _ = sample_size(**figures, alpha=0.05, target=0.8)
    assert n == 379 and power(**figures, alpha=0.05, n=n) >= 0.8


@pytest.mark.parametrize(
    ("test", "pi0", "pi1"), [("one_sample", 0.05, 0.10), ("two_sample", 0.05, 0.12)]
)
def test_sample_size_is_the_start_of_the_run_reaching_the_target(test, pi0, pi1):
    design = optimal_forced_response(3.0)
    figures = {"test": test, "c": design.c, "d": design.d, "pi0": pi0, "pi1": pi1, "alpha": 0.05}
    n, bound = sample_size(**figures, target=0.8)
    curve = {m: power(**figures, n=m) for m in range(max(1, n - 60), bound + 1)}
    assert all(curve[m] >= 0.8 for m in range(n, bound + 1))
    assert curve[n - 1] < 0.8
    assert bound >= 1.1 * approximate.sample_size(**figures, target=0.8)
    # Not monotone: the saw goes down somewhere on the way (why "the start of the run").
    assert any(curve[m + 1] < curve[m] for m in range(max(1, n - 60), bound))


def test_huge_n_and_the_search_limit():
    design = forced_response(0.5, 0.25, 0.25)
    figures = {"c": design.c, "d": design.d, "pi0": 0.3, "pi1": 0.3001, "alpha": 0.05}
    for test in ("one_sample", "two_sample"):
        value = power(test=test, **figures, n=10**9)
        approx = approximate.power(test=test, **figures, n=10**9)
        assert value == pytest.approx(approx, abs=2e-3)  # the normal limit at n = 10⁹
    with pytest.raises(ValueError, match=str(SEARCH_LIMIT)):
        sample_size(test="one_sample", **figures, target=0.8)
    with pytest.raises(ValueError):
        power(test="paired", **figures, n=10)
