"""Optimized unary encoding (dpcore.local.oue; Wang et al. 2017): probabilities, the exact ε of
what the page and the coins run, the estimator's unbiasedness and variance against independent
computations, and a seeded Monte-Carlo check."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcore.errors import ArgumentError, DesignError
from dpcore.local import browser
from dpcore.local.designs import build_design
from dpcore.local.grid import GRID
from dpcore.local.oue import device_share, estimate_oue, oue, oue_epsilon
from dpcore.local.recommend import option_variance


@pytest.mark.parametrize("eps", [0.1, 0.5, 1.0, math.log(3), 2.0, 4.0, 10.0])
def test_probabilities_give_exactly_epsilon(eps):
    d = oue(5, eps)
    p, q = d.keep_probability, d.other_probability
    assert p == 0.5
    assert q == pytest.approx(1 / (math.exp(eps) + 1), rel=1e-14)
    # The whole vector's ε (two bits differ between v and v′): ln(p(1 − q)/((1 − p)q)) = ε.
    assert math.log(p * (1 - q) / ((1 - p) * q)) == pytest.approx(eps, rel=1e-12)
    assert (d.c, d.d) == (p - q, q)


def test_bad_designs_name_the_field():
    for k, eps, field in [(1, 1.0, "k"), (True, 1.0, "k"), (5, 0.0, "epsilon"), (5, -1, "epsilon")]:
        with pytest.raises(DesignError) as exc:
            oue(k, eps)
        assert exc.value.field == field
    with pytest.raises(DesignError) as exc:
        browser.check_epsilon_cap(oue(5, 10.5))
    assert exc.value.field == "epsilon"
    with pytest.raises(DesignError) as exc:
        build_design({"name": "oue", "epsilon": 1.0})
    assert exc.value.field == "k"


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0, 9.9])
def test_browser_thresholds_are_the_grid_points_and_never_exceed_the_nominal_much(eps):
    d = oue(20, eps)
    plan = browser.browser_plan(d)  # the generic entry point dispatches to the design's own plan
    assert plan.thresholds["keep"] == 2**52  # ½ exactly
    flip = plan.thresholds["flip"]
    assert abs(flip - round(Fraction(d.other_probability) * GRID)) <= 2
    # Independent: the realised ε from the exact fractions, in floats with a margin.
    keep_f, flip_f = Fraction(1, 2), Fraction(flip, GRID)
    realised = math.log(float(keep_f * (1 - flip_f) / ((1 - keep_f) * flip_f)))
    assert plan.epsilon >= realised - 1e-15
    assert plan.epsilon <= eps * (1 + 1e-12)


def test_ln3_runs_on_two_coins_and_its_epsilon_covers_them():
    d = oue(5, math.log(3))
    assert device_share(d.other_probability) == Fraction(1, 4)
    plan = browser.browser_plan(d)
    assert plan.thresholds["flip"] == 2**51  # ¼ exactly
    assert plan.epsilon >= oue_epsilon(Fraction(1, 2), Fraction(1, 4))
    assert plan.epsilon == pytest.approx(math.log(3), rel=1e-15)
    assert device_share(oue(5, 1.0).other_probability) is None  # 1/(e + 1): no device
    assert device_share(oue(5, math.log(5)).other_probability) == Fraction(1, 6)


def test_estimate_is_unbiased_exactly_at_the_expected_counts():
    """E[C_v] = n_v·p + (n − n_v)·q; the estimator at those (real) counts returns f_v exactly —
    checked with the linear form (C/n − q)/(p − q) on fractions, independently of the code."""
    d = oue(4, 1.0)
    n, truth = 1000, [500, 300, 200, 0]
    p, q = Fraction(1, 2), Fraction(d.other_probability)
    for n_v in truth:
        expected = n_v * p + (n - n_v) * q
        assert (expected / n - q) / (p - q) == Fraction(n_v, n)
    counts = [round(n_v * 0.5 + (n - n_v) * d.d) for n_v in truth]
    est = estimate_oue(d, n=n, counts=counts)
    for o, n_v in zip(est.options, truth, strict=True):
        assert o.estimate_unclipped == pytest.approx(n_v / n, abs=1 / (n * d.c))
    shown = [o.estimate for o in est.options]
    assert sum(shown) == pytest.approx(1.0) and min(shown) >= 0.0  # the simplex projection


def test_variance_matches_an_independent_sum_of_bernoullis():
    """Var ĉ_v given the true answers: n_v·p(1 − p) + (n − n_v)·q(1 − q), over (n(p − q))²."""
    for eps, k, f in [(0.5, 5, 0.0), (1.0, 20, 0.05), (2.0, 100, 0.3), (4.0, 5, 1.0)]:
        d = oue(k, eps)
        n = 1000
        p, q = 0.5, d.other_probability
        direct = (n * f * p * (1 - p) + n * (1 - f) * q * (1 - q)) / (n * (p - q)) ** 2
        assert d.proportion_variance(n, f) == pytest.approx(direct, rel=1e-12)
    # At f → 0 the per-respondent variance is 4e^ε/(e^ε − 1)² (Wang et al. 2017).
    e = math.exp(1.0)
    assert oue(20, 1.0).proportion_variance(1, 0.0) == pytest.approx(4 * e / (e - 1) ** 2)
    with pytest.raises(ArgumentError):
        option_variance(0.1, 0.1, 0, 0.0)


def test_bad_counts_are_refused_naming_them():
    d = oue(3, 1.0)
    with pytest.raises(ArgumentError, match="k = 3"):
        estimate_oue(d, n=10, counts=[1, 2])
    with pytest.raises(ArgumentError, match="exceeds"):
        estimate_oue(d, n=10, counts=[1, 2, 11])
    assert estimate_oue(d, n=0, counts=[0, 0, 0]).options[0].estimate is None


def test_monte_carlo_mean_and_variance_within_5_se():
    """R = 4,000 surveys of n = 400 fixed respondents (k = 5, ε = 1), the OUE bits drawn with a
    seeded generator. The mean of f̂_v is within 5 SE (SE = √(Var/R)) of f_v, and the sample
    variance within 5 of its SEs (≈ Var·√(2/(R − 1)), the bits being near-normal) of the formula."""
    rng = np.random.default_rng(20170816)
    k, eps, n, reps = 5, 1.0, 400, 4000
    d = oue(k, eps)
    truth = np.array([0.4, 0.3, 0.2, 0.1, 0.0])
    n_v = (truth * n).astype(int)
    p, q = 0.5, d.other_probability
    counts = rng.binomial(n_v, p, size=(reps, k)) + rng.binomial(n - n_v, q, size=(reps, k))
    est = np.array(
        [
            [o.estimate_unclipped for o in estimate_oue(d, n=n, counts=list(c)).options]
            for c in counts
        ]
    )
    for v in range(k):
        var = d.proportion_variance(n, truth[v])
        assert abs(est[:, v].mean() - truth[v]) < 5 * math.sqrt(var / reps)
        assert abs(est[:, v].var(ddof=1) - var) < 5 * var * math.sqrt(2 / (reps - 1))
