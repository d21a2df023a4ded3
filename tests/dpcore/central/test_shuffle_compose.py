"""The shuffled file's sections composed through their privacy profiles
(dpcore.central.shuffle_compose): never below the true composition — checked against every
dataset of the others and both directions per section, enumerated at small n, and against the
exact composition of randomized response — within a hair of it where the profile is exact, and
far below the basic sum it replaces."""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from bench.shuffle_composition import bisect, true_file_epsilon
from dpcore.central import shuffle, shuffle_compose
from dpcore.central.shuffle_blanket import blanket_log_delta
from dpcore.central.shuffle_compose import Section, composed_epsilon
from dpcore.central.shuffle_pair import pair_log_delta


def rr_composed_epsilon(d: int, eps0: float, delta: float) -> float:
    """Exact ε of d randomized responses at ε₀: the loss is (2K − d)ε₀,
    K ~ Bin(d, e^ε₀/(1 + e^ε₀))."""
    p = math.exp(eps0) / (1.0 + math.exp(eps0))

    def above(eps: float) -> bool:
        total = sum(
            math.comb(d, k)
            * p**k
            * (1 - p) ** (d - k)
            * max(0.0, -math.expm1(eps - (2 * k - d) * eps0))
            for k in range(d + 1)
        )
        return total > delta

    return bisect(above, d * eps0)


@pytest.mark.parametrize(("d", "eps0", "delta"), [(2, 1.0, 1e-6), (50, 0.1, 1e-6), (20, 0.2, 1e-3)])
def test_randomized_response_sections_compose_to_the_exact_value(d, eps0, delta):
    # One report per section: its profile is RR's, whose d-fold composition is known exactly.
    exact = rr_composed_epsilon(d, eps0, delta)
    ours = composed_epsilon([Section(1, eps0)] * d, delta)
    assert ours is not None
    assert exact <= ours <= exact * 1.001 + 1e-6


@pytest.mark.parametrize(
    ("n", "eps0", "d", "delta", "slack"),
    [
        (12, 1.0, 2, 1e-3, 1.001),
        (12, 2.0, 2, 1e-2, 1.001),
        (8, 1.0, 3, 1e-3, 1.001),
        (30, 1.0, 2, 0.05, 1.05),
    ],
)
def test_yes_no_sections_are_never_below_the_true_file(n, eps0, d, delta, slack):
    # Every dataset of the others, enumerated: the stated ε is above each one's. The profile is
    # the max over datasets, whose composition may be above every single dataset's (n = 30 with a
    # large δ: 4 %); at the other points it is within 0.1 %.
    true = true_file_epsilon(n, eps0, d, delta)
    ours = composed_epsilon([Section(n, eps0, 2)] * d, delta)
    assert ours is not None
    assert true <= ours <= true * slack


def test_far_below_the_basic_sum_and_above_one_section():
    n, eps0, d, delta = 1000, math.log(3), 5, 1e-6
    ours = composed_epsilon([Section(n, eps0, 2)] * d, delta)
    assert ours is not None
    basic = d * shuffle.shuffled_guarantee(n, eps0, delta / d, 2).epsilon
    assert ours < 0.5 * basic
    # One section alone at the whole δ is at most as private as the file of d of them (its stated
    # bound is within 0.31 % of its exact ε, bench/RESULTS.md §14).
    assert ours >= shuffle.shuffled_guarantee(n, eps0, delta, 2).epsilon / 1.0031


def test_mixed_sections_and_no_delta_floor():
    sections = [
        Section(10_000, 1.0, 2),
        Section(10_000, 1.0, 3),
        Section(5_000, 0.8, None),
        Section(1, 0.5),
    ]
    for delta in (1e-6, 1e-50, 1e-100):
        ours = composed_epsilon(sections, delta)
        share = delta / len(sections)
        basic = sum(
            shuffle.shuffled_guarantee(s.n, s.local_epsilon, share, s.k).epsilon
            if s.n > 1
            else s.local_epsilon
            for s in sections
        )
        assert ours is not None and 0.0 < ours < basic, delta


