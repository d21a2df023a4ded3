"""Private selection: the exponential mechanism, sampled exactly (docs/formulas.md#selection).

Candidates come in *groups* of equal score: group j has ``sizes[j]`` members and the integer
score u_j (higher is better). Each member r is released with probability

    P[r] = exp(−λ·d_r) / Σ_s exp(−λ·d_s),   d_r = u* − u_r ≥ 0,  λ = ε / R,

where R is the *range sensitivity* of the scores: for any two neighbouring datasets, the change
vector (u_r(D) − u_r(D′))_r lies in an interval of length ≤ R. Then ln P[r|D]/P[r|D′] moves
by at most λR = ε over the members and ε-DP and ε-bounded-range follow (Durfee & Rogers 2019,
Lemma 3.2; the proof in docs/formulas.md#selection). The charge is
:class:`~dpcore.central.events.BoundedRangeEvent` (ε²/8-zCDP where an accountant composes).

**Exact sampling.** No floating-point exponential is evaluated on the sampling path: every
random decision is an exact Bernoulli(e^{−x}) with rational x or an exact Geometric(1 − e^{−λ})
(Canonne, Kamath & Steinke 2020, Algorithms 1–2: :mod:`dpcore.central.noise`), or a uniform
integer (:mod:`dpcore.central.csprng`, the OS CSPRNG). Two rejection samplers give the same law:

* *uniform*: a uniformly random member r, kept with probability e^{−λ d_r};
* *packed*: members sorted by level, W to a *virtual level* (member i at v_i = low + ⌊i/W⌋,
  ``low`` ≤ 0 chosen so that v_i ≤ d_i); a virtual level k = low + Geometric(1 − e^{−λ}) and a
  uniform slot < W propose member i, kept with probability e^{−λ(d_i − k)}.

Each accepted member has probability ∝ e^{−λ d_r} (uniform: e^{−λd}/N; packed:
(1 − e^{−λ})e^{−λ(k − low)}/W · e^{−λ(d − k)}). Their expected trials are N/Z and
W·e^{−λ·low}/((1 − e^{−λ})Z) (Z = Σ_r e^{−λd_r} ≥ 1); W and the cheaper sampler are picked by a
float *estimate* — which affects speed only, never the law of the output.

**Quantiles** (:func:`quantile_candidates`): q = a/b, grid points g over [lo, hi] with the
step s; the rank score u(g) = −|(b − a)·#{x < g} − a·#{x > g}| (Smith 2011; OpenDP's
``make_private_quantile`` uses the same score). Adding one value y moves u by at most
M = max(a, b − a) either way, so R = 2M. **Counts** (:func:`count_candidates`): the score of an
option is its count; one record adds one to at most one count, so the change vector lies in
[0, 1]: R = 1.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dpcore.central.noise import default_randbelow, exact_bernoulli_exp, exact_geometric
from dpcore.errors import ArgumentError

__all__ = [
    "QUANTILE_MAX_DENOMINATOR",
    "Candidates",
    "QuantileCandidates",
    "count_candidates",
    "exact_pmf",
    "grid_size",
    "quantile_candidates",
    "quantile_fraction",
    "rank_error_bound",
    "score_gap_bound",
    "select",
]

#: q is read as the nearest fraction with a denominator ≤ this (0.9 → 9/10).
QUANTILE_MAX_DENOMINATOR = 10**6
#: Most members (grid points) a selection takes: above it sampling could exceed its time budget.
MAX_MEMBERS = 10**6


@dataclass(frozen=True)
class Candidates:
    """Groups of members with equal integer ``scores``; ``sizes[j]`` members in group j; R the
    range sensitivity of the scores (an int or a Fraction > 0)."""

    scores: tuple[int, ...]
    sizes: tuple[int, ...]
    range_sensitivity: Fraction

    def __post_init__(self) -> None:
        if not self.scores or len(self.scores) != len(self.sizes):
            raise ArgumentError("candidates", "need one size per score, at least one group")
        if any(size < 1 for size in self.sizes):
            raise ArgumentError("candidates", "every group has at least one member")
        if self.range_sensitivity <= 0:
            raise ArgumentError("range_sensitivity", "must be > 0")

    @property
    def members(self) -> int:
        return sum(self.sizes)


def _rate(epsilon: Fraction, candidates: Candidates) -> Fraction:
    if epsilon <= 0:
        raise ArgumentError("epsilon", "must be > 0")
    return epsilon / candidates.range_sensitivity


def _levels(candidates: Candidates) -> tuple[list[int], list[int]]:
    """Every group's level d_j = u* − u_j, and the groups' order by level."""
    best = max(candidates.scores)
    levels = [best - u for u in candidates.scores]
    return levels, sorted(range(len(levels)), key=levels.__getitem__)


def _uniform(
    candidates: Candidates, levels: list[int], rate: Fraction, randbelow: Callable[[int], int]
) -> tuple[int, int]:
    ends = list(np.cumsum(candidates.sizes).tolist())
    total = ends[-1]
    while True:
        r = randbelow(total)
        j = bisect.bisect_right(ends, r)
        if exact_bernoulli_exp(rate * levels[j], randbelow):
            return j, r - (ends[j] - candidates.sizes[j])


@dataclass(frozen=True)
class _Packing:
    """Members sorted by level, member i at virtual level v_i = low + ⌊i/width⌋ ≤ its level."""

    width: int
    low: int
    cost: float  # expected trials × Z (a float estimate, for choosing only)


def _packing(sorted_levels: list[int], sizes: list[int], rate: float) -> _Packing:
    """The width W (a power of two) minimising the expected trials W·e^{−λ·low}/(1 − e^{−λ})
    of the packed sampler, low = min(0, min_i(d_i − ⌊i/W⌋)) (module notes)."""
    keep = -math.expm1(-min(rate, 700.0))
    levels = np.asarray(sorted_levels, dtype=np.float64)  # float: the choice is an estimate
    last = np.cumsum(np.asarray(sizes, dtype=np.int64)) - 1  # each group's tightest member
    best: _Packing | None = None
    width, total = 1, int(last[-1]) + 1
    while True:
        low = int(min(0.0, float(np.min(levels - last // width))))
        cost = width * math.exp(min(-rate * low, 700.0)) / keep
        if best is None or cost < best.cost:
            best = _Packing(width, low, cost)
        if width >= total:
            return best
        width *= 2


def _packed(
    candidates: Candidates,
    levels: list[int],
    order: list[int],
    packing: _Packing,
    rate: Fraction,
    randbelow: Callable[[int], int],
) -> tuple[int, int]:
    """Propose virtual level k = low + Geometric(1 − e^{−λ}) and a slot < W, i.e. member
    i = (k − low)·W + slot (rejected if none); keep it with probability e^{−λ(d_i − k)}. Each
    member is proposed with probability (1 − e^{−λ})e^{−λ(k − low)}/W and kept with
    e^{−λ(d_i − k)}: ∝ e^{−λd_i}, the target (d_i ≥ k by the packing)."""
    sizes = [candidates.sizes[j] for j in order]
    ends = list(np.cumsum(sizes).tolist())
    total = ends[-1]
    width, low = packing.width, packing.low
    while True:
        shift = exact_geometric(rate, randbelow)
        i = shift * width + randbelow(width)
        if i >= total:
            continue
        g = bisect.bisect_right(ends, i)
        j = order[g]
        if exact_bernoulli_exp(rate * (levels[j] - (low + shift)), randbelow):
            return j, i - (ends[g] - sizes[g])


def select(
    candidates: Candidates,
    epsilon: Fraction,
    randbelow: Callable[[int], int] | None = None,
) -> tuple[int, int]:
    """One exact draw of the exponential mechanism: (group index, member index within it),
    member r drawn with probability ∝ exp(−ε·(u* − u_r)/R) (module notes). ``epsilon`` is the
    exact rational ε the sampler uses (the caller charges a float ≥ it)."""
    rate = _rate(epsilon, candidates)
    draw = randbelow or default_randbelow()
    levels, order = _levels(candidates)
    packing = _packing(
        [levels[j] for j in order], [candidates.sizes[j] for j in order], float(rate)
    )
    # The cheaper sampler by a float estimate of expected trials × Z (speed only, never the law).
    if packing.cost < candidates.members:
        return _packed(candidates, levels, order, packing, rate, draw)
    return _uniform(candidates, levels, rate, draw)


def exact_pmf(candidates: Candidates, epsilon: Fraction) -> list[float]:
    """P[group j] = sizes_j·e^{−λd_j}/Z, in floats: for tests and benches, never for sampling
    (and never shown before a release: it depends on the data)."""
    rate = float(_rate(epsilon, candidates))
    levels, _ = _levels(candidates)
    weights = [s * math.exp(-rate * d) for s, d in zip(candidates.sizes, levels, strict=True)]
    z = math.fsum(weights)
    return [w / z for w in weights]


# --------------------------------------------------------------------------- quantiles


@dataclass(frozen=True)
class QuantileCandidates:
    """The grid lo, lo + s, …, (hi) of ``size`` points and its groups: group j holds the points
    from ``starts[j]`` on."""

    candidates: Candidates
    lo: Fraction
    hi: Fraction
    step: Fraction
    size: int
    starts: tuple[int, ...]
    q: Fraction

    def point(self, index: int) -> Fraction:
        """The grid's point ``index`` (exact; the last is hi)."""
        return min(self.lo + index * self.step, self.hi)

    def value(self, group: int, member: int) -> Fraction:
        return self.point(self.starts[group] + member)


