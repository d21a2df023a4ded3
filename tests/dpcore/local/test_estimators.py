"""Estimates, intervals, the bound, efficiency, deniability and planning: worked numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.local import (
    binary_interval_table,
    deniability,
    efficiency,
    estimate_binary,
    estimator_variance,
    forced_response,
    optimal_forced_response,
    planned_half_width,
    planned_half_width_direct,
    sample_size,
    sample_size_direct,
    unrelated_question,
    variance_bound,
    warner,
    wilson_interval,
    z_value,
)

COIN = forced_response(0.5, 0.25, 0.25)


def test_z_values() -> None:
    assert z_value(0.95) == pytest.approx(1.959964, abs=1e-6)
    assert z_value(0.90) == pytest.approx(1.644854, abs=1e-6)
    assert z_value(0.99) == pytest.approx(2.575829, abs=1e-6)


@pytest.mark.parametrize("confidence", [0.0, 1.0, -0.5, 1.5, float("nan"), "0.95", True])
def test_z_value_rejects_bad_confidence(confidence) -> None:
    with pytest.raises(ValueError, match="confidence"):
        z_value(confidence)


def test_wilson_interval_published_values() -> None:
    # 40/100 at 95%: (0.3094, 0.4980); 0/10: (0, 0.2775); 10/10: (0.7225, 1).
    assert wilson_interval(40, 100, 0.95) == pytest.approx((0.3094, 0.4980), abs=1e-4)
    low, high = wilson_interval(0, 10, 0.95)
    assert low == 0.0
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(10, 10, 0.95)
    assert (low, high) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert high == 1.0


@pytest.mark.parametrize(("successes", "n"), [(-1, 10), (11, 10), (0, 0), (1, float("inf"))])
def test_wilson_interval_rejects_bad_counts(successes, n) -> None:
    with pytest.raises(ValueError):
        wilson_interval(successes, n, 0.95)


def test_coin_estimate_is_two_lambda_minus_half() -> None:
    result = estimate_binary(COIN, n=100, reported_yes=40)
    assert result.reported_yes_rate == 0.4
    assert result.estimate_unclipped == pytest.approx(2 * 0.4 - 0.5)
    assert result.estimate == pytest.approx(0.3)
    # SE = √(0.4·0.6/100)/0.5 = 0.0979796
    assert result.std_error == pytest.approx(math.sqrt(0.24 / 100) / 0.5)
    # Wilson (0.3094, 0.4980) for λ, mapped by 2λ − ½.
    assert (result.ci_low, result.ci_high) == pytest.approx((0.1188, 0.4960), abs=2e-4)
    assert (result.confidence, result.interval) == (0.95, "wilson")


def test_coin_estimate_clips_but_keeps_the_unbiased_value() -> None:
    result = estimate_binary(COIN, n=100, reported_yes=20)
    assert result.estimate_unclipped == pytest.approx(-0.1)
    assert result.estimate == 0.0
    assert result.ci_low == 0.0
    assert result.ci_low <= result.estimate <= result.ci_high
    high = estimate_binary(COIN, n=100, reported_yes=80)
    assert high.estimate_unclipped == pytest.approx(1.1)
    assert high.estimate == 1.0
    assert high.ci_high == 1.0


def test_wald_interval() -> None:
    result = estimate_binary(COIN, n=100, reported_yes=40, interval="wald")
    half = z_value(0.95) * math.sqrt(0.24 / 100) / 0.5
    assert (result.ci_low, result.ci_high) == pytest.approx((0.3 - half, 0.3 + half))
    assert result.interval == "wald"


def test_other_confidence_levels_nest() -> None:
    narrow = estimate_binary(COIN, n=500, reported_yes=220, confidence=0.8)
    wide = estimate_binary(COIN, n=500, reported_yes=220, confidence=0.99)
    assert wide.ci_low < narrow.ci_low < narrow.estimate < narrow.ci_high < wide.ci_high


def test_warner_and_unrelated_estimates_by_hand() -> None:
    # Warner p = 0.7: π̂ = (λ̂ − 0.3)/0.4; λ̂ = 0.46 → 0.4; SE = √(0.46·0.54/100)/0.4 = 0.12460.
    result = estimate_binary(warner(0.7), n=100, reported_yes=46)
    assert result.estimate == pytest.approx(0.4)
    assert result.std_error == pytest.approx(0.124599, abs=1e-6)
    # Unrelated p = 0.5, u = 0.2: π̂ = (λ̂ − 0.1)/0.5; λ̂ = 0.35 → 0.5.
    result = estimate_binary(unrelated_question(0.5, 0.2), n=200, reported_yes=70)
    assert result.estimate == pytest.approx(0.5)
    assert result.std_error == pytest.approx(math.sqrt(0.35 * 0.65 / 200) / 0.5)


def test_no_reports_gives_none() -> None:
    result = estimate_binary(COIN, n=0, reported_yes=0)
    assert result.n == 0
    assert result.reported_yes == 0
    for value in (
        result.reported_yes_rate,
        result.estimate,
        result.estimate_unclipped,
        result.std_error,
        result.ci_low,
        result.ci_high,
    ):
        assert value is None
    assert result.confidence == 0.95


@pytest.mark.parametrize(
    "kwargs",
    [
        {"n": -1, "reported_yes": 0},
        {"n": 10, "reported_yes": 11},
        {"n": 10, "reported_yes": -1},
        {"n": 10.0, "reported_yes": 5},
        {"n": 10, "reported_yes": 5, "interval": "agresti"},
        {"n": 10, "reported_yes": 5, "confidence": 1.0},
        {"n": 0, "reported_yes": 0, "confidence": 0.0},
    ],
)
def test_estimate_binary_rejects_bad_arguments(kwargs) -> None:
    with pytest.raises(ValueError):
        estimate_binary(COIN, **kwargs)


def test_numpy_integer_counts_are_accepted() -> None:
    result = estimate_binary(COIN, n=np.int64(100), reported_yes=np.int64(40))
    assert result.estimate == pytest.approx(0.3)


@pytest.mark.parametrize("interval", ["wilson", "wald"])
@pytest.mark.parametrize("design", [COIN, warner(0.8), optimal_forced_response(math.log(19))])
def test_vectorised_table_matches_scalar_estimates(design, interval: str) -> None:
    n = 120
    estimate, low, high = binary_interval_table(design, n=n, interval=interval)
    for y in range(n + 1):
        scalar = estimate_binary(design, n=n, reported_yes=y, interval=interval)
        assert (estimate[y], low[y], high[y]) == (scalar.estimate, scalar.ci_low, scalar.ci_high)


# --- the bound, efficiency, deniability ----------------------------------------------------------


def test_variance_bound_is_one_over_n_for_the_coin_at_half() -> None:
    for n in (1, 10, 1000):
        assert variance_bound(math.log(3), 0.5, n) == pytest.approx(1 / n)
        assert estimator_variance(COIN, 0.5, n) == pytest.approx(1 / n)
    assert efficiency(COIN, 0.5) == pytest.approx(1.0)


def test_variance_bound_limits() -> None:
    # ε → ∞: direct questioning's π(1 − π)/n.
    assert variance_bound(math.inf, 0.3, 10) == pytest.approx(0.021)
    assert variance_bound(1000.0, 0.3, 10) == pytest.approx(0.021)
    # e^ε/(e^ε − 1)² at ε = ln 2: 2.
    assert variance_bound(math.log(2), 0.0, 1) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        variance_bound(0.0, 0.5, 1)
    with pytest.raises(ValueError):
        variance_bound(1.0, 1.5, 1)
    with pytest.raises(ValueError):
        variance_bound(1.0, 0.5, 0)


def test_efficiency_of_designs() -> None:
    for pi in (0.0, 0.1, 0.5, 0.9, 1.0):
        assert efficiency(COIN, pi) == pytest.approx(1.0)
        assert efficiency(warner(0.75), pi) == pytest.approx(1.0)
    # Unrelated question p = 0.5, u = 0.2 at π = 0.5: λ = 0.35, Var·n = 0.35·0.65/0.25 = 0.91;
    # ε = ln 6: bound·n = 0.25 + 6/25 = 0.49 → efficiency 0.49/0.91.
    assert efficiency(unrelated_question(0.5, 0.2), 0.5) == pytest.approx(0.49 / 0.91)
    # Direct questioning (ε = ∞) attains π(1 − π)/n, and at π = 0 both are 0.
    direct = forced_response(1.0, 0.0, 0.0)
    assert efficiency(direct, 0.3) == pytest.approx(1.0)
    assert efficiency(direct, 0.0) == 1.0


def test_deniability_worked_numbers() -> None:
    assert deniability(COIN, 0.1) == pytest.approx(0.25)  # 0.1·0.75/0.3
    assert deniability(unrelated_question(0.5, 0.2), 0.1) == pytest.approx(0.4)  # 0.06/0.15
    assert deniability(COIN, 0.0) == 0.0
    assert deniability(COIN, 1.0) == pytest.approx(1.0)
    assert deniability(forced_response(0.5, 0.0, 0.5), 0.1) == pytest.approx(1.0)  # one-sided
    with pytest.raises(ValueError):
        deniability(COIN, 1.2)


# --- planning ------------------------------------------------------------------------------------


def test_sample_size_coin_needs_four_times_direct_questioning() -> None:
    direct = sample_size_direct(half_width=0.05)
    coin = sample_size(COIN, half_width=0.05)
    z2 = z_value(0.95) ** 2
    assert direct == math.ceil(z2 * 0.25 / 0.05**2) == 385
    assert coin == math.ceil(z2 * 0.25 / (0.25 * 0.05**2)) == 1537
    assert abs(coin - 4 * direct) <= 4
    assert sample_size(COIN, half_width=0.05, prior=0.5) == coin
    # The planned half-widths make the 4× exact.
    for n in (25, 400, 10_000):
        assert planned_half_width(COIN, n=4 * n) == pytest.approx(planned_half_width_direct(n=n))


def test_sample_size_with_a_prior_and_other_designs() -> None:
    # Coin at π = 0.1: λ = 0.3, n = ⌈z²·0.21/(0.25·0.05²)⌉.
    z2 = z_value(0.95) ** 2
    assert sample_size(COIN, half_width=0.05, prior=0.1) == math.ceil(z2 * 0.21 / 0.25 / 0.0025)
    assert sample_size_direct(half_width=0.05, prior=0.1) == math.ceil(z2 * 0.09 / 0.0025)
    # Warner p = 0.7 at worst case: z²·0.25/(0.16·h²).
    assert sample_size(warner(0.7), half_width=0.1) == math.ceil(z2 * 0.25 / 0.16 / 0.01)
    # Unrelated p = 0.3, u = 0.1: λ ∈ [0.07, 0.37] never reaches ½; the worst case is λ = 0.37.
    design = unrelated_question(0.3, 0.1)
    worst = sample_size(design, half_width=0.05)
    assert worst == sample_size(design, half_width=0.05, prior=1.0)
    assert worst == math.ceil(z2 * 0.37 * 0.63 / 0.09 / 0.0025)
    assert sample_size_direct(half_width=0.05, prior=0.0) == 1


@pytest.mark.parametrize("half_width", [0.0, -0.1, float("nan"), float("inf")])
def test_sample_size_rejects_bad_half_width(half_width: float) -> None:
    with pytest.raises(ValueError, match="half_width"):
        sample_size(COIN, half_width=half_width)
    with pytest.raises(ValueError, match="half_width"):
        sample_size_direct(half_width=half_width)


def test_planned_half_width_inverts_sample_size() -> None:
    for h in (0.01, 0.03, 0.1):
        n = sample_size(COIN, half_width=h, prior=0.2, confidence=0.9)
        assert planned_half_width(COIN, n=n, prior=0.2, confidence=0.9) <= h
        assert planned_half_width(COIN, n=n - 1, prior=0.2, confidence=0.9) > h
