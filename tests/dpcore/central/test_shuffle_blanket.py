"""The privacy blanket for one k-ary randomized response (dpcore.central.shuffle_blanket):

- against its own view enumerated directly (who is in the blanket, the target's report, every
  split), it is an upper bound and equal up to the stated safety factor;
- against every dataset of the others — the exact law of the whole k-ary histogram — it is
  never below the true δ(ε);
- at k = 2 it is the 2023 clone pair; it never states more than ``clones-2023`` would, and
  the app names it for k ≥ 3."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest

from dpcore.central import shuffle
from dpcore.central.shuffle_blanket import blanket_epsilon, blanket_log_delta
from dpcore.central.shuffle_pair import TINY_EPS0, pair_log_delta
from testsupport.kary_exact import histogram_laws, hockey

# The bound's own slack: δ·e^(10⁻⁶) for rounding (module notes, 5), plus the a₀ slack.
SAFETY = 1e-6


def binom(k: int, n: int, p: float) -> float:
    if k < 0 or k > n:
        return 0.0
    return math.comb(n, k) * p**k * (1.0 - p) ** (n - k)


def view_delta(n: int, eps0: float, k: int, eps: float) -> float:
    """δ(ε) of the blanket's view, enumerated: C blanket reports in {x, x′}, U outside, the
    target's report T, and a (reports equal to x) summed directly — no blocks, no monotonicity."""
    m, e0, g = n - 1, math.exp(eps0), math.exp(eps)
    r = 1.0 / (e0 + k - 1.0)
    q = (k - 2) * r / (1.0 - 2.0 * r)
    # By (s, o): the target inside {x, x′} gives (C + 1, U), outside (C, U + 1).
    total = 0.0
    for s in range(n + 1):
        for o in range(n + 1 - s):
            px, py = np.zeros(s + 1), np.zeros(s + 1)
            c_in, c_out = s - 1, s
            if c_in >= 0 and o <= m - c_in:
                w = binom(c_in, m, 2.0 * r) * binom(o, m - c_in, q)
                split = np.array([binom(a, c_in, 0.5) for a in range(c_in + 1)])
                px[1:] += w * e0 * r * split
                px[:-1] += w * r * split
                py[1:] += w * r * split
                py[:-1] += w * e0 * r * split
            if c_out <= m and 1 <= o and o - 1 <= m - c_out and k > 2:
                w = binom(c_out, m, 2.0 * r) * binom(o - 1, m - c_out, q) * (k - 2) * r
                split = np.array([binom(a, c_out, 0.5) for a in range(c_out + 1)])
                px += w * split
                py += w * split
            total += float(np.maximum(px - g * py, 0.0).sum())
    return total


@pytest.mark.parametrize(("n", "k"), [(2, 3), (12, 3), (12, 4), (20, 7), (30, 3)])
@pytest.mark.parametrize("eps0", [0.3, 1.0, 3.0])
def test_the_bound_is_its_view_enumerated(n: int, k: int, eps0: float) -> None:
    for eps in (0.0, 0.05, 0.3 * eps0, 0.8 * eps0):
        exact = view_delta(n, eps0, k, eps)
        ours = math.exp(blanket_log_delta(n, eps0, k, eps))
        # never below (sound), and equal up to the safety factor (blocks are one s wide here)
        assert exact * (1 - 1e-12) <= ours <= exact * math.exp(2 * SAFETY) + 1e-300, (eps, exact)


@pytest.mark.parametrize(("n", "k"), [(7, 3), (6, 4), (5, 5)])
@pytest.mark.parametrize("eps0", [0.5, 1.5, 4.0])
def test_every_dataset_of_the_others_is_below_the_bound(n: int, k: int, eps0: float) -> None:
    # Every multiset of the others' values (values 0 and 1 are the target's x and x′; 2 … k − 1
    # the rest), the exact law of the whole histogram, both directions.
    datasets = list(itertools.combinations_with_replacement(range(k), n - 1))
    laws = [histogram_laws(n, eps0, k, others) for others in datasets]
    for eps in (0.0, 0.1, 0.5 * eps0, 0.9 * eps0):
        bound = math.exp(blanket_log_delta(n, eps0, k, eps))
        worst = max(hockey(p, q, eps) for p, q in laws)
        assert worst <= bound * (1 + 1e-12), (eps, worst, bound)


