"""CDMsym (Clark & Desharnais 1998; RRreg's "CDMsym") against independent computation.

Derived here from scratch: in group i (forced yes y_i, forced no z_i) honest respondents with the
trait say yes with 1 − z_i, honest ones without it with y_i, cheaters never, so
λ_i = π(1 − z_i) + β·y_i. Cramer's rule gives the moment estimator; its variance follows from
Var(λ̂_i) = λ_i(1 − λ_i)/n_i; the maximum-likelihood fit uses scipy (SLSQP on the simplex).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from dpcore.errors import DesignError
from dpcore.local import cheater, grouped

GROUPS = [{"p_yes": 0.2, "p_no": 0.2}, {"p_yes": 0.4, "p_no": 0.1}]
Z95 = 1.959963984540054


def _design():
    return cheater.design_from_spec({"name": "cheater_detection", "groups": GROUPS})


def _by_hand(y, n):
    """(π̂, β̂) by Cramer's rule and their variances by the delta method, from the definitions."""
    (y1, z1), (y2, z2) = ((g["p_yes"], g["p_no"]) for g in GROUPS)
    a, b, c, d = 1 - z1, y1, 1 - z2, y2
    det = a * d - b * c
    l1, l2 = y[0] / n[0], y[1] / n[1]
    pi = (d * l1 - b * l2) / det
    beta = (a * l2 - c * l1) / det
    v1, v2 = l1 * (1 - l1) / n[0], l2 * (1 - l2) / n[1]
    var_pi = (d * d * v1 + b * b * v2) / det**2
    var_beta = (c * c * v1 + a * a * v2) / det**2
    cov = (-d * c * v1 - b * a * v2) / det**2
    return pi, beta, var_pi, var_beta, var_pi + var_beta + 2 * cov


def _adjusted_by_hand(y, n):
    """The same variances at Agresti–Coull rates (y + z²/2)/(n + z²) over n + z²: the interval's
    σ (dpcore.local.bounded_interval)."""
    z2 = Z95 * Z95
    return _by_hand([(y[i] + z2 / 2) for i in range(2)], [n[i] + z2 for i in range(2)])


def _scipy_ml(y, n):
    (y1, z1), (y2, z2) = ((g["p_yes"], g["p_no"]) for g in GROUPS)

    def negative_log_likelihood(x):
        pi, beta = x
        total = 0.0
        for yes, m, fy, fn in ((y[0], n[0], y1, z1), (y[1], n[1], y2, z2)):
            lam = min(max(pi * (1 - fn) + beta * fy, 1e-300), 1 - 1e-16)
            total += yes * math.log(lam) + (m - yes) * math.log(1 - lam)
        return -total

    best = None
    for start in ([0.3, 0.3], [0.05, 0.9], [0.9, 0.05], [0.1, 0.1]):
        fit = optimize.minimize(
            negative_log_likelihood,
            start,
            method="SLSQP",
            bounds=[(0, 1), (0, 1)],
            constraints=[{"type": "ineq", "fun": lambda x: 1 - x[0] - x[1]}],
            options={"ftol": 1e-14, "maxiter": 1000},
        )
        if best is None or fit.fun < best.fun:
            best = fit
    return best.x, -best.fun


def test_local_epsilon_per_group_and_for_the_respondent():
    design = _design()
    e1 = max(abs(math.log(0.8 / 0.2)), abs(math.log(0.8 / 0.2)))
    e2 = max(abs(math.log(0.9 / 0.4)), abs(math.log(0.6 / 0.1)))
    assert design.group_epsilons == pytest.approx((e1, e2))
    assert design.epsilon == pytest.approx(max(e1, e2)) == pytest.approx(math.log(6))
    assert design.to_spec() == {"name": "cheater_detection", "groups": GROUPS}


