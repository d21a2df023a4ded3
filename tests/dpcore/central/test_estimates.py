"""privacy.release_math: debiasing noisy counts and the noise-widened interval; number
questions: the integer grid, its sensitivity K, and the mean of a noisy sum and count."""

from __future__ import annotations

import math
import statistics
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privacy import noise, release_math
from privacy.calibrate import discrete_laplace_variance


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
    from privacy.calibrate import expected_estimate_error

    lam, n, v, c, d = 0.4, 500, 30.0, 0.5, 0.25
    se = math.sqrt(release_math.lambda_variance(lam, n, v, 2)) / c
    assert se == pytest.approx(
        expected_estimate_error(c=c, d=d, n=n, noise_variance=v, prevalence=(lam - d) / c)
    )


# --------------------------------------------------------------------------- number questions

BOUNDS = st.tuples(
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
).filter(lambda b: b[0] < b[1] and max(abs(b[0]), abs(b[1])) > 1e-6)


@st.composite
def bounded_answers(draw):
    lo, hi = draw(BOUNDS)
    value = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    values = draw(st.lists(value, max_size=60))
    extra = draw(value)
    position = draw(st.integers(0, len(values)))
    return lo, hi, values, extra, position


@settings(max_examples=400, deadline=None)
@given(bounded_answers())
def test_grid_sum_moves_at_most_k_when_one_answer_is_added_or_removed(case):
    """|round(S′/s) − round(S/s)| ≤ K = ⌈B/s⌉ + 1 with S the *float* sums (summed in two
    different orders, as the sharded tallies would), for one answer added or removed."""
    lo, hi, values, extra, position = case
    step = release_math.grid_step(lo, hi)
    k = release_math.sum_sensitivity(lo, hi, step)
    with_extra = [*values[:position], extra, *values[position:]]
    assert len(with_extra) < release_math.max_safe_respondents(lo, hi, step)
    s_without = math.fsum([0.0, *values]) if position % 2 else sum(values, 0.0)
    s_with = sum(reversed(with_extra), 0.0)
    u_without = release_math.grid_sum(s_without, step)
    u_with = release_math.grid_sum(s_with, step)
    assert isinstance(u_with, int) and isinstance(u_without, int)
    assert abs(u_with - u_without) <= k


@settings(max_examples=300, deadline=None)
@given(BOUNDS)
def test_grid_step_is_nice_and_depends_on_the_bounds_only(bounds):
    lo, hi = bounds
    bound = max(abs(Fraction(lo)), abs(Fraction(hi)))
    step = release_math.grid_step(lo, hi)
    assert bound / 2500 < step <= bound / 1000
    mantissa = step  # step = m·10^k with m ∈ {1, 2, 5}
    while mantissa >= 10:
        mantissa /= 10
    while mantissa < 1:
        mantissa *= 10
    assert mantissa in (1, 2, 5)
    k = release_math.sum_sensitivity(lo, hi, step)
    assert k == math.ceil(bound / step) + 1
    assert bound < k * step < bound + 2 * step  # at most 0.5 % more noise than the ideal B
    assert release_math.max_safe_respondents(lo, hi, step) > 10**6


def test_the_plus_one_in_k_is_needed():
    """s = 1, B = 1: S = 0.5 rounds (half-even) to 0 and S′ = 1.5 to 2 — a jump of 2 = ⌈B/s⌉+1."""
    step = Fraction(1)
    assert release_math.grid_sum(0.5, step) == 0
    assert release_math.grid_sum(1.5, step) == 2
    assert math.ceil(Fraction(1) / step) + 1 == 2


def test_grid_sum_is_exact_for_the_float():
    # 0.1 + 0.2 = 0.30000000000000004: exactly 6.000000000000001 steps of 0.05 → 6.
    assert release_math.grid_sum(0.1 + 0.2, Fraction(1, 20)) == 6
    with pytest.raises(ValueError):
        release_math.grid_sum(math.inf, Fraction(1, 20))


def test_float_error_bound_grows_with_n():
    lo, hi = 18.0, 99.0
    n_max = release_math.max_safe_respondents(lo, hi)
    assert release_math.float_sum_error_units(n_max, lo, hi) < 1
    assert release_math.float_sum_error_units(n_max + 1, lo, hi) >= 1
    assert release_math.float_sum_error_units(1, lo, hi) == 0


@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_noisy_sum_is_exactly_unbiased_over_the_symmetric_noise(mechanism):
    """E[s·(U + η)] = s·U: the expectation summed over the exact pmf of η (symmetric about 0),
    with the pmf's neglected tail below 1e-40."""
    step = Fraction(1, 20)
    units = release_math.grid_sum(1234.56, step)  # U = 24691
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
