"""dpcore.central.estimates: debiasing noisy counts and the noise-widened interval; number
questions: the mean of a noisy sum and count (the grid: test_sensitivity.py)."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest

from dpcore.central import estimates as release_math
from dpcore.central import noise, sensitivity
from dpcore.central.calibration import discrete_laplace_variance


def test_linear_count_estimate_is_exactly_unbiased_over_the_noise_pmf():
    """E[(C̃_yes − d·Ñ)/c] = (C_yes − d·N)/c, summed exactly over the discrete Laplace pmf."""
    c, d, t = 0.5, 0.25, 2.0
    yes, no = 30, 70
    support = range(-200, 201)  # tail mass beyond |z| = 200 at t = 2 is ~e^-100
    pmf = {z: noise.discrete_laplace_pmf(z, t) for z in support}
    expectation = math.fsum(
        pmf[z1] * pmf[z2] * release_math.count_estimate(yes + z1, yes + z1 + no + z2, c, d)
        for z1 in support
        for z2 in support
    )
    assert expectation == pytest.approx((yes - d * (yes + no)) / c, abs=1e-9)


def test_proportion_estimate_is_unbiased_and_its_noise_variance_matches():
    """Fixed true counts, fresh CSPRNG noise each time (exact sampler, `secrets`).

    Only the noise varies, so Var(λ̂) = V·[(1−λ)² + λ²]/N² (the noise term of the delta method).
    With M = 3000 draws the sample mean has SE = sd/√M and the ratio estimator's bias is
    O(V/N²) ≈ 8e-6/c — far below 5·SE ≈ 4e-4, so |mean − π| < 5·SE fails with probability
    < 1e-6. The sample variance's relative SE is √(2/(M−1)) ≈ 2.6 %, so a 15 % band is > 5 SE.
    """
    c, d, t = 0.5, 0.25, 20.0
    yes, no = 3000, 7000
    n = yes + no
    v = discrete_laplace_variance(t)
    m = 3000
    z1 = noise.sample_discrete_laplace_many(t, m)
    z2 = noise.sample_discrete_laplace_many(t, m)
    estimates = [
        release_math.cell_estimates({"yes": yes + a, "no": no + b}, c=c, d=d, noise_variance=v)[
            0
        ].estimate_unclipped
        for a, b in zip(z1, z2, strict=True)
    ]
    truth = ((yes / n) - d) / c
    lam = yes / n
    predicted_sd = math.sqrt(v * ((1 - lam) ** 2 + lam**2)) / n / c
    mean = statistics.fmean(estimates)
    sd = statistics.stdev(estimates)
    assert abs(mean - truth) < 5 * predicted_sd / math.sqrt(m)
    assert sd == pytest.approx(predicted_sd, rel=0.15)


def test_without_noise_the_interval_is_the_plain_wilson_interval():
    est = release_math.cell_estimates({"yes": 40, "no": 60}, c=1.0, d=0.0, noise_variance=0.0)
    lo, hi = release_math.wilson_bounds(0.4, 100, release_math.z_value(0.95))
    assert est[0].ci_low == pytest.approx(lo)
    assert est[0].ci_high == pytest.approx(hi)
    assert est[0].std_error == pytest.approx(math.sqrt(0.4 * 0.6 / 100))


def test_noise_widens_the_interval_and_the_standard_error():
    quiet = release_math.cell_estimates({"yes": 40, "no": 60}, c=0.5, d=0.25, noise_variance=0)
    noisy = release_math.cell_estimates({"yes": 40, "no": 60}, c=0.5, d=0.25, noise_variance=50)
    assert noisy[0].std_error > quiet[0].std_error
    assert noisy[0].ci_high - noisy[0].ci_low > quiet[0].ci_high - quiet[0].ci_low
    assert noisy[0].estimate == quiet[0].estimate == pytest.approx((0.4 - 0.25) / 0.5)


def test_krr_and_category_forms():
    p, q = 0.6, 0.2  # k = 3
    est = release_math.cell_estimates({"a": 50, "b": 30, "c": 20}, c=p - q, d=q, noise_variance=2.0)
    assert [e.cell for e in est] == ["a", "b", "c"]
    assert sum(e.estimate_unclipped for e in est) == pytest.approx(1.0)  # (1 − kq)/(p − q) = 1
    assert est[0].estimate_unclipped == pytest.approx((0.5 - q) / (p - q))


def test_negative_and_tiny_noisy_counts():
    clipped = release_math.cell_estimates({"yes": -3, "no": 20}, c=0.5, d=0.25, noise_variance=4)
    assert clipped[0].estimate == 0.0
    assert clipped[0].estimate_unclipped < 0
    assert 0.0 <= clipped[0].ci_low <= clipped[0].ci_high <= 1.0
    empty = release_math.cell_estimates({"yes": -2, "no": 1}, c=0.5, d=0.25, noise_variance=4)
    assert empty[0].estimate is None
    assert (empty[0].ci_low, empty[0].ci_high) == (0.0, 1.0)


def test_variance_formula_reduces_to_the_binary_planning_formula():
    from dpcore.central.calibration import expected_estimate_error

    lam, n, v, c, d = 0.4, 500, 30.0, 0.5, 0.25
    se = math.sqrt(release_math.lambda_variance(lam, n, v, 2)) / c
    assert se == pytest.approx(
        expected_estimate_error(c=c, d=d, n=n, noise_variance=v, prevalence=(lam - d) / c)
    )


# --------------------------------------------------------------------------- number questions


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_noisy_sum_is_exactly_unbiased_over_the_symmetric_noise(mechanism):
    """E[s·(U + η)] = s·U: the expectation summed over the exact pmf of η (symmetric about 0),
    with the pmf's neglected tail below 1e-40."""
    step = Fraction(1, 20)
    units = sensitivity.grid_sum(1234.56, step)  # U = 24691
    if mechanism == "laplace":
        scale = 3.0
        support = range(-400, 401)
        pmf = {z: noise.discrete_laplace_pmf(z, scale) for z in support}
    else:
        sigma2 = 9.0
        support = range(-60, 61)
        pmf = {z: noise.discrete_gaussian_pmf(z, sigma2) for z in support}
    assert math.fsum(pmf.values()) == pytest.approx(1.0, abs=1e-12)
    expectation = math.fsum(
        p
        * release_math.number_estimate(
            noisy_sum_units=units + z,
            noisy_count=100,
            step=step,
            lo=0.0,
            hi=100.0,
            sum_noise_variance=1.0,
            count_noise_variance=1.0,
        ).noisy_sum
        for z, p in pmf.items()
    )
    assert expectation == pytest.approx(float(step * units), abs=1e-9)
    assert abs(float(step * units) - 1234.56) <= float(step) / 2  # rounding: at most s/2