def test_it_is_tight_where_the_others_all_hold_a_third_value() -> None:
    # At ε₀ = 3 the dataset "every other on a third value" reaches the blanket's δ to 0.1 %:
    # knowing who drew at random costs (almost) nothing there. (At ε₀ = 1 it costs more at large ε:
    # bench/RESULTS.md §14 measures it in ε.)
    n, k, eps0 = 8, 3, 3.0
    p, q = histogram_laws(n, eps0, k, (2,) * (n - 1))
    for eps in (0.1, 0.6):
        bound = math.exp(blanket_log_delta(n, eps0, k, eps))
        assert bound <= 1.001 * hockey(p, q, eps)


@pytest.mark.parametrize("n", [60, 200])
@pytest.mark.parametrize("eps0", [0.5, math.log(3), 3.0])
def test_at_k_2_it_is_the_2023_clone_pair(n: int, eps0: float) -> None:
    pair = shuffle.clone_pair(n, eps0, 2)
    for eps in (0.0, 0.1, 0.4 * eps0):
        ours = blanket_log_delta(n, eps0, 2, eps)
        theirs = pair_log_delta(pair, eps, exact=True)
        if theirs > -700:
            assert ours == pytest.approx(theirs, abs=3 * SAFETY)


@pytest.mark.parametrize("k", [3, 5, 20])
@pytest.mark.parametrize("n", [100, 10_000, 1_000_000])
def test_never_above_the_2023_pair(n: int, k: int) -> None:
    # The blanket computes the target's mixture exactly where the 2023 pair uses joint convexity.
    for eps0 in (0.5, 1.0, 3.0):
        pair = shuffle.clone_pair(n, eps0, k)
        for delta in (1e-6, 1e-30):
            ours = blanket_epsilon(n, eps0, delta, k)
            assert ours <= shuffle._epsilon(pair, eps0, delta) * (1 + 2e-4) + 1e-9
            assert 0.0 <= ours <= eps0


def test_deep_delta_has_no_floor() -> None:
    # Deep δ: the view enumerated in float64 (a sum of non-negative terms, no cancellation)
    # against the bound with the floor at 1e-100, where δ is 1e-20 … 1e-49.
    n, k, eps0 = 120, 3, 0.3
    for eps in (0.2, 0.27, 0.295):
        exact = view_delta(n, eps0, k, eps)
        assert 1e-50 < exact < 1e-19
        ours = math.exp(blanket_log_delta(n, eps0, k, eps, floor_delta=1e-100))
        assert exact * (1 - 1e-9) <= ours <= exact * math.exp(2 * SAFETY), eps
    eps = blanket_epsilon(n, eps0, 1e-40, k)
    assert math.exp(blanket_log_delta(n, eps0, k, eps, 1e-40)) <= 1e-40
    assert view_delta(n, eps0, k, eps * (1 - 2e-4)) > 1e-40 * math.exp(-2 * SAFETY)


def test_a_floor_above_delta_stays_an_upper_bound() -> None:
    # The windows are cut where their mass is ≤ floor·e^−30, charged whole: looser, never below.
    n, k, eps0 = 120, 3, 0.3
    for eps in (0.1, 0.27):
        exact = view_delta(n, eps0, k, eps)
        assert math.exp(blanket_log_delta(n, eps0, k, eps, floor_delta=1e-3)) >= exact


