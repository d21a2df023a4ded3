"""Univariate estimates against ``RRreg::RRuni`` on the fixtures of tests/peers/make_fixtures.R.

Deniable's side is the dpcore function the API's estimates call: ``dpcore.local.estimate_binary``
(surveys/kinds/_data.py ``binary_estimate``), ``dpcore.local.cheater.estimate_cheater_detection``
(surveys/kinds/cheater_detection.py) and, for the unrelated question with an unknown innocuous
prevalence (registered in dpcore, not yet a question kind of the app),
``estimate_unrelated_question_unknown``. The design comes from the same spec the survey stores.

Point estimates are closed forms on both sides: equal to rounding (1e-12). Standard errors
differ by a known convention: RRuni divides each group's λ̂(1 − λ̂) by n_i − 1, Deniable by n_i
(docs/analysis.md), so the test recomputes the peer's SE from our formula with n_i − 1 (to 1e-12)
and checks ours against the peer's directly within that factor (√(n/(n − 1)) − 1 ≈ 3.3e-4 at
n = 1500; 7e-4 per group of ~750).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore import local as rr
from dpcore.local import cheater, grouped
from dpcore.local.designs import BinaryDesign, build_design, design_from_spec
from dpcore.local.designs import unrelated_question_unknown as uqt
from tests.peers.fixture import load

ONE_GROUP = ["warner", "forced_response", "unrelated_question", "two_probability", "crosswise"]
EXACT = 1e-12


def _category_one(value: float | list[float]) -> float:
    # RRuni's "FR" reports (P(0), P(1)); the trait is category 1.
    return value[1] if isinstance(value, list) else value


@pytest.mark.parametrize("name", ONE_GROUP)
def test_one_group_designs_equal_rruni(name: str) -> None:
    fixture = load(f"rruni_{name}")
    reports = fixture["reports"]
    n = len(reports)
    design = design_from_spec(fixture["design"])
    assert isinstance(design, BinaryDesign)
    est = rr.estimate_binary(design, n=n, reported_yes=sum(reports))
    pi, pi_se = _category_one(fixture["peer"]["pi"]), _category_one(fixture["peer"]["pi_se"])
    assert fixture["peer"]["n"] == n
    assert est.estimate_unclipped == pytest.approx(pi, abs=EXACT)
    assert est.std_error is not None
    assert est.std_error * math.sqrt(n / (n - 1)) == pytest.approx(pi_se, rel=EXACT)
    assert est.std_error == pytest.approx(pi_se, rel=1 / (n - 1))
    # The simulation recovered the truth (5 SE), so the fixture is the design it claims to be.
    assert abs(est.estimate_unclipped - fixture["true_prevalence"]) < 5 * est.std_error


def _group_counts(fixture: dict) -> tuple[list[int], list[int]]:
    reports, groups = np.array(fixture["reports"]), np.array(fixture["group"])
    n = [int(np.sum(groups == g)) for g in (1, 2)]
    yes = [int(np.sum(reports[groups == g])) for g in (1, 2)]
    return n, yes


def _peer_convention_se(matrix: np.ndarray, n: list[int], yes: list[int]) -> np.ndarray:
    """√diag of A⁻¹·diag(λ̂_i(1 − λ̂_i)/(n_i − 1))·A⁻ᵀ (dpcore's covariance, RRuni's divisor)."""
    rates = np.array(yes) / np.array(n)
    cov = grouped.covariance(np.linalg.inv(matrix), rates, np.array(n, dtype=float) - 1.0)
    return np.sqrt(np.diag(cov))


def test_cheater_detection_equals_rruni_cdmsym() -> None:
    # Also pins the order p = c(y₁, z₁, y₂, z₂) of the export's RRuni line (docs/formulas.md).
    fixture = load("rruni_cheater_detection")
    assert fixture["p"] == [g[k] for g in fixture["design"]["groups"] for k in ("p_yes", "p_no")]
    design = cheater.design_from_spec(fixture["design"])
    n, yes = _group_counts(fixture)
    est = cheater.estimate_cheater_detection(design, n=n, reported_yes=yes)
    peer = fixture["peer"]
    assert n == peer["n"]
    assert not est.at_boundary
    assert est.honest_yes.estimate_unclipped == pytest.approx(peer["pi"], abs=EXACT)
    assert est.cheaters.estimate_unclipped == pytest.approx(peer["gamma"], abs=EXACT)
    pi_se = _peer_convention_se(design.matrix, n, yes)[0]
    assert pi_se == pytest.approx(peer["pi_se"], rel=EXACT)
    assert est.honest_yes.std_error == pytest.approx(peer["pi_se"], rel=1 / (min(n) - 1))
    assert est.cheaters.std_error == pytest.approx(peer["gamma_se"], rel=1 / (min(n) - 1))


def test_unrelated_question_unknown_equals_rruni_uqtunknown() -> None:
    fixture = load("rruni_unrelated_question_unknown")
    design = build_design(fixture["design"])
    n, yes = _group_counts(fixture)
    est = uqt.estimate_unrelated_question_unknown(design, n=n, reported_yes=yes)
    peer = fixture["peer"]
    assert not est.at_boundary
    assert est.prevalence.estimate_unclipped == pytest.approx(peer["pi"], abs=EXACT)
    assert est.innocuous_prevalence.estimate_unclipped == pytest.approx(
        peer["innocuous"], abs=EXACT
    )
    a = np.array([[p, 1.0 - p] for p in fixture["p"]])
    pi_se, u_se = _peer_convention_se(a, n, yes)
    assert pi_se == pytest.approx(peer["pi_se"], rel=EXACT)
    assert u_se == pytest.approx(peer["innocuous_se"], rel=EXACT)
    assert est.prevalence.std_error == pytest.approx(peer["pi_se"], rel=1 / (min(n) - 1))