def test_number_estimate_mean_se_interval():
    est = release_math.number_estimate(
        noisy_sum_units=1000,  # s·Ũ = 50.0
        noisy_count=2,
        step=Fraction(1, 20),
        lo=0.0,
        hi=100.0,
        sum_noise_variance=4.0,
        count_noise_variance=2.0,
    )
    assert est.noisy_sum == 50.0
    assert est.mean == est.mean_unclipped == 25.0
    # ((100 − 0)/2)²/2 + (4 + 25²·2)/2²
    assert est.std_error == pytest.approx(math.sqrt(2500 / 2 + (4 + 625 * 2) / 4))
    assert est.ci_low == 0.0 and est.ci_high == 100.0  # clipped to the bounds
    assert est.note is None


def test_number_estimate_clips_and_refuses_a_non_positive_count():
    high = release_math.number_estimate(
        noisy_sum_units=10**6,
        noisy_count=3,
        step=Fraction(1),
        lo=0.0,
        hi=10.0,
        sum_noise_variance=1.0,
        count_noise_variance=1.0,
    )
    assert high.mean == 10.0 and high.mean_unclipped > 10.0
    assert 0.0 <= high.ci_low <= high.ci_high <= 10.0
    for count in (0, -4):
        none = release_math.number_estimate(
            noisy_sum_units=50,
            noisy_count=count,
            step=Fraction(1),
            lo=0.0,
            hi=10.0,
            sum_noise_variance=1.0,
            count_noise_variance=1.0,
        )
        assert none.mean is None and none.std_error is None
        assert (none.ci_low, none.ci_high) == (0.0, 10.0)
        assert none.note
