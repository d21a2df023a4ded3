"""dpcore.central.calibration: analytic Gaussian σ, σ ↔ ρ, noise variances, planning."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

from dpcore.central import calibration as calibrate
from dpcore.central.calibration import (
    PrivacyParameterError,
    analytic_gaussian_sigma,
    classical_gaussian_sigma,
    discrete_gaussian_variance,
    discrete_laplace_variance,
    expected_count_error,
    expected_estimate_error,
    gaussian_delta,
    laplace_scale,
    log_ndtr,
    noise_variance,
    rho_from_sigma,
    sigma_from_rho,
)
from dpcore.central.noise import discrete_laplace_pmf

DELTA = 1e-5


@pytest.mark.parametrize(
    ("epsilon", "sigma"), [(0.1, 30.750), (0.5, 7.032), (1.0, 3.731), (2.0, 1.994)]
)
def test_analytic_gaussian_reference_sigmas(epsilon: float, sigma: float) -> None:
    got = analytic_gaussian_sigma(epsilon, DELTA)
    assert round(got, 3) == sigma
    assert gaussian_delta(epsilon, 1.0 / got) <= DELTA  # sound at the returned σ
    assert gaussian_delta(epsilon, 1.0 / (got * (1 - 1e-9))) > DELTA  # and (nearly) minimal
    assert got < classical_gaussian_sigma(epsilon, DELTA)


def test_classical_sigma_reference() -> None:
    assert round(classical_gaussian_sigma(0.1, DELTA), 2) == 48.45
    assert round(classical_gaussian_sigma(1.0, DELTA), 3) == 4.845


def test_sigma_scales_with_sensitivity() -> None:
    assert analytic_gaussian_sigma(1.0, DELTA, 3.0) == pytest.approx(
        3.0 * analytic_gaussian_sigma(1.0, DELTA), rel=1e-9
    )


@settings(max_examples=40, deadline=None)
@given(
    eps=st.floats(0.01, 10.0),
    factor=st.floats(1.01, 5.0),
    delta=st.floats(1e-12, 0.1),
)
def test_sigma_is_monotone_in_epsilon_and_delta(eps: float, factor: float, delta: float) -> None:
    assert analytic_gaussian_sigma(eps, delta) >= analytic_gaussian_sigma(eps * factor, delta)
    bigger_delta = min(0.5, delta * factor)
    assert analytic_gaussian_sigma(eps, delta) >= analytic_gaussian_sigma(eps, bigger_delta)
    sigma = analytic_gaussian_sigma(eps, delta)
    assert gaussian_delta(eps, 1.0 / sigma) <= delta


@pytest.mark.parametrize("x", [-1000.0, -200.0, -38.0, -30.5, -29.0, -5.0, -0.1, 0.0, 2.0, 9.0])
def test_log_ndtr_matches_scipy_in_both_tails(x: float) -> None:
    assert log_ndtr(x) == pytest.approx(float(special.log_ndtr(x)), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("eps", "mu"), [(0.5, 1.0), (2.0, 0.7), (4.0, 1.0), (30.0, 3.0)])
def test_gaussian_delta_matches_direct_formula_where_it_is_stable(eps: float, mu: float) -> None:
    direct = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
    assert gaussian_delta(eps, mu) == pytest.approx(direct, rel=1e-7)


def test_gaussian_delta_keeps_the_far_tail() -> None:
    # k = 100 Gaussians at σ = 1 ⇒ μ = 10; the exact ε at δ = 1e-5 is 91.817
    # (docs/formulas.md#reference-values).
    assert gaussian_delta(91.817, 10.0) == pytest.approx(1e-5, rel=1e-3)
    # NormalDist().cdf subtracts two numbers that have lost all their digits at that depth.
    nd = NormalDist()
    naive = nd.cdf(-91.817 / 10 + 5) - math.exp(91.817) * nd.cdf(-91.817 / 10 - 5)
    assert abs(naive - 1e-5) > 1e-6


def test_rho_sigma_round_trip() -> None:
    assert rho_from_sigma(1.0) == 0.5
    assert rho_from_sigma(2.0, math.sqrt(3)) == pytest.approx(3 / 8)
    assert sigma_from_rho(rho_from_sigma(3.7, 2.0), 2.0) == pytest.approx(3.7)
    assert laplace_scale(0.5, 3) == 6.0


def test_discrete_laplace_variance_matches_pmf_sum() -> None:
    for t in (0.5, 1.0, 3.0, 20.0):
        xs = range(-int(60 * t) - 20, int(60 * t) + 21)
        direct = math.fsum(x * x * discrete_laplace_pmf(x, t) for x in xs)
        assert discrete_laplace_variance(t) == pytest.approx(direct, rel=1e-10)
    assert expected_count_error("laplace", 1.0) == pytest.approx(1.3569625, rel=1e-7)


def test_discrete_gaussian_variance_is_below_sigma_squared() -> None:
    assert discrete_gaussian_variance(0.5) == pytest.approx(0.2150127, rel=1e-6)
    assert discrete_gaussian_variance(1.0) == pytest.approx(1.0, rel=1e-6)
    assert discrete_gaussian_variance(1.0) < 1.0
    assert discrete_gaussian_variance(9.99) == pytest.approx(9.99**2, rel=1e-12)
    assert discrete_gaussian_variance(1000.0) == 1e6
    assert noise_variance("gaussian", 3.0) == pytest.approx(9.0)


def test_estimate_error_without_noise_is_the_rr_standard_error() -> None:
    # coin design (c = ½, d = ¼) at π = ½: λ = ½, SE = √(¼/n)/½ = 1/√n
    # (docs/formulas.md#binary-estimator)
    se = expected_estimate_error(c=0.5, d=0.25, n=400, noise_variance=0.0, prevalence=0.5)
    assert se == pytest.approx(1 / 20)
    worst = expected_estimate_error(c=0.5, d=0.25, n=400, noise_variance=0.0)
    assert worst == pytest.approx(1 / 20)


def test_estimate_error_matches_simulation() -> None:
    """Delta-method SE of π̂ = (ỹ/(ỹ+ñ) − d)/c vs a seeded simulation (continuous noise of the
    same variance stands in for the discrete noise; only the variance enters the formula)."""
    rng = np.random.default_rng(7)  # simulation, not privacy noise
    c, d, n, pi, var = 0.5, 0.25, 500, 0.3, 40.0
    lam = c * pi + d
    reps = 20_000
    yes = rng.binomial(n, lam, size=reps)
    noisy_yes = yes + rng.normal(0, math.sqrt(var), size=reps)
    noisy_no = (n - yes) + rng.normal(0, math.sqrt(var), size=reps)
    est = (noisy_yes / (noisy_yes + noisy_no) - d) / c
    predicted = expected_estimate_error(c=c, d=d, n=n, noise_variance=var, prevalence=pi)
    assert est.std() == pytest.approx(predicted, rel=0.03)
    assert predicted > expected_estimate_error(c=c, d=d, n=n, noise_variance=0.0, prevalence=pi)


BAD = [math.nan, math.inf, -math.inf, 0.0, -1.0]


@pytest.mark.parametrize("value", BAD)
def test_bad_epsilon_sigma_rho(value: float) -> None:
    for call, field in [
        (lambda: analytic_gaussian_sigma(value, DELTA), "epsilon"),
        (lambda: laplace_scale(value), "epsilon"),
        (lambda: rho_from_sigma(value), "sigma"),
        (lambda: sigma_from_rho(value), "rho"),
        (lambda: expected_count_error("laplace", value), "scale"),
    ]:
        with pytest.raises(PrivacyParameterError) as info:
            call()
        assert info.value.field == field
        assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -1e-5, math.nan, math.inf])
def test_bad_delta(delta: float) -> None:
    with pytest.raises(PrivacyParameterError) as info:
        analytic_gaussian_sigma(1.0, delta)
    assert info.value.field == "delta"


def test_unknown_mechanism_and_bad_design() -> None:
    with pytest.raises(PrivacyParameterError) as info:
        expected_count_error("exponential", 1.0)  # type: ignore[arg-type]
    assert info.value.field == "mechanism"
    with pytest.raises(PrivacyParameterError):
        expected_estimate_error(c=0.0, d=0.25, n=10, noise_variance=1.0)
    with pytest.raises(PrivacyParameterError):
        expected_estimate_error(c=0.5, d=0.25, n=0, noise_variance=1.0)


def test_error_is_reexported() -> None:
    from dpcore import errors
    from dpcore.central import accounting

    assert calibrate.PrivacyParameterError is errors.PrivacyParameterError
    assert accounting.PrivacyParameterError is errors.PrivacyParameterError
