"""Goodness of fit (dpcore.local.fit, docs/formulas.md#goodness-of-fit): G² against an independent
constrained maximum-likelihood fit by scipy, the χ̄² weights against a Monte-Carlo projection onto
the cone, and simulations that the test holds its size under the model and rejects a violated
one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from dpcore.local import cheater
from dpcore.local.designs.crosswise import crosswise
from dpcore.local.fit import binary_fit, chi_bar_sf, vertex_weights

DESIGN = cheater.cheater_detection([{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}])


def _scipy_g2(design: cheater.CheaterDetectionDesign, yes: list[int], n: list[int]) -> float:
    """Constrained ML over (π, γ) with π, γ ≥ 0, π + γ ≤ 1 by SLSQP; saturated ℓ at λ̂."""

    def ll(lam: np.ndarray) -> float:
        lam = np.clip(lam, 1e-300, 1 - 1e-16)
        return float(np.sum(stats.binom.logpmf(yes, n, lam)))

    def negative(theta: np.ndarray) -> float:
        return -ll(np.array(design.report_probabilities(theta[0], theta[1])))

    best = min(
        (
            optimize.minimize(
                negative,
                start,
                method="SLSQP",
                bounds=[(0, 1), (0, 1)],
                constraints=[{"type": "ineq", "fun": lambda t: 1 - t[0] - t[1]}],
                options={"ftol": 1e-14, "maxiter": 500},
            )
            for start in ([0.2, 0.2], [0.6, 0.1], [0.1, 0.6])
        ),
        key=lambda r: r.fun,
    )
    saturated = ll(np.array(yes) / np.array(n))
    return 2.0 * (saturated + best.fun)


@pytest.mark.parametrize(
    ("yes", "n"),
    [
        ([330, 240], [600, 500]),  # λ̂₁ > λ̂₂: outside the simplex (below the diagonal)
        ([560, 470], [600, 500]),  # near "everyone says yes": beyond the π = 1 vertex
        ([100, 120], [600, 500]),  # λ̂₂ < y₂: β > 1 side
        ([3, 2], [300, 280]),  # near the γ = 1 vertex (λ = 0)
    ],
)
def test_cheater_g2_equals_scipy_constrained_fit(yes: list[int], n: list[int]) -> None:
    fit = cheater.fit_cheater_detection(DESIGN, n=n, reported_yes=yes)
    assert fit is not None
    assert fit.g2 == pytest.approx(_scipy_g2(DESIGN, yes, n), abs=1e-6)
    expected = sum(w * stats.chi2.sf(fit.g2, j) for j, w in enumerate(fit.weights) if j)
    assert fit.p_value == pytest.approx(expected if fit.g2 > 0 else 1.0, rel=1e-9)


def test_inside_the_simplex_fits_perfectly() -> None:
    lam = DESIGN.report_probabilities(0.2, 0.1)
    n = [1000, 1000]
    fit = cheater.fit_cheater_detection(DESIGN, n=n, reported_yes=[round(x * 1000) for x in lam])
    assert fit is not None and fit.g2 == 0.0 and fit.p_value == 1.0
    assert cheater.fit_cheater_detection(DESIGN, n=[0, 10], reported_yes=[0, 3]) is None


def test_crosswise_g2_equals_scipy_bounded_fit() -> None:
    design = crosswise(0.2)  # λ = P(same) ∈ [0.2, 0.8]
    yes, n = 870, 1000
    fit = binary_fit(yes=yes, n=n, c=design.c, d=design.d)
    res = optimize.minimize_scalar(
        lambda p: -stats.binom.logpmf(yes, n, design.c * p + design.d),
        bounds=(0, 1),
        method="bounded",
        options={"xatol": 1e-12},
    )
    g2 = 2 * (stats.binom.logpmf(yes, n, yes / n) + res.fun)
    assert fit is not None and fit.g2 == pytest.approx(g2, abs=1e-6)
    assert fit.p_value == pytest.approx(0.5 * stats.chi2.sf(g2, 1), rel=1e-6)
    inside = binary_fit(yes=500, n=1000, c=design.c, d=design.d)
    assert inside is not None and inside.g2 == 0.0 and inside.p_value == 1.0


def test_chi_bar_sf_matches_scipy() -> None:
    weights = (0.2, 0.5, 0.3)
    for g in (0.1, 1.0, 2.7, 9.0):
        expected = 0.5 * stats.chi2.sf(g, 1) + 0.3 * stats.chi2.sf(g, 2)
        assert chi_bar_sf(g, weights) == pytest.approx(expected, rel=1e-10)
    assert chi_bar_sf(0.0, weights) == 1.0


def test_vertex_weights_match_a_monte_carlo_projection() -> None:
    """Draw x ~ N(0, W⁻¹) in λ-space and project onto the cone {a·s + b·t : s, t ≥ 0} in the W
    metric (scipy's NNLS on W^½·[a b]): w₀ = P(x in the cone), w₂ = P(projection = 0). With
    20 000 draws each share's SE ≤ √(¼/20 000) = 0.0035: 5 SE = 0.018."""
    rates, n = [0.25, 0.5], [400, 700]  # the β = 1 vertex of DESIGN
    edges = [(0.0, -1.0), (1.0, -1.0)]
    weights = vertex_weights(DESIGN.matrix, rates, n, edges)
    lam = np.array(rates)
    w = np.array(n) / (lam * (1 - lam))
    root = np.diag(np.sqrt(w))
    basis = root @ np.column_stack([DESIGN.matrix @ np.array(e) for e in edges])
    rng = np.random.default_rng(26)
    draws = rng.normal(size=(20_000, 2))  # W^½·x is standard normal
    inside = zero = 0
    for y in draws:
        coef, residual = optimize.nnls(basis, y)
        inside += residual < 1e-12
        zero += bool(np.all(coef == 0.0))
    assert weights[1] == 0.5
    assert inside / 20_000 == pytest.approx(weights[0], abs=0.018)
    assert zero / 20_000 == pytest.approx(weights[2], abs=0.018)


def _rejection_rate(lam: tuple[float, float], n: int, reps: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(reps):
        yes = [int(rng.binomial(n, lam[0])), int(rng.binomial(n, lam[1]))]
        fit = cheater.fit_cheater_detection(DESIGN, n=[n, n], reported_yes=yes)
        assert fit is not None
        rejected += fit.p_value < 0.05
    return rejected / reps


@pytest.mark.parametrize(
    ("pi", "gamma"),
    [
        (0.2, 0.0),  # on a face (no cheaters): ½χ²₀ + ½χ²₁
        (0.0, 0.0),  # at the vertex β = 1 (rare trait, no cheaters): the χ̄² with its angle
    ],
)
def test_size_holds_under_the_model(pi: float, gamma: float) -> None:
    """Under the model at a boundary point the rejection rate at 5% is 0.05 asymptotically.
    2 000 replications: SE = √(0.05·0.95/2000) = 0.0049; 5 SE = 0.024."""
    rate = _rejection_rate(DESIGN.report_probabilities(pi, gamma), 800, 2000, seed=7)
    assert abs(rate - 0.05) < 0.024


def test_rejects_a_violated_model() -> None:
    """Some respondents always say YES (which the model does not allow): λ = (0.6, 0.5) lies
    outside the feasible triangle (it needs λ₂ ≥ λ₁ here). Power at n = 800 per group is ≈ 1:
    the rate must exceed 0.95 (a true rate of 0.99 misses that at 200 reps with p < 1e-6)."""
    assert _rejection_rate((0.6, 0.5), 800, 200, seed=8) > 0.95


def test_crosswise_size_and_power() -> None:
    """Crosswise with p = 0.2 at π = 0 (λ = 0.8, the upper bound): ½χ²₁ holds size 0.05
    (4 000 reps, SE 0.0034, 5 SE = 0.017); at λ = 0.86 (more SAME than any π allows) it
    rejects with power > 0.9 at n = 1 000 (G² mean ≈ 1000·KL ≈ 19)."""
    design = crosswise(0.2)
    rng = np.random.default_rng(9)

    def rate(lam: float, reps: int) -> float:
        yes = rng.binomial(1000, lam, size=reps)
        fits = [binary_fit(yes=int(k), n=1000, c=design.c, d=design.d) for k in yes]
        return sum(f is not None and f.p_value < 0.05 for f in fits) / reps

    assert abs(rate(0.8, 4000) - 0.05) < 0.017
    assert rate(0.86, 400) > 0.9
    assert math.isclose(design.c + design.d, 0.2) or math.isclose(design.d, 0.8)
