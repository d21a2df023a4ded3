"""dpcore.central.sensitivity: a number question's integer grid and its sensitivity K."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.central import sensitivity as release_math

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