def test_edges() -> None:
    with pytest.raises(ValueError, match="k ≥ 2"):
        blanket_log_delta(10, 1.0, 1, 0.1)
    with pytest.raises(ValueError, match="eps must be ≥ 0"):
        blanket_log_delta(10, 1.0, 3, -0.1)
    assert blanket_epsilon(1, 1.0, 1e-6, 3) == 1.0  # one report: nothing gained
    assert blanket_log_delta(1, 1.0, 3, 0.5) == 0.0
    assert blanket_log_delta(1, 1.0, 3, 1.0) == -math.inf
    assert blanket_epsilon(10, 800.0, 1e-6, 3) == 800.0  # beyond e^ε₀: no amplification stated
    # Large n and tiny ε₀: amplifies to (near) nothing, within the bisection's step.
    assert 0.0 <= blanket_epsilon(1_000_000, 0.01, 1e-6, 3) < 0.01


def test_the_app_states_it_for_k_at_least_3() -> None:
    for k in (3, 4, 12):
        g = shuffle.shuffled_guarantee(2000, 1.0, 1e-6, k)
        assert g.method == "privacy-blanket" and g.method in shuffle.METHODS
        assert g.epsilon == blanket_epsilon(2000, 1.0, 1e-6, k)
    assert shuffle.shuffled_guarantee(2000, 1.0, 1e-6, 2).method == "histogram-splits"


def exact_two_reports_delta(eps0: float, eps: float) -> float:
    """n = 2, k = 3, the other on the third value: δ(ε) of the histogram, exactly in mpmath."""
    mpmath.mp.dps = 60
    e0, g = mpmath.exp(mpmath.mpf(eps0)), mpmath.exp(mpmath.mpf(eps))
    r = 1 / (e0 + 2)

    def report(value: int) -> list[mpmath.mpf]:
        return [e0 * r if v == value else r for v in range(3)]

    laws = []
    for target in (0, 1):
        law: dict[tuple[int, int], mpmath.mpf] = {}
        for a, pa in enumerate(report(2)):
            for b, pb in enumerate(report(target)):
                key = tuple(sorted((a, b)))
                law[key] = law.get(key, mpmath.mpf(0)) + pa * pb
        laws.append(law)
    p, q = laws
    return float(sum(max(p[y] - g * q.get(y, 0), 0) for y in p))


@pytest.mark.parametrize(
    ("eps0", "eps"),
    [(3.1622776601683795e-10, 3.162246037391778e-10), (1.7e-12, 0.0), (3e-8, 0.0)],
)
def test_a_tiny_local_epsilon_states_itself(eps0: float, eps: float) -> None:
    # The adversarial review's case: at ε₀ ≈ 3e-8 and below, e^ε₀ − 1 lost to rounding made the
    # bound fall 1.7 % below the true δ. Below TINY_EPS0 nothing is computed: ε₀ is stated.
    assert eps0 < TINY_EPS0
    true = exact_two_reports_delta(eps0, eps)
    assert true > 0
    assert math.exp(blanket_log_delta(2, eps0, 3, eps)) >= true
    assert blanket_epsilon(2, eps0, true * (1 - 1e-5), 3) == eps0
    for k in (2, 3, None):
        assert shuffle.shuffled_guarantee(10, eps0, 1e-6, k).epsilon == eps0
    # ε₀ so small that e^ε₀ rounds to 1 used to divide by zero
    assert shuffle.shuffled_guarantee(10, 1e-20, 0.1, 4).epsilon == 1e-20


def test_just_above_the_tiny_floor_it_is_still_sound() -> None:
    eps0 = 2 * TINY_EPS0
    for eps in (0.0, 0.5 * eps0, 0.999 * eps0):
        true = exact_two_reports_delta(eps0, eps)
        assert math.exp(blanket_log_delta(2, eps0, 3, eps)) >= true


def test_large_local_epsilon_is_not_swamped_by_the_a0_slack() -> None:
    # Review: a slack of 10⁻⁹(a₀ + 1) added ≈ 2·10⁻⁹·e^ε to δ, so at ε₀ = 20 the bound was 0.97
    # against the view's exact 0.0198. With 10⁻¹³ it adds ≈ 2·10⁻¹³·e^ε ≈ 1e-4: within 1 %.
    exact = view_delta(2, 20.0, 3, 19.98)
    ours = math.exp(blanket_log_delta(2, 20.0, 3, 19.98))
    assert exact <= ours <= 1.01 * exact