@pytest.mark.parametrize(
    ("groups", "field"),
    [
        ([{"p_yes": 0.0, "p_no": 0.2}, {"p_yes": 0.4, "p_no": 0.1}], "groups[0].p_yes"),
        ([{"p_yes": 0.2, "p_no": 0.2}, {"p_yes": 0.4, "p_no": 0.0}], "groups[1].p_no"),
        ([{"p_yes": 0.6, "p_no": 0.4}, {"p_yes": 0.4, "p_no": 0.1}], "groups[0].p_no"),
        ([{"p_yes": 0.2, "p_no": 0.2}, {"p_yes": 0.2, "p_no": 0.2}], "groups"),
        ([{"p_yes": 0.2, "p_no": 0.2}], "groups"),
        ([{"p_yes": 0.2}, {"p_yes": 0.4, "p_no": 0.1}], "groups[0].p_no"),
        ([{"p_yes": 0.2, "p_no": 0.2, "x": 1}, {"p_yes": 0.4, "p_no": 0.1}], "groups[0].x"),
        ("ab", "groups"),
    ],
)
def test_refusals_name_the_field(groups, field):
    with pytest.raises(DesignError) as info:
        cheater.design_from_spec({"name": "cheater_detection", "groups": groups})
    assert info.value.field == field


@pytest.mark.parametrize(("y", "n"), [((300, 420), (1000, 1000)), ((55, 90), (200, 260))])
def test_moment_estimator_inside_the_simplex_is_the_ml_fit(y, n):
    est = cheater.estimate_cheater_detection(_design(), n=n, reported_yes=y)
    pi, beta, var_pi, var_beta, var_gamma = _by_hand(y, n)
    assert not est.at_boundary
    assert est.honest_yes.estimate == pytest.approx(pi, abs=1e-12)
    assert est.honest_no.estimate == pytest.approx(beta, abs=1e-12)
    assert est.cheaters.estimate == pytest.approx(1 - pi - beta, abs=1e-12)
    assert est.honest_yes.std_error == pytest.approx(math.sqrt(var_pi))
    assert est.honest_no.std_error == pytest.approx(math.sqrt(var_beta))
    assert est.cheaters.std_error == pytest.approx(math.sqrt(var_gamma))
    # Away from 0 and 1 the interval is Wald's around π̂, σ the SE but never below the adjusted
    # one (dpcore.local.bounded_interval); nearer, the boundary-aware interval contains π̂.
    sigma = math.sqrt(max(var_pi, _adjusted_by_hand(y, n)[2]))
    low, high = pi - Z95 * sigma, pi + Z95 * sigma
    if low >= pi / 2 and high <= (1 + pi) / 2:
        assert (est.honest_yes.ci_low, est.honest_yes.ci_high) == pytest.approx((low, high))
    else:
        assert est.honest_yes.ci_low < pi < est.honest_yes.ci_high
    (ml_pi, ml_beta), _ = _scipy_ml(y, n)
    assert (est.honest_yes.estimate, est.honest_no.estimate) == pytest.approx(
        (ml_pi, ml_beta), abs=1e-5
    )


@pytest.mark.parametrize(("y", "n"), [((100, 500), (1000, 1000)), ((5, 400), (500, 500))])
def test_outside_the_simplex_the_ml_fit_is_on_the_boundary(y, n):
    est = cheater.estimate_cheater_detection(_design(), n=n, reported_yes=y)
    assert est.at_boundary
    (ml_pi, ml_beta), ml_value = _scipy_ml(y, n)
    point = (est.honest_yes.estimate, est.honest_no.estimate)
    ours = grouped.log_likelihood(_design().matrix, point, y, n)
    # Our boundary search is as good as scipy's optimum (and at the same point). 1e-6: SLSQP
    # meets π + β ≤ 1 only to ~1e-8, and outside the simplex the likelihood still rises (slope
    # ~20 here), so scipy's value may exceed the best feasible one by ~2e-7.
    assert ours >= ml_value - 1e-6
    assert (est.honest_yes.estimate, est.honest_no.estimate) == pytest.approx(
        (ml_pi, ml_beta), abs=1e-4
    )
    total = est.honest_yes.estimate + est.honest_no.estimate + est.cheaters.estimate
    assert total == pytest.approx(1.0)
    for p in (est.honest_yes, est.cheaters, est.honest_no):
        assert p.ci_low <= p.estimate <= p.ci_high


