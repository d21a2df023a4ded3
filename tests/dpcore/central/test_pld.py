"""The PLD accountant (dpcore.central.pld) against exact lattice convolution, mpmath and
dp-accounting — issue 13's histories, asserted: never below the exact ε, at most 1.01× above.

Exact references: :mod:`testsupport.exact_lattice` (direct convolution, no FFT; 50-digit
single-pair sums). Everything is deterministic.
"""

from __future__ import annotations

import itertools
import logging
import math
import warnings

import mpmath
import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as dpa_pld

from dpcore.central import accounting, pld
from dpcore.central.pld import DiscreteGaussianPair as DG
from dpcore.central.pld import DiscreteLaplacePair as DL
from testsupport.exact_lattice import exact_epsilon, mp_delta_single, mp_epsilon_single

DELTA = 1e-5
logging.getLogger("absl").setLevel(logging.ERROR)

# Issue 13's table (δ = 1e-5): k discrete Gaussians at σ = 1, the exact values
# (docs/formulas.md#reference-values).
DG_EXACT = {1: 4.4302, 10: 17.866, 100: 91.823, 1000: 633.90}

# Mixed histories (discrete Laplace + discrete Gaussian, grid sums, pure past the old cap).
HISTORIES = {
    "lap0.1x50+dg1x5": {DL(0.1): 50, DG(1.0): 5},
    "lap0.5x10+dg3x10": {DL(0.5): 10, DG(3.0): 10},
    "lap0.25x20+sum11x5+dg3.74x8": {DL(0.25): 20, DL(0.25, 11): 5, DG(3.7405): 8},
    "lap1x3+dg2x3": {DL(1.0): 3, DG(2.0): 3},
    "lap0.05x200+dg10x3": {DL(0.05): 200, DG(10.0): 3},
    "lap0.3x4+dg1.5x2+dgsum11": {DL(0.3): 4, DG(1.5): 2, DG(4.0 * 11, 11): 1},
    "pure{0.1,0.2,0.3}x62": {DL(0.1): 62, DL(0.2): 62, DL(0.3): 62},
    "pure{0.1:61,0.2:62,0.3:63}": {DL(0.1): 61, DL(0.2): 62, DL(0.3): 63},
    "counts+sums K=11": {DL(0.5): 10, DL(0.5, 11): 10},
    "counts+sums K=1001": {DL(0.2): 20, DL(0.2, 1001): 20},
    "sum K=101 x5": {DL(1.0, 101): 5},
}


def ratio_ok(ours: float, exact: float) -> None:
    assert ours >= exact
    assert ours <= 1.01 * exact


@pytest.mark.parametrize("k", [1, 10, 100, 1000])
def test_discrete_gaussian_table(k: int) -> None:
    ours = pld.pld_epsilon({DG(1.0): k}, DELTA)
    assert ours == pytest.approx(DG_EXACT[k], abs=6e-4 * max(1.0, DG_EXACT[k] / 100))
    if k <= 100:  # exact lattice convolution (1000 is the published value above)
        ratio_ok(ours, exact_epsilon({DG(1.0): k}, DELTA))


@pytest.mark.parametrize("name", sorted(HISTORIES))
def test_histories_within_one_percent_of_exact(name: str) -> None:
    groups = HISTORIES[name]
    exact = exact_epsilon(groups, DELTA)
    ours = pld.pld_epsilon(groups, DELTA)
    ratio_ok(ours, exact)
    # And through the product's accountant (events → pairs), which reports the method.
    events: list[accounting.Event] = []
    for pair, k in groups.items():
        if isinstance(pair, DL):
            laplace: accounting.Event = (
                accounting.DiscreteLaplaceEvent(pair.epsilon)
                if pair.shift == 1
                else accounting.ShiftedDiscreteLaplaceEvent(pair.epsilon, pair.shift)
            )
            events += [laplace] * k
        else:
            events += [accounting.DiscreteGaussianEvent(pair.sigma, float(pair.shift))] * k
    result = accounting.epsilon_spent(events, DELTA)
    ratio_ok(result.epsilon, exact)
    assert result.candidates["rdp"] >= result.epsilon


def test_discrete_laplace_table() -> None:
    # docs/formulas.md#reference-values: k discrete Laplace at ε₀ = 0.1 — exact 0.99369,
    # 4.30679, 17.78713.
    for k, want in ((10, 0.99369), (100, 4.30679), (1000, 17.78713)):
        ours = pld.pld_epsilon({DL(0.1): k}, DELTA)
        assert want - 1e-5 <= ours <= want * 1.0001


@pytest.mark.parametrize(
    "pair", [DG(1.0), DG(0.7), DG(3.7405), DL(0.5), DL(1.0, 11), DG(2.0 * 11, 11)]
)
def test_single_pair_against_mpmath(pair: pld.Pair) -> None:
    exact = mp_epsilon_single(pair, DELTA)
    ours = pld.pld_epsilon({pair: 1}, DELTA)
    ratio_ok(ours, exact)
    # δ at our ε is at most the target (50-digit sum of the pmf).
    assert mp_delta_single(pair, ours) <= DELTA * (1 + 1e-12)


def test_optimistic_twin_brackets_the_exact_value() -> None:
    groups = HISTORIES["lap0.5x10+dg3x10"]
    lam, _ = pld._plan(groups, DELTA)
    log_inv = -math.log(DELTA)
    upper = pld._solve(pld._compose(groups, log_inv, lam, 0.05), DELTA)
    lower = pld._solve(pld._compose(groups, log_inv, lam, 0.05, pessimistic=False), DELTA)
    exact = exact_epsilon(groups, DELTA)
    assert lower <= exact <= upper


