"""dpcore.central.cheater: with no noise the release estimator is the local moment estimator;
noise adds V·[(1 − λ)² + λ²]/N² to each group's Var(λ̂) (derived in the module docstring)."""

from __future__ import annotations

import math

import pytest

from dpcore.central.cheater import estimate_noisy_cheater, expected_std_error
from dpcore.local.cheater import cheater_detection, estimate_cheater_detection

DESIGN = cheater_detection([{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}])


def test_without_noise_equals_the_local_moment_estimator():
    cells = {"g1_yes": 40, "g1_no": 60, "g2_yes": 55, "g2_no": 45}
    noisy = estimate_noisy_cheater(DESIGN, cells, noise_variance=0.0)
    local = estimate_cheater_detection(DESIGN, n=[100, 100], reported_yes=[40, 55])
    for name in ("honest_yes", "cheaters", "honest_no"):
        a, b = getattr(noisy, name), getattr(local, name)
        assert a.estimate_unclipped == pytest.approx(b.estimate_unclipped)
        assert a.std_error == pytest.approx(b.std_error)


def test_noise_variance_enters_each_group():
    cells = {"g1_yes": 40, "g1_no": 60, "g2_yes": 55, "g2_no": 45}
    v = 8.0
    est = estimate_noisy_cheater(DESIGN, cells, noise_variance=v)
    l1, l2 = 0.4, 0.55
    var1 = l1 * (1 - l1) / 100 + v * ((1 - l1) ** 2 + l1**2) / 100**2
    var2 = l2 * (1 - l2) / 100 + v * ((1 - l2) ** 2 + l2**2) / 100**2
    # A⁻¹ row of π: (8/3, −4/3).
    assert est.honest_yes.std_error == pytest.approx(math.sqrt(64 / 9 * var1 + 16 / 9 * var2))


def test_empty_or_negative_group_gives_no_estimate():
    est = estimate_noisy_cheater(
        DESIGN, {"g1_yes": -2, "g1_no": 1, "g2_yes": 5, "g2_no": 5}, noise_variance=2.0
    )
    assert est.honest_yes.estimate is None and est.cheaters.std_error is None


def test_outside_the_simplex_is_clipped_and_flagged():
    est = estimate_noisy_cheater(
        DESIGN, {"g1_yes": 90, "g1_no": 10, "g2_yes": 10, "g2_no": 90}, noise_variance=0.0
    )
    assert est.at_boundary
    parts = [est.honest_yes.estimate, est.cheaters.estimate, est.honest_no.estimate]
    assert all(0.0 <= p <= 1.0 for p in parts) and sum(parts) == pytest.approx(1.0)


def test_expected_std_error_worst_case():
    assert expected_std_error(DESIGN, n=80, noise_variance=0.0) == pytest.approx(
        math.sqrt(80 / 9 * 0.25 / 40)
    )
