"""Exact (not simulated) coverage of the intervals, from the binomial pmf.

Coverage at π = P_π(ci_low ≤ π ≤ ci_high) = Σ_y Bin(y; n, cπ + d)·1[π ∈ interval(y)]. The pmf here
comes from scipy (independent of the library's own numpy pmf, which is checked against it), and the
intervals from ``binary_interval_table``, which equals ``estimate_binary`` outcome by outcome (see
test_rr_estimates).

Finding (kept visible by ``test_boundary_coverage_is_one_sided_because_of_clipping``): for
0 < π < 1 clipping never changes whether π is covered, so the coverage is that of the Wilson
interval for λ — inside [0.935, 0.965] at n = 100 and 1000. At π = 0 (or 1) exactly the clipped
upper (lower) end is always ≥ 0 (≤ 1), so the interval can only miss on one side: coverage is
P(Wilson lower bound ≤ λ) = 0.9724 (n = 100), 0.9725 (n = 1000), the one-sided 97.5% level. That
is conservative, not a bug, and no interval clipped to [0, 1] can come below 0.965 there without
excluding 0 more often on purpose.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpcore.local import (
    BinaryDesign,
    binary_interval_table,
    exact_coverage,
    forced_response,
    optimal_forced_response,
)
from dpcore.local.intervals import binomial_pmf_table, wilson_bounds_array, z_value

COIN = forced_response(0.5, 0.25, 0.25)
GRID = np.round(np.arange(201) * 0.005, 10)  # π = 0, 0.005, …, 1
INTERIOR = GRID[1:-1]


def scipy_coverage(
    design: BinaryDesign, n: int, pis: np.ndarray, interval: str = "wilson"
) -> np.ndarray:
    _, low, high = binary_interval_table(design, n=n, interval=interval)
    y = np.arange(n + 1)
    pmf = binom.pmf(y[None, :], n, (design.c * pis + design.d)[:, None])
    covered = (low[None, :] <= pis[:, None]) & (pis[:, None] <= high[None, :])
    return (pmf * covered).sum(axis=1)


@pytest.fixture(scope="module", params=[100, 1000], ids=lambda n: f"n={n}")
def coin_coverage(request: pytest.FixtureRequest) -> tuple[int, np.ndarray]:
    n = request.param
    return n, scipy_coverage(COIN, n, GRID)


def test_coin_interior_coverage_within_band(coin_coverage: tuple[int, np.ndarray]) -> None:
    n, coverage = coin_coverage
    interior = coverage[1:-1]
    outside = [
        (float(pi), float(c)) for pi, c in zip(INTERIOR, interior) if not 0.935 <= c <= 0.965
    ]
    assert outside == [], f"n={n}: coverage outside [0.935, 0.965] at {outside}"
    expected = {100: (0.93719, 0.96191), 1000: (0.94603, 0.95407)}[n]
    assert (interior.min(), interior.max()) == pytest.approx(expected, abs=1e-5)


def test_coin_coverage_issue_figures() -> None:
    coverage = scipy_coverage(COIN, 100, np.array([0.01, 0.1]))
    assert coverage == pytest.approx([0.962, 0.937], abs=1e-3)


def test_boundary_coverage_is_one_sided_because_of_clipping(
    coin_coverage: tuple[int, np.ndarray],
) -> None:
    n, coverage = coin_coverage
    z = z_value(0.95)
    # At π = 0, λ = d: covered iff the Wilson lower bound L(y) ≤ d (the clipped upper end is ≥ 0).
    low, high = wilson_bounds_array(np.arange(n + 1) / n, n, z)
    pmf = binom.pmf(np.arange(n + 1), n, COIN.d)
    one_sided = pmf[low <= COIN.d].sum()
    two_sided_unclipped = pmf[(low <= COIN.d) & (COIN.d <= high)].sum()
    assert coverage[0] == pytest.approx(one_sided, abs=1e-12)
    assert coverage[-1] == pytest.approx(coverage[0], abs=1e-12)  # the coin is symmetric
    assert coverage[0] == pytest.approx({100: 0.97241, 1000: 0.97254}[n], abs=1e-5)
    assert coverage[0] >= 0.935  # valid (conservative) ...
    assert 0.935 <= two_sided_unclipped <= 0.965  # ... and the excess over 0.965 is the clipping
    assert coverage[0] > 0.965


def test_coin_coverage_never_below_band_anywhere(coin_coverage: tuple[int, np.ndarray]) -> None:
    _, coverage = coin_coverage
    assert coverage.min() >= 0.935


def test_library_exact_coverage_agrees_with_scipy() -> None:
    for n in (100, 1000):
        ours = exact_coverage(COIN, n=n, pis=GRID)
        assert np.max(np.abs(ours - scipy_coverage(COIN, n, GRID))) < 1e-10
    pmf = binomial_pmf_table(50, [0.0, 0.3, 1.0])
    assert pmf.sum(axis=1) == pytest.approx([1.0, 1.0, 1.0])
    assert pmf[0, 0] == 1.0
    assert pmf[2, 50] == 1.0
    assert pmf[1] == pytest.approx(binom.pmf(np.arange(51), 50, 0.3), rel=1e-10)


def test_wilson_beats_wald_at_large_epsilon() -> None:
    design = optimal_forced_response(math.log(19))  # q = 0.9, f₁ = f₀ = 0.05
    pis = np.array([0.02, 0.05])
    wilson = scipy_coverage(design, 50, pis, "wilson")
    wald = scipy_coverage(design, 50, pis, "wald")
    assert np.all(wilson >= 0.94), wilson
    assert np.all(wald < 0.90), wald
    assert wilson == pytest.approx([0.94866, 0.94906], abs=1e-5)
    assert wald == pytest.approx([0.85649, 0.85932], abs=1e-5)
    assert exact_coverage(design, n=50, pis=pis, interval="wald") == pytest.approx(wald)
