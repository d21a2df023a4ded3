"""Cheating detection (CDMsym) from a central-DP release's noisy per-group counts (pure).

A release of a cheating-detection question publishes four noisy counts, ``C̃_{i,yes}`` and
``C̃_{i,no}`` for groups i = 1, 2, each with independent mean-zero noise of variance V
(:mod:`dpcore.central.estimates`). A respondent is in exactly one group and gives one report, so
the four cells are one histogram: one respondent changes one cell by one (sensitivity 1, like a
yes/no question's two cells).

Estimators (docs/formulas.md, the model in :mod:`dpcore.local.cheater`)::

    Ñ_i = C̃_{i,yes} + C̃_{i,no},   λ̂_i = clip(C̃_{i,yes}/Ñ_i, 0, 1),   (π̂, β̂) = A⁻¹·λ̂,   γ̂ = 1 − π̂ − β̂

with ``Var(λ̂_i) = λ_i(1 − λ_i)/N_i + V·[(1 − λ_i)² + λ_i²]/N_i²``
(:func:`dpcore.central.estimates.lambda_variance` with k = 2) and covariance
``A⁻¹·diag(Var λ̂_i)·A⁻ᵀ``. Reported estimates are clipped to the simplex (π, β clipped to
[0, 1], then γ = clip(1 − π − β)); ``at_boundary`` is set when the moment estimate lies outside
it. Intervals: the boundary-aware interval of :mod:`dpcore.local.bounded_interval` on [0, 1]
around the moment estimate (Wald's away from 0 and 1, never of zero width), widened to contain the
reported value. A group whose noisy total is ≤ 0 leaves every estimate None.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from dpcore.central.estimates import lambda_variance
from dpcore.local.bounded_interval import bounded_interval
from dpcore.local.cheater import (
    CheaterDetectionDesign,
    CheaterEstimate,
    ParameterEstimate,
)
from dpcore.stats import clip01, z_value

__all__ = ["CELLS", "estimate_noisy_cheater", "expected_std_error"]

#: The four cells, as the survey's tally names them.
CELLS = ("g1_yes", "g1_no", "g2_yes", "g2_no")
_EMPTY = ParameterEstimate(None, None, None, None, None)


def _parameter(point: float, unbiased: float, variance: float, conf: float) -> ParameterEstimate:
    """The interval of dpcore.local.bounded_interval on [0, 1] (never of zero width; the noise
    keeps σ > 0), widened to contain the reported point."""
    se = math.sqrt(max(variance, 0.0))
    low, high = bounded_interval(unbiased, se, 0.0, 1.0, conf)
    return ParameterEstimate(point, unbiased, se, min(low, point), max(high, point))


def estimate_noisy_cheater(
    design: CheaterDetectionDesign,
    noisy: Mapping[str, int],
    *,
    noise_variance: float,
    confidence: float = 0.95,
) -> CheaterEstimate:
    """π (``honest_yes``), γ (``cheaters``), β (``honest_no``) from the noisy cells
    :data:`CELLS` (see the module docstring); ``n``/``reported_yes`` are the noisy ones."""
    z_value(confidence)  # validates it (a 400 naming confidence upstream)
    yes = (int(noisy["g1_yes"]), int(noisy["g2_yes"]))
    totals = (yes[0] + int(noisy["g1_no"]), yes[1] + int(noisy["g2_no"]))
    if min(totals) <= 0:
        return CheaterEstimate(totals, yes, _EMPTY, _EMPTY, _EMPTY, False, confidence)
    lam = np.array([clip01(y / t) for y, t in zip(yes, totals, strict=True)])
    variances = [
        lambda_variance(float(v), float(t), noise_variance, 2)
        for v, t in zip(lam, totals, strict=True)
    ]
    inverse = np.linalg.inv(design.matrix)
    pi_u, beta_u = (float(x) for x in inverse @ lam)
    cov = inverse @ np.diag(variances) @ inverse.T
    var_pi, var_beta, cov_pb = float(cov[0, 0]), float(cov[1, 1]), float(cov[0, 1])
    gamma_u = 1.0 - pi_u - beta_u
    pi, beta = clip01(pi_u), clip01(beta_u)
    if pi + beta > 1.0:  # project onto the simplex's edge γ = 0 along π − β
        excess = (pi + beta - 1.0) / 2.0
        pi, beta = clip01(pi - excess), clip01(beta - excess)
    gamma = clip01(1.0 - pi - beta)
    return CheaterEstimate(
        n=totals,
        reported_yes=yes,
        honest_yes=_parameter(pi, pi_u, var_pi, confidence),
        cheaters=_parameter(gamma, gamma_u, var_pi + var_beta + 2.0 * cov_pb, confidence),
        honest_no=_parameter(beta, beta_u, var_beta, confidence),
        at_boundary=min(pi_u, beta_u, gamma_u) < 0.0,
        confidence=confidence,
    )


def expected_std_error(design: CheaterDetectionDesign, *, n: float, noise_variance: float) -> float:
    """SE of π̂ planned for n respondents (n/2 per group) at the worst case λ_i = ½:
    ``√(Σ_i (A⁻¹)₀ᵢ²·[¼/N_i + V·½/N_i²])`` with ``N_i = n/2`` (the module docstring's variance)."""
    if n <= 0:
        return math.inf
    row = np.linalg.inv(design.matrix)[0]
    half = n / 2.0
    per_group = 0.25 / half + noise_variance * 0.5 / half / half
    return math.sqrt(float(np.sum(row * row)) * per_group)
