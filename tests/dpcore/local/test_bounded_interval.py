"""No interval has zero width (DESIGN §8.4; issue 22 item 16): the cheating-detection π and γ and
the Likert mean score, whose clipped Wald intervals collapsed to a point (dpcore/local/
bounded_interval.py). Exact coverage tables: bench/coverage_bounded.py, bench/RESULTS.md."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore.local import cheater
from dpcore.local.bounded_interval import bounded_interval
from dpcore.local.designs import KRRDesign
from dpcore.local.ordinal import estimate_mean_score
from dpcore.stats import z_value

DEMO = cheater.design_from_spec(
    {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
    }
)
TESTS = cheater.design_from_spec(
    {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.2, "p_no": 0.2}, {"p_yes": 0.4, "p_no": 0.1}],
    }
)


def _has_width(part, low: float = 0.0, high: float = 1.0) -> None:
    assert low <= part.ci_low < part.ci_high <= high, part
    assert part.ci_low <= part.estimate <= part.ci_high, part


@pytest.mark.parametrize("design", [DEMO, TESTS])
def test_the_reported_cheater_case_has_width(design):
    # Issue 22 item 16: n = [500, 500], yes = [52, 210] gave honest-yes [0, 0].
    est = cheater.estimate_cheater_detection(design, n=[500, 500], reported_yes=[52, 210])
    assert est.honest_yes.estimate_unclipped < 0  # the case really is beyond the bound
    _has_width(est.honest_yes)
    _has_width(est.cheaters)
    _has_width(est.honest_no)


def test_the_reported_likert_case_has_width():
    # Issue 22 item 16: counts [470, 135, 130, 135, 130] with M̂ + z·SE < 1 gave [1, 1].
    design = KRRDesign(5, 1.0)
    est = estimate_mean_score(design, counts=[470, 135, 130, 135, 130])
    assert est.estimate_unclipped + z_value(0.95) * est.std_error < 1.0
    _has_width(est, 1.0, 5.0)


@settings(max_examples=200, deadline=None)
@given(
    n=st.tuples(st.integers(1, 400), st.integers(1, 400)),
    share=st.tuples(st.floats(0, 1), st.floats(0, 1)),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_cheater_intervals_never_have_zero_width(n, share, confidence):
    yes = [round(share[i] * n[i]) for i in range(2)]
    est = cheater.estimate_cheater_detection(
        DEMO, n=list(n), reported_yes=yes, confidence=confidence
    )
    for part in (est.honest_yes, est.cheaters, est.honest_no):
        _has_width(part)


@settings(max_examples=200, deadline=None)
@given(
    k=st.integers(2, 7),
    epsilon=st.floats(0.1, 6.0),
    data=st.data(),
    confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_mean_score_interval_never_has_zero_width(k, epsilon, data, confidence):
    counts = data.draw(st.lists(st.integers(0, 300), min_size=k, max_size=k))
    if sum(counts) < 2:
        counts[0] += 2
    est = estimate_mean_score(KRRDesign(k, epsilon), counts=counts, confidence=confidence)
    _has_width(est, 1.0, float(k))


@given(
    u=st.floats(-3, 4),
    sigma=st.floats(1e-6, 2.0),
    confidence=st.floats(0.5, 0.999),
)
def test_bounded_interval_contains_the_clipped_estimate_and_has_width(u, sigma, confidence):
    low, high = bounded_interval(u, sigma, 0.0, 1.0, confidence)
    assert 0.0 <= low < high <= 1.0
    assert low <= min(max(u, 0.0), 1.0) <= high


def test_bounded_interval_is_wald_away_from_the_bounds():
    z = z_value(0.95)
    assert bounded_interval(0.5, 0.05, 0.0, 1.0, 0.95) == pytest.approx(
        (0.5 - z * 0.05, 0.5 + z * 0.05)
    )


def test_mean_score_exact_coverage_meets_the_goal_away_from_the_ends():
    """k = 3, ε = ln 3, n = 100: exact (every outcome enumerated) coverage of the 95 % interval
    at interior true distributions is within [0.935, 0.965] (bench/coverage_bounded.py)."""
    from bench.coverage_bounded import likert_table

    rows = likert_table(3, math.log(3), 100, [(1 / 3, 1 / 3, 1 / 3), (0.2, 0.3, 0.5)])
    for _, _, after, _, zero_after, _ in rows:
        assert 0.935 <= after <= 0.965
        assert zero_after == 0.0
    assert np.isfinite([r[2] for r in rows]).all()
