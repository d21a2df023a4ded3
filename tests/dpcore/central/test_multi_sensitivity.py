"""Sensitivity of a multi-select question in a central-DP release (issue 16): k options are k
histograms of Δ = 1 each (L1 = k, L2 = √k), so a release's m counts every option."""

from __future__ import annotations

import itertools
import math

import pytest

from dpcore.central.sensitivity import (
    multi_sensitivities,
    release_events,
    unit_contributions,
    unit_noise,
)
from dpcore.errors import ArgumentError


def test_k_options_are_k_unit_contributions():
    """(The count per kind moved to tests/surveys/kinds/test_release_contributions.py.)"""
    assert multi_sensitivities(3) == [1, 1, 1]
    assert [c.sensitivity for c in unit_contributions(3)] == multi_sensitivities(3)


@pytest.mark.parametrize("bad", [0, -1, True, 2.0])
def test_bad_option_counts_are_refused(bad):
    with pytest.raises(ArgumentError):
        multi_sensitivities(bad)


def test_neighbouring_datasets_move_the_option_histograms_by_k_in_l1():
    """Brute force over every report a respondent can send for k = 3: adding them moves the six
    cells (YES_i, NO_i) by exactly k in L1 and √k in L2 — what the contributions account for."""
    k = 3
    l1 = sum(multi_sensitivities(k))
    l2 = math.sqrt(sum(d * d for d in multi_sensitivities(k)))
    for report in itertools.product([True, False], repeat=k):
        cells = [0] * (2 * k)
        for i, yes in enumerate(report):
            cells[2 * i + (0 if yes else 1)] += 1
        assert sum(abs(c) for c in cells) == l1 == k
        assert (
            math.sqrt(sum(c * c for c in cells)) == pytest.approx(l2) == pytest.approx(math.sqrt(k))
        )


def test_laplace_charge_covers_the_multi_question():
    """Laplace at ε with one multi question of k = 4 options: scale t = 4/ε per cell, so the
    privacy loss of a neighbour is Σ_i |Δ_i|/t = 4/t = ε exactly; the ledger's events add to ≥ ε."""
    epsilon = 0.8
    m = len(unit_contributions(len(multi_sensitivities(4))))
    noise = unit_noise(mechanism="laplace", contributions=m, epsilon=epsilon)
    assert float(noise.parameter) == pytest.approx(4 / epsilon)
    true_loss = sum(multi_sensitivities(4)) / float(noise.parameter)
    events = release_events(
        mechanism="laplace",
        contributions=m,
        epsilon=epsilon,
        rho=None,
        sensitivities=multi_sensitivities(4),
    )
    charged = sum(e.epsilon for e in events)
    assert len(events) == 4
    assert charged >= true_loss * (1 - 1e-15)
    assert charged == pytest.approx(epsilon)


def test_gaussian_rho_covers_the_multi_question():
    """Gaussian with ρ and k = 5: σ² = 5/(2ρ); a neighbour's zCDP is ‖Δ‖₂²/(2σ²) = 5/(2σ²) = ρ."""
    rho = 0.3
    m = len(unit_contributions(len(multi_sensitivities(5))))
    noise = unit_noise(mechanism="gaussian", contributions=m, rho=rho)
    l2_squared = sum(d * d for d in multi_sensitivities(5))
    assert l2_squared / (2 * float(noise.parameter)) == pytest.approx(rho)