def test_simulated_respondents_recover_prevalence_and_cheaters():
    """π = 0.25, γ = 0.15 (β = 0.6), 20 000 respondents per group, seeded. SE(π̂) and SE(γ̂)
    from the formulas at the true λ: about 0.010 and 0.018; the test allows 5 SE."""
    design = _design()
    rng = np.random.default_rng(1998)
    pi, gamma, m = 0.25, 0.15, 20_000
    yes, sizes = [], []
    for g in GROUPS:
        kind = rng.choice(3, size=m, p=[pi, 1 - pi - gamma, gamma])  # 0 trait, 1 no, 2 cheat
        u = rng.random(m)
        forced_yes = u < g["p_yes"]
        forced_no = (u >= g["p_yes"]) & (u < g["p_yes"] + g["p_no"])
        honest = np.where(forced_yes, True, np.where(forced_no, False, kind == 0))
        report = np.where(kind == 2, False, honest)
        yes.append(int(report.sum()))
        sizes.append(m)
    est = cheater.estimate_cheater_detection(design, n=sizes, reported_yes=yes)
    lam = design.report_probabilities(pi, gamma)
    _, _, var_pi, _, var_gamma = _by_hand([lam[0] * m, lam[1] * m], [m, m])
    assert abs(est.honest_yes.estimate - pi) < 5 * math.sqrt(var_pi)
    assert abs(est.cheaters.estimate - gamma) < 5 * math.sqrt(var_gamma)
    assert est.honest_yes.ci_low <= est.honest_yes.estimate <= est.honest_yes.ci_high


def test_planning_n_per_group():
    design = _design()
    # From scratch: Var(π̂)·n = (d²·v₁ + b²·v₂)/det² with v = ¼ (worst case).
    det = 0.8 * 0.4 - 0.2 * 0.9
    per_n = (0.4**2 * 0.25 + 0.2**2 * 0.25) / det**2
    assert cheater.sample_size_per_group(design, half_width=0.05) == math.ceil(
        Z95**2 * per_n / 0.05**2
    )
    n = cheater.sample_size_per_group(design, half_width=0.05)
    assert cheater.planned_half_width_per_group(design, n_per_group=n) <= 0.05
    # With a guess (π = 0.25, γ = 0.15) the plan uses λ_i(1 − λ_i) at those values.
    l1, l2 = design.report_probabilities(0.25, 0.15)
    guess = (0.4**2 * l1 * (1 - l1) + 0.2**2 * l2 * (1 - l2)) / det**2
    assert cheater.sample_size_per_group(
        design, half_width=0.05, honest_yes=0.25, cheaters=0.15
    ) == math.ceil(Z95**2 * guess / 0.05**2)


def test_an_empty_group_gives_no_estimate():
    est = cheater.estimate_cheater_detection(_design(), n=[10, 0], reported_yes=[3, 0])
    assert est.honest_yes.estimate is None and not est.at_boundary


def test_browser_thresholds_and_no_js_protocol_are_each_groups_forced_response():
    from fractions import Fraction

    from surveys.definitions import physical

    design = cheater.cheater_detection(
        [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 1 / 6, "p_no": 1 / 6}]
    )
    thresholds, epsilon = cheater.browser_thresholds(design)
    grid = 2**53
    # Pinned in tests/js/new_designs.test.mjs. Group 1 is exact on the grid: truth ½, yes ¾.
    assert thresholds == {
        "group_1_truth": grid // 2,
        "group_1_yes": 3 * grid // 4,
        "group_2_truth": 6004799503160660,
        "group_2_yes": 7505999378950827,
    }
    # Group 2 realises ⅔ truth and ⅙ yes within two grid steps.
    assert abs(Fraction(thresholds["group_2_truth"], grid) - Fraction(2, 3)) <= Fraction(2, grid)
    assert abs(
        Fraction(thresholds["group_2_yes"] - thresholds["group_2_truth"], grid) - Fraction(1, 6)
    ) <= Fraction(2, grid)
    # ε = max(ln 3, ln 5): forced response (½, ¼, ¼) and (⅔, ⅙, ⅙).
    assert epsilon == pytest.approx(math.log(5)) and epsilon >= design.epsilon
    first, second = physical.cheater_realisation(design)
    assert first.faces == 4 and dict(first.counts) == {"truth": 2, "yes": 1, "no": 1}
    assert second.faces == 6 and dict(second.counts) == {"truth": 4, "yes": 1, "no": 1}
    odd = cheater.cheater_detection([{"p_yes": 0.21, "p_no": 0.2}, {"p_yes": 0.4, "p_no": 0.1}])
    assert physical.cheater_realisation(odd) is None