def quantile_fraction(q: float) -> Fraction:
    """q as a fraction a/b with b ≤ :data:`QUANTILE_MAX_DENOMINATOR` (0.9 → 9/10)."""
    if not 0.0 < q < 1.0:
        raise ArgumentError("q", "must lie strictly between 0 and 1")
    return Fraction(q).limit_denominator(QUANTILE_MAX_DENOMINATOR)


def grid_size(lo: Fraction, hi: Fraction, step: Fraction) -> int:
    """How many points lo, lo + s, … ≤ hi, plus hi itself when it is not on the grid."""
    if hi < lo or step <= 0:
        raise ArgumentError("grid", "needs lo ≤ hi and a step > 0")
    count = int((hi - lo) // step) + 1
    if lo + (count - 1) * step < hi:
        count += 1
    if count > MAX_MEMBERS:
        raise ArgumentError("grid", f"more than {MAX_MEMBERS} points")
    return count


def quantile_candidates(
    values: Sequence[float], *, lo: Fraction, hi: Fraction, step: Fraction, q: float
) -> QuantileCandidates:
    """The grid over [lo, hi] with the step, scored by rank (module notes); R = 2·max(a, b − a).
    Consecutive points with equal counts below and above form one group. The counts compare
    the values with each point's nearest float (a fixed function of the data: no privacy
    matter, only where exactly a tie falls)."""
    frac = quantile_fraction(q)
    a, b = frac.numerator, frac.denominator
    size = grid_size(lo, hi, step)
    grid = float(lo) + np.arange(size, dtype=np.float64) * float(step)
    grid[-1] = float(hi)
    data = np.sort(np.asarray(values, dtype=np.float64))
    below = np.searchsorted(data, grid, side="left").astype(np.int64)
    above = (data.size - np.searchsorted(data, grid, side="right")).astype(np.int64)
    new = np.ones(size, dtype=bool)
    new[1:] = (below[1:] != below[:-1]) | (above[1:] != above[:-1])
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, size))
    # Python ints: (b − a)·#below may exceed int64 for b ≈ 10⁶ and 10¹³ values.
    scores = tuple(
        -abs((b - a) * n_below - a * n_above)
        for n_below, n_above in zip(below[starts].tolist(), above[starts].tolist(), strict=True)
    )
    candidates = Candidates(scores, tuple(sizes.tolist()), Fraction(2 * max(a, b - a)))
    return QuantileCandidates(candidates, lo, hi, step, size, tuple(starts.tolist()), frac)


