"""Exact (not simulated) coverage of the default "unified" interval, and that it never collapses.

Coverage at π = Σ_y Bin(y; n, cπ + d)·1[π ∈ interval(y)], the pmf from scipy (independent of the
library's numpy pmf), the intervals from ``binary_interval_table`` (= ``estimate_binary``
outcome by outcome). Goals (issue 14): coin design within [0.935, 0.965] at n ∈ {100, 1000} for
π = 0.005 … 0.995; ≥ 0.94 at ε = ln 19, n = 50, π ∈ {0.02, 0.05}; never a zero-width interval.
The table printed by ``bench/coverage_table.py`` is in bench/RESULTS.md.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpcore.local import (
    BinaryDesign,
    binary_interval_table,
    estimate_binary,
    estimate_krr,
    exact_coverage,
    forced_response,
    k_rr,
    optimal_forced_response,
)
from dpcore.local.unified_interval import acceptance_probability, unified_interval

COIN = forced_response(0.5, 0.25, 0.25)
GRID = np.round(np.arange(201) * 0.005, 10)
INTERIOR = GRID[1:-1]


def scipy_coverage(design: BinaryDesign, n: int, pis: np.ndarray) -> np.ndarray:
    _, low, high = binary_interval_table(design, n=n)
    pmf = binom.pmf(np.arange(n + 1)[None, :], n, (design.c * pis + design.d)[:, None])
    covered = (low[None, :] <= pis[:, None]) & (pis[:, None] <= high[None, :])
    return (pmf * covered).sum(axis=1)


@pytest.fixture(scope="module", params=[100, 1000], ids=lambda n: f"n={n}")
def coin(request: pytest.FixtureRequest) -> tuple[int, np.ndarray]:
    return request.param, scipy_coverage(COIN, request.param, GRID)


def test_coin_coverage_within_band_everywhere_inside(coin: tuple[int, np.ndarray]) -> None:
    n, coverage = coin
    outside = [
        (float(p), float(c)) for p, c in zip(INTERIOR, coverage[1:-1]) if not 0.935 <= c <= 0.965
    ]
    assert outside == [], f"n={n}: {outside}"
    expected = {100: (0.93600, 0.96099), 1000: (0.94603, 0.95373)}[n]
    assert (coverage[1:-1].min(), coverage[1:-1].max()) == pytest.approx(expected, abs=1e-5)


def test_coin_boundary_coverage_is_near_nominal_not_one_sided(coin: tuple[int, np.ndarray]) -> None:
    # Wilson clipped gives 0.9724 at π = 0 (a one-sided 97.5 % bound); the boundary calibration
    # brings it back near 0.95 — and, the coin being symmetric, the same at π = 1.
    _, coverage = coin
    assert 0.935 <= coverage[0] <= 0.965
    assert coverage[-1] == pytest.approx(coverage[0], abs=1e-12)


def test_library_exact_coverage_agrees_with_scipy(coin: tuple[int, np.ndarray]) -> None:
    n, coverage = coin
    assert np.max(np.abs(exact_coverage(COIN, n=n, pis=GRID) - coverage)) < 1e-10


def test_large_epsilon_small_n_goal() -> None:
    design = optimal_forced_response(math.log(19))
    coverage = scipy_coverage(design, 50, np.array([0.02, 0.05]))
    assert np.all(coverage >= 0.94), coverage


@pytest.mark.parametrize("n", [10, 50, 200, 219, 800])
def test_never_zero_width_for_any_outcome(n: int) -> None:
    for design in (COIN, optimal_forced_response(math.log(19)), optimal_forced_response(0.5)):
        estimate, low, high = binary_interval_table(design, n=n)
        assert np.all(high - low > 0.0), (design, n)
        assert np.all((low <= estimate) & (estimate <= high))


def test_issue_example_no_longer_collapses() -> None:
    # A group of 219 with estimate −0.126 gave [0, 0] (Wilson clipped): 2λ̂ − ½ = −0.126.
    y = round((0.25 - 0.063) * 219)
    wilson = estimate_binary(COIN, n=219, reported_yes=y, interval="wilson")
    unified = estimate_binary(COIN, n=219, reported_yes=y)
    assert (wilson.ci_low, wilson.ci_high) == (0.0, 0.0)
    assert unified.ci_low == 0.0 and unified.ci_high > 0.01


def test_zero_width_frequency_at_n200_before_and_after() -> None:
    # Issue: 1.8 % at π = 0 and 1.2 % at π = 0.01 for the clipped Wilson interval; now 0.
    n = 200
    _, wl, wh = binary_interval_table(COIN, n=n, interval="wilson")
    _, ul, uh = binary_interval_table(COIN, n=n)
    pmf = binom.pmf(
        np.arange(n + 1)[None, :], n, (COIN.c * np.array([0.0, 0.01]) + COIN.d)[:, None]
    )
    assert (pmf * (wh - wl == 0.0)).sum(axis=1) == pytest.approx([0.018, 0.012], abs=1e-3)
    assert (pmf * (uh - ul == 0.0)).sum(axis=1).tolist() == [0.0, 0.0]


def test_agrees_with_wilson_away_from_the_boundaries() -> None:
    for y in (60, 100, 140):  # π̂ = 0.1, 0.5, 0.9 at n = 200: far from 0 and 1 in SE units
        w = estimate_binary(COIN, n=200, reported_yes=y, interval="wilson")
        u = estimate_binary(COIN, n=200, reported_yes=y)
        assert (u.ci_low, u.ci_high) == pytest.approx((w.ci_low, w.ci_high), abs=1e-12)


def test_acceptance_probability_limits() -> None:
    z2 = 1.959963984540054**2
    assert acceptance_probability(z2, 10.0) == pytest.approx(0.95, abs=1e-12)
    assert acceptance_probability(1.6448536269514722**2, 0.0) == pytest.approx(0.95, abs=1e-12)
    # Monte Carlo check of the truncated-Gaussian formula (seeded).
    rng = np.random.default_rng(14)
    for mu in (0.3, 1.0):
        x = rng.normal(mu, 1.0, 400_000)
        t = np.where(x >= 0.0, (x - mu) ** 2, mu * mu - 2.0 * mu * x)
        assert np.mean(t <= 3.0) == pytest.approx(acceptance_probability(3.0, mu), abs=3e-3)


def test_krr_options_use_it_and_low_confidence_still_positive_width() -> None:
    result = estimate_krr(k_rr(4, 1.0), counts=[0, 10, 10, 10])
    assert all(o.ci_high > o.ci_low for o in result.options)
    for confidence in (0.1, 0.5, 0.999):
        low, high = unified_interval(326, 343, 0.8, 0.1, confidence)
        assert high > low


def test_wilson_shortcut_equals_the_bisection(monkeypatch: pytest.MonkeyPatch) -> None:
    # Where the shortcut applies it must give what the full construction gives.
    import dpcore.local.unified_interval as module

    checked = 0
    for n in (50, 219, 1000):
        for c, d in ((0.5, 0.25), (0.9, 0.05), (0.5, 0.0), (0.2, 0.4)):
            for y in range(0, n + 1, max(1, n // 200)):
                fast = module._wilson_if_interior(y, n, c, d, 0.95)
                if fast is None:
                    continue
                with monkeypatch.context() as patch:
                    patch.setattr(module, "_wilson_if_interior", lambda *args: None)
                    slow = module.unified_interval(y, n, c, d, 0.95)
                assert fast == pytest.approx(slow, abs=1e-14)
                checked += 1
    assert checked > 500