def test_a_k_ary_section_takes_the_smallest_sound_profile():
    # k ≥ 3: the blanket, the 2023 pair and randomized response's profile, whichever is least.
    n, eps0, k = 2_000, 1.0, 4
    profile = shuffle_compose.section_log_delta(Section(n, eps0, k), 1e-12)
    pair = shuffle.clone_pair(n, eps0, k)
    for eps in (0.0, 0.1, 0.3, 0.9):
        blanket = blanket_log_delta(n, eps0, k, eps, 1e-12)
        rr = shuffle_compose._rr_log_delta(eps0, eps)
        assert profile(eps) == min(blanket, pair_log_delta(pair, eps), rr)
        assert profile(eps) <= pair_log_delta(pair, eps)
    assert profile(0.1) < pair_log_delta(pair, 0.1) - 0.1  # the blanket is what lowers it
    # and the file of such sections is stated at least 1.2× lower than with the 2023 pair alone
    basic_2023 = 3 * shuffle._epsilon(shuffle.clone_pair(n, eps0, k), eps0, 1e-6 / 3)
    assert (composed_epsilon([Section(n, eps0, k)] * 3, 1e-6) or 0.0) < basic_2023 / 1.2


def test_nothing_to_compose():
    assert composed_epsilon([Section(100, 1.0, 2)], 1e-6) is None
    assert composed_epsilon([Section(100, 1.0, 2), Section(0, 1.0, 2)], 1e-6) is None


def test_the_dots_meet_the_profile_at_every_grid_point():
    section = Section(500, 1.5, 2)
    log_delta = shuffle_compose.section_log_delta(section, 1e-12)
    grid = np.linspace(0.0, 1.5, 33)
    values = np.exp([log_delta(float(e)) for e in grid])
    losses, masses, infinite = shuffle_compose._dots(grid, values)
    assert (masses >= 0).all() and masses.sum() + infinite == pytest.approx(1.0, abs=1e-12)
    for eps, want in zip(grid, values, strict=True):
        for sign, target in ((1.0, want), (-1.0, -math.expm1(-eps) + math.exp(-eps) * want)):
            got = float(np.sum(masses * np.maximum(0.0, -np.expm1(sign * eps - losses)))) + infinite
            assert got >= target * (1 - 1e-12)
            assert got <= target * (1 + 1e-6) + 1e-15


def test_a_section_below_the_floor_still_leaks_its_delta():
    # Review finding: a section with δ_q(0) ≤ δ·TAIL/d was composed as if it leaked nothing, so
    # two RR sections plus this one were stated ε = 0 at a δ below the file's true δ(0). Its
    # δ_q(0) is now charged at every ε (ω_∞).
    big = Section(10**6, 0.008, 2)
    losses, masses, leak = shuffle_compose._section_atoms(big, 0.1, 3, shuffle_compose.POINTS)
    assert len(losses) == 1 and masses[0] == pytest.approx(1.0 - leak)
    assert leak > 3.19e-6  # the worst split's TV: (p − q)·max pmf ≈ 3.19e-6 (review, exact)
    a = 0.19865069679528446
    p = math.exp(a) / (1.0 + math.exp(a))
    rr_only = p * p * -math.expm1(-2.0 * a)  # δ(0) of the two RR sections, yes → no in both
    delta = rr_only * (1.0 + 1e-9)
    assert composed_epsilon([Section(1, a), Section(1, a), big], delta) > 0.0


def test_a_deadline_bounds_the_time():
    with pytest.raises(TimeoutError):
        composed_epsilon([Section(100, 1.0, 2)] * 2, 1e-6, deadline=time.monotonic() - 1.0)


@pytest.mark.parametrize("eps0", [0.5, 1.0])
def test_a_profile_no_pair_has_falls_back_to_randomized_response(eps0):
    # Review finding: at n = 3 the profile's dots need more than all the mass (it is randomized
    # response's own, plus rounding), which raised; such a section now composes as RR's pair
    # (which dominates any ε₀-DP section), and the file stays sound.
    grid = np.linspace(0.0, eps0, 65)
    log_delta = shuffle_compose.section_log_delta(Section(3, eps0, 2), 1e-10)
    with pytest.raises(ArithmeticError):
        shuffle_compose._dots(grid, np.exp([log_delta(float(e)) for e in grid]))
    true = true_file_epsilon(3, eps0, 2, 1e-3)
    ours = composed_epsilon([Section(3, eps0, 2)] * 2, 1e-3)
    assert ours is not None and true <= ours <= 2 * eps0
