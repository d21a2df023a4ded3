"""The joint of a randomized multi-select (dpcore.local.joint; docs/formulas.md#joint), against a
brute-force computation of the Kronecker system and a Monte-Carlo simulation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dpcore import local as rr
from dpcore.errors import ArgumentError
from dpcore.local import joint

DESIGNS = [(0.5, 0.25), (0.6, 0.1), (0.4, 0.3)]  # (c, d) per option


def _brute_force_matrix(designs):
    """P(report pattern r | true pattern t) = Π_j P(r_j | t_j), entry by entry (no Kronecker)."""
    k = len(designs)
    cells = list(itertools.product([False, True], repeat=k))
    m = np.zeros((2**k, 2**k))
    for i, r in enumerate(cells):
        for t_index, t in enumerate(cells):
            p = 1.0
            for (c, d), rj, tj in zip(designs, r, t, strict=True):
                yes = c * tj + d
                p *= yes if rj else 1.0 - yes
            m[i, t_index] = p
    return m


def test_patterns_follow_the_index():
    for k in range(1, 5):
        for i, p in enumerate(joint.patterns(k)):
            assert joint.pattern_index(p) == i
    assert joint.patterns(2) == ((False, False), (False, True), (True, False), (True, True))


def test_inverse_is_the_inverse_of_the_brute_force_matrix():
    m = _brute_force_matrix(DESIGNS)
    assert np.allclose(joint.kronecker_inverse(DESIGNS) @ m, np.eye(8), atol=1e-12)


def test_estimate_solves_the_system_with_the_multinomial_covariance():
    counts = [40, 13, 22, 9, 31, 5, 17, 63]
    n = sum(counts)
    est = joint.estimate_joint(DESIGNS, counts)
    assert est is not None and est.n == n
    m = _brute_force_matrix(DESIGNS)
    shares = np.array(counts) / n
    pi = np.linalg.solve(m, shares)
    assert np.allclose(est.estimate_unclipped, pi, atol=1e-12)
    inv = np.linalg.inv(m)
    cov = inv @ ((np.diag(shares) - np.outer(shares, shares)) / n) @ inv.T
    assert np.allclose(est.covariance, cov, atol=1e-12)
    assert np.allclose(est.std_error, np.sqrt(np.diag(cov)), atol=1e-12)
    assert abs(sum(est.estimate_unclipped) - 1.0) < 1e-12
    assert abs(sum(est.estimate) - 1.0) < 1e-12 and min(est.estimate) >= 0.0


def test_marginals_equal_the_per_option_estimates_exactly():
    rng = np.random.default_rng(5)
    for k in range(1, 7):
        designs = [(0.3 + 0.1 * (j % 4), 0.05 * j) for j in range(k)]
        counts = [int(x) for x in rng.integers(0, 50, size=2**k)]
        est = joint.estimate_joint(designs, counts)
        assert est is not None
        for j, (c, d) in enumerate(designs):
            yes = sum(x for i, x in enumerate(counts) if est.patterns[i][j])
            per_option = rr.estimate_binary(rr.two_probability(c + d, d), n=est.n, reported_yes=yes)
            assert abs(est.marginals[j] - per_option.estimate_unclipped) <= 1e-12


def test_monte_carlo_within_five_standard_errors():
    """Simulate true patterns from a known joint, randomize each option, estimate: every cell's
    π̂ is within 5 of its own SE of the truth (a Wald z per cell; P(|z| > 5) ≈ 5.7e-7 each, 8
    cells → < 1e-5 false failures at n = 20 000 where the normal approximation holds)."""
    rng = np.random.default_rng(2026)
    truth = np.array([0.30, 0.05, 0.10, 0.05, 0.20, 0.05, 0.05, 0.20])
    n = 20_000
    true_idx = rng.choice(8, size=n, p=truth)
    cells = joint.patterns(3)
    counts = np.zeros(8, dtype=int)
    for idx in true_idx:
        reported = [rng.random() < c * t + d for (c, d), t in zip(DESIGNS, cells[idx], strict=True)]
        counts[joint.pattern_index(reported)] += 1
    est = joint.estimate_joint(DESIGNS, [int(x) for x in counts])
    assert est is not None
    z = (np.array(est.estimate_unclipped) - truth) / np.array(est.std_error)
    assert np.all(np.abs(z) < 5), z


def test_no_respondents_and_bad_arguments():
    assert joint.estimate_joint(DESIGNS, [0] * 8) is None
    with pytest.raises(ArgumentError):
        joint.estimate_joint(DESIGNS, [1] * 4)
    with pytest.raises(ArgumentError):
        joint.estimate_joint([(0.5, 0.25)] * 7, [1] * 128)
    with pytest.raises(ArgumentError):
        joint.estimate_joint([(0.0, 0.5)], [1, 1])
