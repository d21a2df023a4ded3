"""k-ary randomized response: estimates, variance, reduction to the binary case."""

from __future__ import annotations

import math

import pytest

from dpcore.local import (
    KRRDesign,
    estimate_binary,
    estimate_krr,
    estimator_variance,
    k_rr,
    krr_deniability,
    krr_proportion_variance,
    krr_variance,
    planned_half_width,
    project_to_simplex,
    sample_size,
    warner,
)


def test_krr_estimates_by_hand() -> None:
    # k = 4, ε = ln 3: p = ½, q = 1/6, p − q = 1/3. Counts (10, 20, 30, 40), n = 100:
    # ĉ_v/n = (C_v/n − 1/6)·3 = (−0.2, 0.1, 0.4, 0.7).
    design = k_rr(4, math.log(3))
    result = estimate_krr(design, counts=[10, 20, 30, 40])
    assert result.n == 100
    assert result.confidence == 0.95
    unbiased = [option.estimate_unclipped for option in result.options]
    assert unbiased == pytest.approx([-0.2, 0.1, 0.4, 0.7])
    assert sum(unbiased) == pytest.approx(1.0)
    # Display: projection of (−0.2, 0.1, 0.4, 0.7) onto the simplex: θ = (0.1 + 0.4 + 0.7 − 1)/3.
    theta = 0.2 / 3
    assert [o.estimate for o in result.options] == pytest.approx(
        [0.0, 0.1 - theta, 0.4 - theta, 0.7 - theta]
    )
    assert sum(o.estimate for o in result.options) == pytest.approx(1.0)
    first = result.options[0]
    assert (first.reported, first.reported_rate) == (10, 0.1)
    assert first.std_error == pytest.approx(math.sqrt(0.1 * 0.9 / 100) * 3)


def test_krr_option_matches_binary_formulas() -> None:
    # Each option is the binary design c = p − q, d = q: compare with a hand-built estimate.
    design = k_rr(3, 2.0)
    result = estimate_krr(design, counts=[50, 30, 20], confidence=0.9)
    for option in result.options:
        p, q = design.keep_probability, design.other_probability
        assert option.estimate_unclipped == pytest.approx((option.reported_rate - q) / (p - q))
        assert option.ci_low <= min(max(option.estimate_unclipped, 0.0), 1.0) <= option.ci_high


def test_krr_with_two_options_is_warner() -> None:
    # k = 2: keep with p = e^ε/(e^ε + 1) is Warner's design with that p.
    epsilon = 1.3
    design = k_rr(2, epsilon)
    binary = warner(math.exp(epsilon) / (math.exp(epsilon) + 1))
    result = estimate_krr(design, counts=[37, 63])
    expected = estimate_binary(binary, n=100, reported_yes=37)
    option = result.options[0]
    assert option.estimate_unclipped == pytest.approx(expected.estimate_unclipped)
    assert option.std_error == pytest.approx(expected.std_error)
    assert (option.ci_low, option.ci_high) == pytest.approx((expected.ci_low, expected.ci_high))
    assert binary.epsilon == pytest.approx(epsilon)


def test_krr_with_no_reports() -> None:
    result = estimate_krr(k_rr(3, 1.0), counts=[0, 0, 0])
    assert result.n == 0
    assert len(result.options) == 3
    assert all(o.reported == 0 and o.estimate is None and o.ci_low is None for o in result.options)


@pytest.mark.parametrize("counts", [[1, 2], [1, 2, 3, 4], [1, -2, 3], [1.0, 2, 3], [True, 2, 3]])
def test_krr_rejects_bad_counts(counts) -> None:
    with pytest.raises(ValueError):
        estimate_krr(k_rr(3, 1.0), counts=counts)


def test_krr_variance_formula() -> None:
    design = k_rr(4, math.log(3))
    # n·(e^ε + k − 2)/(e^ε − 1)² = 100·5/4 = 125 for a count; per proportion 125/100² .
    assert krr_variance(design, 100) == pytest.approx(125.0)
    assert krr_proportion_variance(design, 100) == pytest.approx(0.0125)
    # Equals n·q(1 − q)/(p − q)², the exact variance at f_v = 0.
    p, q = design.keep_probability, design.other_probability
    assert krr_variance(design, 100) == pytest.approx(100 * q * (1 - q) / (p - q) ** 2)
    assert krr_proportion_variance(design, 100, frequency=0.0) == pytest.approx(0.0125)
    exact = krr_proportion_variance(design, 100, frequency=0.3)
    assert exact == pytest.approx(estimator_variance(design, 0.3, 100))
    lam = q + (p - q) * 0.3
    assert exact == pytest.approx(lam * (1 - lam) / (100 * (p - q) ** 2))
    assert math.isfinite(krr_variance(k_rr(10, 800.0), 10))


def test_krr_planning_and_deniability() -> None:
    design = k_rr(4, math.log(3))
    # Worst case λ = ½ is attainable (λ ∈ [1/6, 1/2]): n = ⌈z²·¼/((1/3)²h²)⌉.
    n = sample_size(design, half_width=0.05)
    assert planned_half_width(design, n=n) <= 0.05 < planned_half_width(design, n=n - 1)
    # P(v | reported v) at prior ¼: ¼·½/(¼·½ + ¾·1/6) = ½.
    assert krr_deniability(design, 0.25) == pytest.approx(0.5)


def test_project_to_simplex_examples() -> None:
    assert project_to_simplex([0.2, 0.3, 0.5]) == pytest.approx((0.2, 0.3, 0.5))
    assert project_to_simplex([2.0, 0.0]) == pytest.approx((1.0, 0.0))
    assert project_to_simplex([0.0, 0.0, 0.0, 0.0]) == pytest.approx((0.25,) * 4)
    assert project_to_simplex([-1.0, 0.5, 0.9]) == pytest.approx((0.0, 0.3, 0.7))
    assert project_to_simplex([5.0]) == (1.0,)
    with pytest.raises(ValueError):
        project_to_simplex([])
    with pytest.raises(ValueError):
        project_to_simplex([0.5, float("nan")])


def test_krr_design_is_a_frozen_dataclass() -> None:
    design = KRRDesign(3, 1.0)
    with pytest.raises(AttributeError):
        design.k = 4  # type: ignore[misc]
