"""dpcore.central.selection: the exponential mechanism, sampled exactly, against its exact pmf;
its event composed as ε-bounded-range by the accountants.

χ² tests at α = 1e-6. The sampler draws from ``secrets`` (unseedable), so each test is a
hypothesis test: under H0 (the sampler has the stated pmf) Pearson's statistic over k cells is
asymptotically χ²_{k−1} once every expected count is ≥ 5 (cells are merged until they are), so
rejecting when it exceeds ``chi2.ppf(1 − 1e-6, k − 1)`` fails a correct sampler once in a million
runs; a sampler off by a few per cent in any cell's probability fails it almost surely at these n
(the non-centrality n·Σ(p − p′)²/p ≫ the critical value).
"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dpcore.central import accounting, selection
from dpcore.central.events import BoundedRangeEvent, PureDPEvent
from dpcore.central.noise import default_randbelow
from dpcore.central.rdp import event_rdp
from dpcore.errors import ArgumentError

ALPHA = 1e-6
N = 20_000


def _chi2(observed: np.ndarray, pmf: list[float], n: int) -> None:
    expected = np.asarray(pmf) * n
    order = np.argsort(-expected)  # merge the small cells, from the smallest, into one
    obs, exp = [], []
    rest_o = rest_e = 0.0
    for i in order:
        if expected[i] >= 5:
            obs.append(observed[i])
            exp.append(expected[i])
        else:
            rest_o += observed[i]
            rest_e += expected[i]
    if rest_e > 0:
        obs.append(rest_o)
        exp.append(rest_e)
    o, e = np.asarray(obs, dtype=float), np.asarray(exp, dtype=float)
    stat = float(((o - e) ** 2 / e).sum())
    df = len(o) - 1
    assert df >= 2
    critical = stats.chi2.ppf(1 - ALPHA, df)  # α = 1e-6 (module notes)
    assert stat < critical, f"chi2={stat:.1f} > {critical:.1f} (df={df})"


def _draws(candidates: selection.Candidates, eps: Fraction, sampler: str) -> np.ndarray:
    randbelow = default_randbelow()
    levels, order = selection._levels(candidates)
    rate = eps / candidates.range_sensitivity
    counts = np.zeros(len(candidates.scores))
    members = np.zeros(candidates.members)
    starts = np.cumsum((0, *candidates.sizes))
    packing = selection._packing(
        [levels[j] for j in order], [candidates.sizes[j] for j in order], float(rate)
    )
    for _ in range(N):
        if sampler == "uniform":
            j, m = selection._uniform(candidates, levels, rate, randbelow)
        elif sampler == "packed":
            j, m = selection._packed(candidates, levels, order, packing, rate, randbelow)
        else:
            j, m = selection.select(candidates, eps)
        assert 0 <= m < candidates.sizes[j]
        counts[j] += 1
        members[starts[j] + m] += 1
    # Within a group every member is equally likely: a χ² over the members of the largest group.
    big = int(np.argmax(candidates.sizes))
    inside = members[starts[big] : starts[big + 1]]
    if inside.size >= 3 and counts[big] >= 5 * inside.size:
        _chi2(inside, [1 / inside.size] * inside.size, int(counts[big]))
    return counts


CASES = {
    # scores, sizes, R, ε: groups of unequal sizes, a big far group, ties at the top.
    "mixed": ((0, -1, -2, -3, -5, -8), (1, 3, 2, 7, 40, 200), Fraction(2), Fraction(3)),
    "flat": ((4, 4, 3, 1), (2, 2, 5, 1), Fraction(1), Fraction(1, 3)),
    "float_eps": ((10, 7, 6, 2, 0), (1, 1, 4, 9, 30), Fraction(1), Fraction(0.7)),
}


@pytest.mark.parametrize("sampler", ["uniform", "packed", "select"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_exponential_mechanism_matches_exact_pmf(case: str, sampler: str) -> None:
    scores, sizes, r, eps = CASES[case]
    candidates = selection.Candidates(scores, sizes, r)
    counts = _draws(candidates, eps, sampler)
    _chi2(counts, selection.exact_pmf(candidates, eps), N)


def test_quantile_draws_match_the_pmf_on_real_grid() -> None:
    values = [1.0, 2.0, 2.0, 3.5, 4.0, 7.25, 9.0, 9.0, 9.5]
    qc = selection.quantile_candidates(
        values, lo=Fraction(0), hi=Fraction(10), step=Fraction(1, 2), q=0.5
    )
    counts = _draws(qc.candidates, Fraction(1), "select")
    _chi2(counts, selection.exact_pmf(qc.candidates, Fraction(1)), N)


def test_quantile_scores_are_ranks() -> None:
    qc = selection.quantile_candidates(
        [1.0, 2.0, 3.0, 4.0], lo=Fraction(0), hi=Fraction(5), step=Fraction(1), q=0.5
    )
    # points 0..5: below/above (0,4) (0,3) (1,2) (2,1) (3,0) (4,0); score −|L − G| for q = ½.
    assert qc.size == 6
    assert qc.candidates.scores == (-4, -3, -1, -1, -3, -4)
    assert qc.candidates.range_sensitivity == 2
    assert [qc.value(j, 0) for j in range(6)] == [Fraction(k) for k in range(6)]
    q9 = selection.quantile_candidates(
        [], lo=Fraction(0), hi=Fraction(1), step=Fraction(3, 10), q=0.9
    )
    assert q9.q == Fraction(9, 10) and q9.candidates.range_sensitivity == 2 * 9
    assert q9.size == 5 and q9.point(4) == 1  # 0, .3, .6, .9 and hi


def test_quantile_sensitivity_bound_holds_for_neighbours() -> None:
    """Adding any one value moves every score by at most R/2 = max(a, b − a): the change vector
    lies in an interval of length R (the ε-DP and ε-BR proof's premise)."""
    base = [0.5, 1.5, 1.5, 2.5, 6.0, 8.0]
    for q in (0.5, 0.9, 0.25):
        one = selection.quantile_candidates(
            base, lo=Fraction(0), hi=Fraction(10), step=Fraction(1, 4), q=q
        )
        for extra in (0.0, 1.5, 1.6, 5.0, 10.0):
            two = selection.quantile_candidates(
                [*base, extra], lo=Fraction(0), hi=Fraction(10), step=Fraction(1, 4), q=q
            )

            def expand(qc: selection.QuantileCandidates) -> list[int]:
                out = []
                for u, size in zip(qc.candidates.scores, qc.candidates.sizes, strict=True):
                    out += [u] * size
                return out

            change = np.subtract(expand(two), expand(one))
            assert change.max() - change.min() <= one.candidates.range_sensitivity


def test_bad_inputs_are_refused() -> None:
    for q in (0.0, 1.0, -0.1, 1.5):
        with pytest.raises(ArgumentError):
            selection.quantile_fraction(q)
    with pytest.raises(ArgumentError):
        selection.Candidates((), (), Fraction(1))
    with pytest.raises(ArgumentError):
        selection.select(selection.count_candidates([1, 2]), Fraction(0))


def test_ten_thousand_point_grid_samples_fast() -> None:
    """Issue 30: ≤ 10 ms per draw on a 10⁴-point grid (the bench measures it; here a loose 5×
    margin for a loaded CI machine)."""
    rng = np.random.default_rng(7)  # the data, not noise
    values = rng.normal(50, 10, 2000).tolist()
    qc = selection.quantile_candidates(
        values, lo=Fraction(0), hi=Fraction(100), step=Fraction(1, 100), q=0.5
    )
    assert qc.size == 10_001
    start = time.perf_counter()
    for _ in range(20):
        selection.select(qc.candidates, Fraction(1))
    assert (time.perf_counter() - start) / 20 < 0.05


def test_bounds_are_data_independent_formulas() -> None:
    assert selection.score_gap_bound(
        members=10, epsilon=1.0, range_sensitivity=1.0, beta=0.05
    ) == pytest.approx(math.log(200))
    assert selection.rank_error_bound(members=10, epsilon=1.0, q=0.5, beta=0.05) == pytest.approx(
        math.log(200)
    )


# --------------------------------------------------------------------------- accounting


def test_bounded_range_event_is_charged_pure_epsilon_alone() -> None:
    """Basic composition charges ε itself; at δ > 0 a composing accountant may give a little
    less (ε²/8-zCDP at δ = 1e-6 is below 0.5): both are sound for an ε-BR mechanism."""
    alone = accounting.epsilon_spent([BoundedRangeEvent(0.5)], 1e-6)
    assert alone.candidates["basic"] == 0.5
    assert alone.epsilon <= 0.5


def test_bounded_range_composes_tighter_than_pure_and_never_below_true() -> None:
    """ε-BR is ε²/8-zCDP (Cesar & Rogers 2021): k = 100 at ε = 0.1 compose below k pure ε-DP
    events, and every accountant still gives ≥ the pure-DP optimal bound's BR counterpart
    lower limit (k ε²/8 + ... ≥ ρ, the zCDP floor)."""
    k, eps, delta = 100, 0.1, 1e-6
    br = accounting.epsilon_spent([BoundedRangeEvent(eps)] * k, delta)
    pure = accounting.epsilon_spent([PureDPEvent(eps)] * k, delta)
    assert br.epsilon < pure.epsilon
    assert br.epsilon <= k * eps
    # Never below what ε²/8-zCDP can guarantee at all: ε ≥ ρ = kε²/8.
    assert br.epsilon >= k * eps * eps / 8
    assert accounting.zcdp_rho([BoundedRangeEvent(eps)] * k) == pytest.approx(k * eps * eps / 8)
    for alpha in (1.5, 2.0, 8.0, 64.0):
        assert event_rdp(BoundedRangeEvent(eps), alpha) <= event_rdp(PureDPEvent(eps), alpha)
        assert event_rdp(BoundedRangeEvent(eps), alpha) <= alpha * eps * eps / 8 + 1e-15


def test_ledger_state_composes_bounded_range_soundly() -> None:
    """The O(1) stored state (basic / zCDP / RDP) composes BR events as the tight accountant's
    own zCDP/RDP candidates do, never below them (it is the fallback under the lock)."""
    from dpcore.central import ledger_state

    events = [BoundedRangeEvent(0.2)] * 30
    state = ledger_state.compose(ledger_state.EMPTY, events)
    assert state.rho == pytest.approx(30 * 0.04 / 8)
    assert state.pure == pytest.approx(6.0)
    stored = ledger_state.bound(state, 1e-6)
    tight = accounting.epsilon_spent(events, 1e-6)
    assert stored.epsilon >= tight.epsilon
    assert stored.candidates["zcdp"] >= tight.candidates["zcdp"]
