"""The two-probability device and the crosswise model (issue 15), against independent computation.

Every expected value is derived here from the definitions, not read from the code under test:
``P(yes | trait) = a`` and ``P(yes | no trait) = b`` give the local ε as the largest |log| of the
two likelihood ratios; the crosswise report "same" has ``P(same | trait) = p``,
``P(same | no trait) = 1 − p``, so ``λ = pπ + (1 − p)(1 − π)`` and the moment estimator is
``π̂ = (λ̂ + p − 1)/(2p − 1)`` with ``SE = √(λ̂(1 − λ̂)/n)/|2p − 1|``.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcore import local as rr
from dpcore.local import browser
from surveys.definitions import physical
from surveys.definitions import question_designs as designs


def _eps(a: float, b: float) -> float:
    return max(abs(math.log(a / b)), abs(math.log((1 - b) / (1 - a))))


# --- two probabilities ---------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [(0.75, 0.25), (2 / 3, 1 / 6), (0.9, 0.3), (0.4, 0.1)])
def test_two_probability_is_the_linear_design_with_exact_epsilon(a, b):
    design = rr.design_from_spec(
        {"name": "two_probability", "p_yes_if_trait": a, "p_yes_if_not": b}
    )
    assert design.c == pytest.approx(a - b, abs=1e-15)
    assert design.d == b
    assert design.p_yes_given_trait == pytest.approx(a, abs=1e-15)
    assert design.epsilon == pytest.approx(_eps(a, b), rel=1e-12)
    assert design.to_spec() == {"name": "two_probability", "p_yes_if_trait": a, "p_yes_if_not": b}


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"p_yes_if_trait": 0.3, "p_yes_if_not": 0.3}, "p_yes_if_not"),
        ({"p_yes_if_trait": 0.2, "p_yes_if_not": 0.6}, "p_yes_if_not"),
        ({"p_yes_if_trait": 1.2, "p_yes_if_not": 0.6}, "p_yes_if_trait"),
        ({"p_yes_if_trait": 0.7}, "p_yes_if_not"),
        ({"p_yes_if_trait": "x", "p_yes_if_not": 0.1}, "p_yes_if_trait"),
    ],
)
def test_two_probability_refusals_name_the_field(spec, field):
    with pytest.raises(rr.DesignError) as info:
        rr.design_from_spec({"name": "two_probability", **spec})
    assert info.value.field == field


def test_two_probability_one_sided_is_not_private():
    # b = 0: a "yes" proves the trait (ε = ∞), like the one-sided designs that stay refused.
    design = rr.two_probability(0.5, 0.0)
    assert not design.is_private and design.epsilon == math.inf


def test_two_probability_browser_thresholds_realise_a_and_b():
    design = rr.two_probability(0.75, 0.25)
    plan = browser.browser_plan(design)
    grid = 2**53
    # Run as forced response: U < truth → the truth, U < yes → YES. So P(yes | trait) = yes/2⁵³
    # and P(yes | no trait) = (yes − truth)/2⁵³, exactly ¾ and ¼ on the grid.
    assert Fraction(plan.thresholds["yes"], grid) == Fraction(3, 4)
    assert Fraction(plan.thresholds["yes"] - plan.thresholds["truth"], grid) == Fraction(1, 4)
    assert plan.epsilon >= math.log(3) and plan.epsilon == pytest.approx(math.log(3), rel=1e-15)


def test_two_probability_physical_protocol_is_exact_or_absent():
    design = rr.two_probability(2 / 3, 1 / 6)
    real = physical.physical_realisation(design)
    assert real is not None and real.faces == 6
    counts = dict(real.counts)
    # Truth on 3 faces, YES on 1, NO on 2: P(yes | trait) = 4/6, P(yes | no trait) = 1/6.
    assert counts == {"truth": 3, "yes": 1, "no": 2}
    assert real.epsilon == pytest.approx(_eps(2 / 3, 1 / 6), rel=1e-12)
    # 0.7/0.2 is not a whole number of faces of any device: the page needs JavaScript.
    assert physical.physical_realisation(rr.two_probability(0.71, 0.2)) is None


# --- crosswise -----------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.25, 0.3, 0.75, math.log10(2), 0.1])
def test_crosswise_epsilon_is_abs_log_odds(p):
    design = rr.crosswise(p, "My mother was born in January, February or March.")
    assert design.c == pytest.approx(2 * p - 1) and design.d == pytest.approx(1 - p)
    assert design.epsilon == pytest.approx(abs(math.log(p / (1 - p))), rel=1e-12)
    plan = browser.browser_plan(design)
    assert plan.thresholds == {}  # no randomizer
    assert plan.epsilon == pytest.approx(abs(math.log(p / (1 - p))), rel=1e-12)
    assert physical.physical_realisation(design) is None


def test_crosswise_spec_round_trips_with_its_text():
    spec = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "Born in March."}
    assert rr.design_from_spec(spec).to_spec() == spec
    # The constructor works without a statement (for the formulas); a spec needs one.
    assert rr.crosswise(0.25).to_spec() == {"name": "crosswise", "innocuous_prevalence": 0.25}
    with pytest.raises(rr.DesignError) as info:
        rr.design_from_spec({"name": "crosswise", "innocuous_prevalence": 0.25})
    assert info.value.field == "innocuous_text"


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"innocuous_prevalence": 0.5, "innocuous_text": "x"}, "innocuous_prevalence"),
        ({"innocuous_prevalence": 0.0, "innocuous_text": "x"}, "innocuous_prevalence"),
        ({"innocuous_prevalence": 1.5, "innocuous_text": "x"}, "innocuous_prevalence"),
        ({"innocuous_prevalence": 0.25, "innocuous_text": 7}, "innocuous_text"),
        ({"innocuous_prevalence": 0.25, "innocuous_text": "  "}, "innocuous_text"),
        ({"innocuous_prevalence": 0.25, "innocuous_text": "x" * 501}, "innocuous_text"),
        ({"innocuous_prevalence": 0.25, "p": 0.5}, "p"),
        ({"innocuous_prevalence": 0.25}, "innocuous_text"),
    ],
)
def test_crosswise_refusals_name_the_field(spec, field):
    with pytest.raises(rr.DesignError) as info:
        rr.design_from_spec({"name": "crosswise", **spec})
    assert info.value.field == field


def _wilson(y: int, n: int, z: float) -> tuple[float, float]:
    lam = y / n
    centre = (lam + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(lam * (1 - lam) / n + z * z / (4 * n * n))
    return centre - half, centre + half


@pytest.mark.parametrize(("p", "y", "n"), [(0.25, 400, 1000), (0.75, 700, 1000), (0.3, 10, 50)])
def test_crosswise_estimator_from_scratch(p, y, n):
    design = rr.crosswise(p)
    est = rr.estimate_binary(design, n=n, reported_yes=y, interval="wilson")
    lam = y / n
    pi = (lam + p - 1) / (2 * p - 1)
    assert est.estimate_unclipped == pytest.approx(pi, abs=1e-12)
    assert est.std_error == pytest.approx(math.sqrt(lam * (1 - lam) / n) / abs(2 * p - 1))
    low, high = _wilson(y, n, 1.959963984540054)
    ends = sorted(((low + p - 1) / (2 * p - 1), (high + p - 1) / (2 * p - 1)))
    assert est.ci_low == pytest.approx(min(1, max(0, ends[0])), abs=1e-9)
    assert est.ci_high == pytest.approx(min(1, max(0, ends[1])), abs=1e-9)
    assert est.ci_low <= est.estimate <= est.ci_high


def test_crosswise_planning_uses_abs_c():
    # p = ¼: |c| = ½ and λ = ½ is attainable (π = ½), so the worst case is ¼/(¼·n) per unit z².
    design = rr.crosswise(0.25)
    z = 1.959963984540054
    assert rr.planned_half_width(design, n=1000) == pytest.approx(z * math.sqrt(0.25 / 1000) / 0.5)
    assert rr.sample_size(design, half_width=0.05) == math.ceil(z * z * 0.25 / 0.25 / 0.0025)


def test_crosswise_interval_table_matches_the_scalar_estimator():
    design = rr.crosswise(0.25)
    est, low, high = rr.binary_interval_table(design, n=40)
    for y in (0, 7, 20, 33, 40):
        one = rr.estimate_binary(design, n=40, reported_yes=y)
        assert (est[y], low[y], high[y]) == pytest.approx((one.estimate, one.ci_low, one.ci_high))
        assert low[y] <= high[y]
    # Exact coverage at a few π stays near 95% (the map is monotone decreasing).
    coverage = rr.exact_coverage(design, n=200, pis=[0.2, 0.5])
    assert np.all(coverage > 0.9)


def test_crosswise_simulated_respondents_recover_the_prevalence():
    # Seeded: n = 20 000 respondents with π = 0.3 and an innocuous p = ¼. SE of π̂ at λ = 0.6:
    # √(0.24/20000)/0.5 ≈ 0.0069; the test allows 5 SE ≈ 0.035.
    rng = np.random.default_rng(15)
    n, pi, p = 20_000, 0.3, 0.25
    truth = rng.random(n) < pi
    innocuous = rng.random(n) < p
    same = int(np.sum(truth == innocuous))
    est = rr.estimate_binary(rr.crosswise(p), n=n, reported_yes=same)
    se = math.sqrt(0.6 * 0.4 / n) / 0.5
    assert abs(est.estimate - pi) < 5 * se


def test_js_threshold_constants_match_the_server():
    # tests/js/new_designs.test.mjs pins these integers; they must be what the server sends.
    assert browser.browser_plan(rr.two_probability(2 / 3, 1 / 6)).thresholds == {
        "truth": 4503599627370495,
        "yes": 6004799503160661,
    }
    assert browser.browser_plan(rr.two_probability(0.75, 0.25)).thresholds == {
        "truth": 2**52,
        "yes": 3 * 2**51,
    }


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    a=st.floats(min_value=2e-6, max_value=1 - 1e-6),
    share=st.floats(min_value=1e-3, max_value=1 - 1e-3),
)
def test_two_probability_thresholds_realise_at_most_the_reported_epsilon(a, share):
    """Property: the page's realised P(yes | trait) = yes/2⁵³ and P(yes | no) = (yes − truth)/2⁵³
    give every likelihood ratio ≤ e^ε as reported (exact fractions, 60-digit decimals)."""
    b = a * share
    try:
        design = rr.two_probability(a, b)
        browser.check_epsilon_cap(design)
        plan = browser.browser_plan(design)
    except rr.DesignError:
        return  # refused at validation, naming its field (tested above)
    reported = designs.accounted_epsilon(design)
    grid = 2**53
    ra, rb = (
        Fraction(plan.thresholds["yes"], grid),
        Fraction(plan.thresholds["yes"] - plan.thresholds["truth"], grid),
    )
    with localcontext() as ctx:
        ctx.prec = 60
        bound = Decimal(reported).exp() * (1 - Decimal(10) ** -50)
        for num, den in ((ra, rb), (rb, ra), (1 - rb, 1 - ra), (1 - ra, 1 - rb)):
            ratio = Decimal(num.numerator * den.denominator) / Decimal(
                num.denominator * den.numerator
            )
            assert ratio <= bound, (design, plan)
    assert abs(ra - Fraction(a)) <= Fraction(3, grid) and abs(rb - Fraction(b)) <= Fraction(3, grid)