def test_larger_shift_dominates_smaller_ones() -> None:
    """A grid sum moves by at most K: the shift-K pair's δ(ε) bounds every shift j ≤ K
    (log-concave noise, module notes) — checked in 50 digits at a few ε."""
    k_max = 7
    for eps in (0.05, 0.2, 0.5, 1.0):
        lap = [mp_delta_single(DL(0.7 * j / k_max, j), eps) for j in range(1, k_max + 1)]
        # DL(0.7·j/K, j) has scale K/0.7 for every j: one noise, shifts 1 … K
        assert all(a <= b * (1 + 1e-30) for a, b in itertools.pairwise(lap))
        gau = [mp_delta_single(DG(2.5 * k_max, j), eps) for j in range(1, k_max + 1)]
        assert all(a <= b * (1 + 1e-30) for a, b in itertools.pairwise(gau))


def test_against_dp_accounting() -> None:
    """dp-accounting's own discrete mechanisms (connect-the-dots, pessimistic): ours is never
    below the exact value and not above theirs by more than their discretization."""
    ours = pld.pld_epsilon({DL(0.5): 10, DG(3.0): 10}, DELTA)
    theirs = (
        dpa_pld.from_discrete_laplace_mechanism(0.5, value_discretization_interval=1e-4)
        .self_compose(10)
        .compose(
            dpa_pld.from_discrete_gaussian_mechanism(
                3.0, value_discretization_interval=1e-4
            ).self_compose(10)
        )
        .get_epsilon_for_delta(DELTA)
    )
    assert ours <= theirs * (1 + 1e-3)
    assert ours >= theirs * (1 - 1e-2)


@pytest.mark.parametrize("delta", [5e-324, 1e-300, 1e-100, 0.5, 1 - 1e-12])
def test_any_delta_no_overflow(delta: float) -> None:
    histories = [
        [accounting.DiscreteLaplaceEvent(0.1)] * 5,
        [accounting.DiscreteGaussianEvent(1.0, 1.0)] * 3,
        [
            accounting.DiscreteLaplaceEvent(0.3),
            accounting.DiscreteGaussianEvent(2.0, 1.0),
            accounting.ZCDPEvent(0.1),
        ],
        [
            accounting.ShiftedDiscreteLaplaceEvent(0.2, 11),
            accounting.DiscreteGaussianEvent(3.0, 1.0),
        ],
    ]
    for events in histories:
        result = accounting.epsilon_spent(events, delta)
        assert math.isfinite(result.epsilon) and result.epsilon >= 0.0
        assert accounting.can_afford(events, [], 1e6, delta)
    assert math.isfinite(pld.pld_epsilon({DG(1.0): 2, DL(0.1): 3}, delta))


def test_tiny_delta_still_an_upper_bound() -> None:
    exact = mp_epsilon_single(DG(1.0), 1e-100)
    ours = pld.pld_epsilon({DG(1.0): 1}, 1e-100)
    ratio_ok(ours, exact)


def test_exact_pure_never_below_the_closed_form() -> None:
    """KOV 2015 Thm 3.3 closed form for k × ε₀ in 50 digits; exact_pure rounds up."""
    mpmath.mp.dps = 50
    for eps0, k, delta in ((0.1, 10, 1e-5), (0.5, 7, 1e-3), (1.0, 3, 1e-8), (0.3, 40, 1e-6)):
        e0 = mpmath.mpf(eps0)

        def delta_at(eps: mpmath.mpf, e0: mpmath.mpf = e0, k: int = k) -> mpmath.mpf:
            tot = mpmath.mpf(0)
            for i in range(k + 1):
                ell = (k - 2 * i) * e0
                if ell > eps:
                    tot += (
                        mpmath.binomial(k, i)
                        * (mpmath.exp(ell) - mpmath.exp(eps))
                        * mpmath.exp(i * e0)
                        / (1 + mpmath.exp(e0)) ** k
                    )
            return tot

        lo, hi = mpmath.mpf(0), k * e0
        for _ in range(200):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if delta_at(mid) > delta else (lo, mid)
        ours = accounting.exact_pure_epsilon([accounting.PureDPEvent(eps0)] * k, delta)
        assert mpmath.mpf(ours) >= hi
        assert ours <= float(hi) * (1 + 1e-10)


def test_grouping_multiplicities_matches_repeats() -> None:
    a = pld.pld_epsilon({DG(2.0): 4, DL(0.3): 6}, DELTA)
    b = accounting.epsilon_spent(
        [accounting.DiscreteGaussianEvent(2.0, 1.0)] * 4
        + [accounting.DiscreteLaplaceEvent(0.3)] * 6,
        DELTA,
    )
    assert b.method == "pld" and b.epsilon == a
    assert np.isfinite(a)


@pytest.mark.parametrize("epsilon", [2e3, 2e4, 2e5, 2e6])
def test_huge_losses_decline_instead_of_gridding_garbage(epsilon: float) -> None:
    """Regression: a shift-1601 release at ε = 2·10⁵ beside four shift-1 ones cast overflowed
    grid indices to int64 (RuntimeWarning) before failing. Now the accountant either answers (never
    below the four shift-1 events' own pure ε minus their δ slack) or declines with ∞."""
    events = {DL(epsilon, 1601): 1, DL(epsilon, 1): 4}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pld.events_epsilon(
            {
                accounting.ShiftedDiscreteLaplaceEvent(epsilon, 1601): 1,
                accounting.DiscreteLaplaceEvent(epsilon): 4,
            },
            1e-6,
            math.inf,
        )
        direct = pld.pld_epsilon(events, 1e-6) if math.isfinite(result) else math.inf
    # Four pure ε events compose to exactly 4ε at δ = 0; at δ = 1e-6 at most ln(1/δ) < 14 less.
    assert result == math.inf or result >= 4 * epsilon - 14
    assert direct == result
