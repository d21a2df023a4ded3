"""The unrelated question with an unknown innocuous prevalence (Greenberg et al. 1969; RRreg's
``UQTunknown``): the estimates and SEs are RRreg's ``RRuni.UQTunknown`` formulas, on worked
numbers and in a simulation; ε is the worst case over the prevalence bounds; errors name the
field."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dpcore.errors import DesignError
from dpcore.local.designs import build_design, design_named, registered
from dpcore.local.designs import unrelated_question_unknown as uqt
from dpcore.local.grid import GRID


def _design(p1: float = 0.7, p2: float = 0.3, low: float = 0.2, high: float = 0.8):
    return uqt.unrelated_question_unknown([p1, p2], "Born in January–June?", (low, high))


def _rrreg(p: tuple[float, float], n: tuple[int, int], yes: tuple[int, int]):
    """RRreg's RRuni.UQTunknown (R/RRuni.R; RRreg is not installable here, no CRAN), transcribed
    from its source line by line: group 1 is ``group == 1``, ``p = c(p1, p2)`` the sensitive
    question's probability per group, λ_i(1 − λ_i)/n_i with n_i (not n_i − 1 as its Warner
    once had): (pi, piSE, piUQ, piUQSE)."""
    lambda1, lambda2 = yes[0] / n[0], yes[1] / n[1]
    pi = (lambda1 * (1 - p[1]) - lambda2 * (1 - p[0])) / (p[0] - p[1])
    pi_se = math.sqrt(
        (
            lambda1 * (1 - lambda1) * (1 - p[1]) ** 2 / n[0]
            + lambda2 * (1 - lambda2) * (1 - p[0]) ** 2 / n[1]
        )
        / (p[0] - p[1]) ** 2
    )
    pi_uq = (p[1] * lambda1 - p[0] * lambda2) / (p[1] - p[0])
    pi_uq_se = math.sqrt(
        (p[1] ** 2 * lambda1 * (1 - lambda1) / n[0] + p[0] ** 2 * lambda2 * (1 - lambda2) / n[1])
        / (p[0] - p[1]) ** 2
    )
    return pi, pi_se, pi_uq, pi_uq_se


def test_worked_numbers_by_hand():
    # λ̂₁ = 200/500 = 0.4, λ̂₂ = 120/400 = 0.3 with p = (0.7, 0.3): π̂ = (0.4·0.7 − 0.3·0.3)/0.4 =
    # 0.475, û = (0.3·0.4 − 0.7·0.3)/(0.3 − 0.7) = 0.225, Var π̂ = (0.24·0.49/500 + 0.21·0.09/400)
    # /0.16 = 0.00176531…
    est = uqt.estimate_unrelated_question_unknown(_design(), n=(500, 400), reported_yes=(200, 120))
    assert est.prevalence.estimate == pytest.approx(0.475, abs=1e-12)
    assert est.innocuous_prevalence.estimate == pytest.approx(0.225, abs=1e-12)
    assert est.prevalence.std_error**2 == pytest.approx(0.00028245 / 0.16, rel=1e-12)
    assert est.innocuous_prevalence.std_error**2 == pytest.approx(
        (0.09 * 0.24 / 500 + 0.49 * 0.21 / 400) / 0.16, rel=1e-12
    )
    assert not est.at_boundary


@pytest.mark.parametrize(
    ("p", "n", "yes"),
    [
        ((0.7, 0.3), (500, 400), (200, 120)),
        ((0.2, 0.9), (1234, 987), (301, 512)),
        ((0.55, 0.1), (80, 75), (30, 18)),
    ],
)
def test_equals_rrreg_uqtunknown(p, n, yes):
    design = uqt.unrelated_question_unknown(list(p), "x", (0.1, 0.9))
    est = uqt.estimate_unrelated_question_unknown(design, n=n, reported_yes=yes)
    pi, pi_se, pi_uq, pi_uq_se = _rrreg(p, n, yes)
    assert est.prevalence.estimate_unclipped == pytest.approx(pi, rel=1e-12, abs=1e-14)
    assert est.prevalence.std_error == pytest.approx(pi_se, rel=1e-12)
    assert est.innocuous_prevalence.estimate_unclipped == pytest.approx(pi_uq, rel=1e-12)
    assert est.innocuous_prevalence.std_error == pytest.approx(pi_uq_se, rel=1e-12)


def test_simulation_within_five_standard_errors_and_the_se_matches_the_spread():
    rng = np.random.default_rng(20261126)
    design, truth, innocuous = _design(0.65, 0.2), 0.18, 0.45
    lam = design.report_probabilities(truth, innocuous)
    n = (1500, 1500)
    estimates, errors = [], []
    for _ in range(400):
        yes = tuple(int(rng.binomial(m, p)) for m, p in zip(n, lam, strict=True))
        est = uqt.estimate_unrelated_question_unknown(design, n=n, reported_yes=yes)
        estimates.append(est.prevalence.estimate_unclipped)
        errors.append(est.prevalence.std_error)
    mean, spread, se = float(np.mean(estimates)), float(np.std(estimates)), float(np.mean(errors))
    assert abs(mean - truth) < 5 * se / math.sqrt(len(estimates))  # unbiased
    assert spread == pytest.approx(se, rel=0.15)  # the stated SE is the estimator's spread
    big = uqt.estimate_unrelated_question_unknown(
        design,
        n=(200_000, 200_000),
        reported_yes=tuple(int(rng.binomial(200_000, p)) for p in lam),
    )
    assert abs(big.prevalence.estimate - truth) < 5 * big.prevalence.std_error
    assert (
        abs(big.innocuous_prevalence.estimate - innocuous) < 5 * big.innocuous_prevalence.std_error
    )


def test_outside_the_square_the_ml_fit_is_on_its_boundary():
    # λ̂₂ > λ̂₁ with p₁ > p₂ and a high λ̂₂: the moment û exceeds 1.
    est = uqt.estimate_unrelated_question_unknown(_design(), n=(100, 100), reported_yes=(60, 99))
    assert est.at_boundary
    assert est.innocuous_prevalence.estimate_unclipped > 1
    assert 0 <= est.prevalence.estimate <= 1 and 0 <= est.innocuous_prevalence.estimate <= 1
    for par in (est.prevalence, est.innocuous_prevalence):
        assert par.ci_low <= par.estimate <= par.ci_high


def test_an_empty_group_leaves_the_estimates_empty():
    est = uqt.estimate_unrelated_question_unknown(_design(), n=(10, 0), reported_yes=(3, 0))
    assert est.prevalence.estimate is None and est.innocuous_prevalence.std_error is None


def test_epsilon_is_the_worst_case_over_the_bounds_and_groups():
    design = _design(0.7, 0.3, 0.2, 0.8)

    def group(p: float, u: float) -> float:
        yes_trait, yes_not = p + (1 - p) * u, (1 - p) * u
        return max(math.log(yes_trait / yes_not), math.log((1 - yes_not) / (1 - yes_trait)))

    worst = max(group(p, u) for p in (0.7, 0.3) for u in np.linspace(0.2, 0.8, 601))
    assert design.epsilon == pytest.approx(worst, rel=1e-12)
    assert design.epsilon >= worst  # rounded up, never below
    assert design.epsilon == pytest.approx(math.log((0.7 + 0.3 * 0.2) / (0.3 * 0.2)), rel=1e-12)


def test_browser_thresholds_realise_each_group():
    design = _design(0.7, 0.3)
    thresholds, epsilon = uqt.browser_thresholds(design)
    assert thresholds["group_1_sensitive"] == round(Fraction(0.7) * GRID)
    assert thresholds["group_2_sensitive"] == round(Fraction(0.3) * GRID)
    assert epsilon >= design.epsilon


def test_the_spec_round_trips_through_the_registry():
    entry = design_named("unrelated_question_unknown")
    assert entry.grouped and entry in registered()
    spec = {**entry.starting, "innocuous_text": "Born in January–June?"}
    design = build_design(spec)
    assert design.to_spec() == spec
    assert math.isfinite(design.epsilon)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"groups": [{"p": 0.5}, {"p": 0.5}]}, "groups"),
        ({"groups": [{"p": 1.0}, {"p": 0.5}]}, "groups[0].p"),
        ({"groups": [{"p": 0.5}, {"p": 1.5}]}, "groups[1].p"),
        ({"groups": [{"p": 0.5}]}, "groups"),
        ({"groups": [{"p": 0.5}, {"q": 0.1}]}, "groups[1]"),
        ({"innocuous_text": " "}, "innocuous_text"),
        ({"innocuous_prevalence_min": 0.0}, "innocuous_prevalence_min"),
        ({"innocuous_prevalence_max": 1.0}, "innocuous_prevalence_max"),
        ({"innocuous_prevalence_max": 0.1}, "innocuous_prevalence_max"),
        ({"extra": 1}, "extra"),
    ],
)
def test_invalid_specs_name_the_field(change, field):
    spec = {**design_named("unrelated_question_unknown").starting, "innocuous_text": "x", **change}
    with pytest.raises(DesignError) as caught:
        build_design(spec)
    assert caught.value.field == field


def test_exactly_unbiased_with_the_exact_variance_given_the_group_sizes():
    """An independent check: enumerate both binomials (n₁ = 6, n₂ = 9, π = 0.2, u = 0.6) in exact
    fractions. Given the group sizes (as RRreg conditions), E π̂ = π exactly and Var π̂ =
    [(1 − p₂)²λ₁(1 − λ₁)/n₁ + (1 − p₁)²λ₂(1 − λ₂)/n₂]/(p₁ − p₂)² exactly — the formula whose
    plug-in is the SE above (docs/formulas.md#unrelated-question-unknown)."""
    p1, p2, pi, u = Fraction(7, 10), Fraction(3, 10), Fraction(1, 5), Fraction(3, 5)
    n1, n2 = 6, 9
    lam1, lam2 = p1 * pi + (1 - p1) * u, p2 * pi + (1 - p2) * u

    def pmf(n: int, k: int, lam: Fraction) -> Fraction:
        return math.comb(n, k) * lam**k * (1 - lam) ** (n - k)

    mean = second = Fraction(0)
    design = _design()
    for y1 in range(n1 + 1):
        for y2 in range(n2 + 1):
            est = Fraction(y1, n1) * (1 - p2) - Fraction(y2, n2) * (1 - p1)
            est /= p1 - p2
            weight = pmf(n1, y1, lam1) * pmf(n2, y2, lam2)
            mean += weight * est
            second += weight * est * est
            got = uqt.estimate_unrelated_question_unknown(design, n=[n1, n2], reported_yes=[y1, y2])
            assert got.prevalence.estimate_unclipped == pytest.approx(float(est), abs=1e-12)
    assert mean == pi
    exact = ((1 - p2) ** 2 * lam1 * (1 - lam1) / n1 + (1 - p1) ** 2 * lam2 * (1 - lam2) / n2) / (
        p1 - p2
    ) ** 2
    assert second - mean**2 == exact