def count_candidates(counts: Sequence[int]) -> Candidates:
    """One member per option, scored by its count: R = 1 (module notes)."""
    return Candidates(tuple(int(c) for c in counts), tuple(1 for _ in counts), Fraction(1))


# --------------------------------------------------------------------------- error bounds


def score_gap_bound(
    *, members: int, epsilon: float, range_sensitivity: float, beta: float
) -> float:
    """τ with P[u* − u_r ≥ τ] ≤ β: τ = R·ln(N/β)/ε (the exponential mechanism's utility bound,
    Dwork & Roth 2014, Thm. 3.11; Z ≥ 1 and at most N members lie beyond τ). Data-independent."""
    return range_sensitivity * math.log(members / beta) / epsilon


def rank_error_bound(*, members: int, epsilon: float, q: float, beta: float) -> float:
    """With probability ≥ 1 − β the released point g has |#{x < g} − q·m(g)| ≤ this, m(g) the
    values other than g: 2·max(q, 1 − q)·ln(N/β)/ε (the score is b times it)."""
    frac = quantile_fraction(q)
    a, b = frac.numerator, frac.denominator
    gap = score_gap_bound(
        members=members, epsilon=epsilon, range_sensitivity=2 * max(a, b - a), beta=beta
    )
    return gap / b
