"""Post-stratification is unbiased when the sample is skewed against the population, and its
interval covers (docs/formulas.md#post-stratification).

Population: 30 % young with prevalence 0.6, 70 % old with prevalence 0.1, so π = 0.25. The sample
over-represents the young (70 % of n = 400). Reports through forced response (c = ½, d = ¼).
The unweighted estimate targets 0.7·0.6 + 0.3·0.1 = 0.45; the post-stratified one 0.25.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.local.bounded_interval import bounded_interval
from dpcore.local.designs import forced_response
from dpcore.local.estimators import estimate_binary
from dpcore.poststratify import poststratified

R, N = 2000, 400
SHARES = {"young": 0.3, "old": 0.7}
PREVALENCE = {"young": 0.6, "old": 0.1}
SAMPLE_YOUNG = 0.7
TRUTH = sum(SHARES[g] * PREVALENCE[g] for g in SHARES)  # 0.25


def test_poststratified_estimate_is_unbiased_and_covers() -> None:
    rng = np.random.default_rng(20261127)  # fixed seed: a check of the formula, not of luck
    design = forced_response(p_truth=0.5, p_yes=0.25, p_no=0.25)
    estimates, raw, ses, covered = [], [], [], 0
    for _ in range(R):
        n_young = int(rng.binomial(N, SAMPLE_YOUNG))
        sizes = {"young": n_young, "old": N - n_young}
        yes = {}
        for group, n in sizes.items():
            lam = 0.5 * PREVALENCE[group] + 0.25  # P(report yes) = c·π + d
            yes[group] = int(rng.binomial(n, lam))
        parts = [estimate_binary(design, n=sizes[g], reported_yes=yes[g]) for g in SHARES]
        u, se = poststratified(
            [p.estimate_unclipped for p in parts],  # type: ignore[misc]
            [p.std_error for p in parts],
            list(SHARES.values()),
        )
        assert se is not None
        low, high = bounded_interval(u, se, 0.0, 1.0, 0.95)
        covered += low <= TRUTH <= high
        ses.append(se)
        estimates.append(u)
        raw.append((sum(yes.values()) / N - 0.25) / 0.5)
    mean = sum(estimates) / R
    sd = math.sqrt(sum((e - mean) ** 2 for e in estimates) / (R - 1))
    # Unbiased: the mean of R estimates is within 5 SE of the truth (SE = sd/√R ≈ 0.0011).
    assert abs(mean - TRUTH) < 5 * sd / math.sqrt(R)
    # The reported SE matches the spread (the variance formula): the sd of R draws has a
    # relative SE of ≈ 1/√(2(R − 1)) ≈ 0.016, so 5 SE ≈ 8 %.
    assert abs(sum(ses) / R / sd - 1) < 5 / math.sqrt(2 * (R - 1))
    # The unweighted estimate is far off (0.45): the skew is real.
    assert abs(sum(raw) / R - 0.45) < 0.01
    # Coverage of the 95 % interval within 5 binomial SE (√(.95·.05/R) ≈ 0.0049) of 0.95.
    assert abs(covered / R - 0.95) < 5 * math.sqrt(0.95 * 0.05 / R)


def test_hand_example_and_edges() -> None:
    # 0.3·0.5 + 0.7·0.2 = 0.29; SE √(0.09·0.01 + 0.49·0.0004) = √0.001096.
    u, se = poststratified([0.5, 0.2], [0.1, 0.02], [0.3, 0.7])
    assert math.isclose(u, 0.29) and se is not None and math.isclose(se, math.sqrt(0.001096))
    # A zero weight drops its stratum, even one without an SE.
    assert poststratified([0.5, 9.0], [0.1, None], [1.0, 0.0]) == (0.5, 0.1)
    # A weighted stratum without an SE: no SE.
    assert poststratified([0.5, 0.2], [0.1, None], [0.5, 0.5])[1] is None
