"""The debiased mean score of an ordered k-RR question (dpcore.local.ordinal,
docs/formulas.md#mean-score): a hand computation, the simplex identity, edge cases, and the
interval's coverage in a seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpcore.errors import ArgumentError
from dpcore.local.designs import KRRDesign
from dpcore.local.estimators import estimate_krr
from dpcore.local.ordinal import estimate_mean_score


def test_hand_computation():
    # ε = ln 3, k = 3: p = 3/5, q = 1/5, c = 2/5, d = 1/5. Counts 20/30/50 of n = 100:
    # λ̂ = (.2, .3, .5); R̄ = .2 + .6 + 1.5 = 2.3; M̂ = (2.3 − .2·6)/.4 = 2.75;
    # Σs²λ̂ − R̄² = 5.9 − 5.29 = .61; SE = √(.61/100)/.4 = 0.195256…
    design = KRRDesign(3, math.log(3))
    est = estimate_mean_score(design, counts=[20, 30, 50], confidence=0.95)
    assert est.n == 100
    assert est.estimate_unclipped == pytest.approx(2.75)
    assert est.estimate == pytest.approx(2.75)
    se = math.sqrt(0.61 / 100) / 0.4
    assert est.std_error == pytest.approx(se)
    # The interval's σ is the SE, never below the SE at Agresti–Coull proportions
    # (count + z²/3)/(100 + z²) over n + z² (dpcore.local.bounded_interval). M̂ + z·σ > 3 here,
    # so the boundary-aware interval is used: it contains M̂ and ends at or below 3.
    z = 1.959963985
    lam = [(count + z * z / 3) / (100 + z * z) for count in (20, 30, 50)]
    mean = sum(s * x for s, x in zip((1, 2, 3), lam, strict=True))
    square = sum(s * s * x for s, x in zip((1, 2, 3), lam, strict=True))
    sigma = max(se, math.sqrt((square - mean * mean) / (100 + z * z)) / 0.4)
    assert 2.75 + z * sigma > 3.0
    assert 2.75 - z * sigma < est.ci_low < 2.75 < est.ci_high <= 3.0
    # Counts 30/40/30: M̂ = 2, and M̂ ± z·σ lies well inside [1, 3]: Wald's interval exactly.
    mid = estimate_mean_score(design, counts=[30, 40, 30], confidence=0.95)
    lam = [(count + z * z / 3) / (100 + z * z) for count in (30, 40, 30)]
    mean = sum(s * x for s, x in zip((1, 2, 3), lam, strict=True))
    square = sum(s * s * x for s, x in zip((1, 2, 3), lam, strict=True))
    sigma = max(mid.std_error, math.sqrt((square - mean * mean) / (100 + z * z)) / 0.4)
    assert mid.estimate_unclipped == pytest.approx(2.0)
    assert (mid.ci_low, mid.ci_high) == pytest.approx((2.0 - z * sigma, 2.0 + z * sigma))


def test_equals_scores_times_unbiased_proportions():
    design = KRRDesign(5, 1.3)
    counts = [17, 40, 9, 31, 3]
    options = estimate_krr(design, counts=counts).options
    expected = sum(s * o.estimate_unclipped for s, o in enumerate(options, start=1))
    assert estimate_mean_score(design, counts=counts).estimate_unclipped == pytest.approx(expected)


def test_clipped_to_the_scale_and_edge_cases():
    design = KRRDesign(3, math.log(3))
    # every report "1": λ̂ = (1, 0, 0) → M̂ = (1 − 1.2)/.4 = −0.5, shown as 1
    low = estimate_mean_score(design, counts=[50, 0, 0])
    assert low.estimate_unclipped == pytest.approx(-0.5) and low.estimate == 1.0
    # SE 0, M̂ below the scale: the interval still has width (the clipped Wald one was [1, 1]).
    assert low.std_error == 0.0 and low.ci_low == 1.0 and 1.0 < low.ci_high < 1.2
    empty = estimate_mean_score(design, counts=[0, 0, 0])
    assert empty.n == 0 and empty.estimate is None and empty.std_error is None
    one = estimate_mean_score(design, counts=[0, 1, 0])
    assert one.estimate == pytest.approx(2.0) and one.std_error is None and one.ci_low is None
    with pytest.raises(ArgumentError):
        estimate_mean_score(design, counts=[1, 2])
    with pytest.raises(ArgumentError):
        estimate_mean_score(design, counts=[1, -2, 3])


@pytest.mark.parametrize(
    ("k", "epsilon", "truth", "n"),
    [(5, math.log(3), [0.1, 0.2, 0.4, 0.2, 0.1], 500), (4, 2.0, [0.7, 0.2, 0.1, 0.0], 300)],
)
def test_coverage_and_unbiasedness_by_simulation(k, epsilon, truth, n):
    """2,000 surveys of n respondents randomized by k-RR (numpy, seeded): the mean of M̂ is the
    true mean score and the 95% interval covers it in 93.5–96.5% of them (binomial 3-sigma band
    around 95% for 2,000 runs is ±1.5%)."""
    rng = np.random.default_rng(20261122)
    design = KRRDesign(k, epsilon)
    p = design.keep_probability
    true_mean = sum(s * t for s, t in enumerate(truth, start=1))
    runs, covered, estimates = 2000, 0, []
    for _ in range(runs):
        answers = rng.choice(k, size=n, p=truth)
        keep = rng.random(n) < p  # keep with p, else uniform over the k − 1 others
        others = (answers + rng.integers(1, k, size=n)) % k
        reports = np.where(keep, answers, others)
        counts = np.bincount(reports, minlength=k).tolist()
        est = estimate_mean_score(design, counts=counts)
        estimates.append(est.estimate_unclipped)
        covered += est.ci_low <= true_mean <= est.ci_high
    print(f"coverage {covered / runs:.4f}")
    assert abs(np.mean(estimates) - true_mean) < 4 * np.std(estimates) / math.sqrt(runs)
    assert 0.935 <= covered / runs <= 0.965, covered / runs
