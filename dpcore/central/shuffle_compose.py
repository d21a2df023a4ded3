"""The shuffled file of several sections, composed through their privacy profiles
(docs/formulas.md#composing-the-sections, issue 27).

Each section q of the file is its own mechanism — n_q shuffled reports of an ε₀_q-DP randomizer,
with independent coins and an independent shuffle — and a respondent's answers feed every section.
Basic composition states (Σ ε_q, Σ δ_q). This module states instead the ε that the *optimal*
composition of mechanisms with the sections' privacy profiles allows, never more than needed:

1. **A profile per section.** δ_q(ε) ≤ the smallest of the section's sound bounds
   (:mod:`dpcore.central.shuffle`: ``histogram-splits`` for a yes/no section, the clone pairs
   and, for one k-ary randomized response, ``privacy-blanket``) and of randomized response's
   profile (e^{ε₀} − e^ε)/(e^{ε₀} + 1), which dominates every ε₀-DP mechanism (Kairouz, Oh &
   Viswanath 2015, Thm. 2.1) — the shuffled section is one. Each is the max over both
   directions and every dataset of the others.
2. **A dominating pair from the profile ("connect the dots").** On the grid 0 = ε₀ < ε₁ < … < ε_m
   (m = :data:`POINTS`, up to ε_m where δ_q ≤ δ·:data:`TAIL`/d), the masses ω_j at loss +ε_j and
   ω_∞ = δ_q(ε_m) are solved from the top down so that δ_ω(ε) = Σ ω(1 − e^{ε−ℓ})₊ + ω_∞ equals
   δ_q(ε_j) at every ε_j (negative ones raised to 0, then all raised by the largest shortfall
   found when δ_ω is re-summed — non-negative terms only); the pair is symmetric, so loss −ε_j
   has mass e^{−ε_j}·ω_j (P at −ℓ is Q at +ℓ) and loss 0 the rest. Then δ_ω(−ε) =
   1 − e^{−ε}(1 − δ_ω(ε)), and δ_ω is linear in γ = e^ε between atoms. For every pair (P, Q) of
   the section's outputs (any dataset, either direction), δ_{P‖Q}(ε) ≤ δ_q(ε) for ε ≥ 0,
   δ_{P‖Q}(−ε) = 1 − e^{−ε}(1 − δ_{Q‖P}(ε)) ≤ δ_ω(−ε), δ_{P‖Q} is convex in γ (it is
   E_P[(1 − γe^{−L})₊]) so it lies under the chords, and below −ε_m δ_ω(ε) = 1 − e^ε(1 − ω_∞).
   So the pair dominates the section in both directions at every ε (Zhu, Dong & Wang 2022,
   Lemma 5; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "connect the dots").
   Special cases: a section of one report — or whose dots would need more than all the mass
   (a profile at randomized response's own: n ≈ 3) — is randomized response's pair (atoms ±ε₀),
   which dominates every ε₀-DP section; one with δ_q(0) ≤ the floor is the atom 0 with
   ω_∞ = δ_q(0) (what it may leak, charged at every ε).
3. **Composition.** Dominance survives products (Dong, Roth & Su 2019, Lemma C.3), so the file is
   dominated by the product of the sections' pairs, whose loss is the sum of independent losses:
   the ω's are moved *up* onto one lattice of step h (a larger loss only raises δ) and convolved
   (direct sums of non-negative terms: no cancellation, no δ floor), ω_∞ = 1 − Π(1 − ω_∞,q).
   ε is the upper end of a bisection on δ(ε)·(1 + 10⁻⁹) ≤ δ.

It is an upper bound on the file's true ε; it is tight for the sections' profiles up to the grid
(the chords and the lattice), which bench/RESULTS.md §14 measures. :func:`composed_epsilon`
returns None when nothing is to be composed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from dpcore.central.shuffle import clone_pair
from dpcore.central.shuffle_blanket import blanket_log_delta
from dpcore.central.shuffle_pair import TINY_EPS0, pair_log_delta
from dpcore.central.shuffle_splits import splits_bound, splits_log_delta

__all__ = ["POINTS", "TAIL", "Section", "composed_epsilon", "section_log_delta"]

FloatArray = npt.NDArray[np.float64]

#: Grid points per section profile.
POINTS = 64
#: ω_∞ of each section is at most δ·TAIL/d: the profile's grid stops there.
TAIL = 1e-4
# The lattice's step is at most this fraction of a grid step of the finest section.
_SUB = 8
# Multiply-adds the convolutions may take; above it the lattice is coarsened (still sound).
_WORK = 4e7
# Relative raise of the composed δ for the summation's rounding (all terms non-negative).
_ROUND = 1e-9
# Bisection: stop when hi − lo ≤ _REL·hi + _ABS.
_REL = 1e-4
_ABS = 1e-9


@dataclass(frozen=True)
class Section:
    """n shuffled reports of an ε₀-DP randomizer (``local_epsilon``); k when each report is one
    k-ary randomized response (k = 2: any yes/no design), else None."""

    n: int
    local_epsilon: float
    k: int | None = None


def _rr_log_delta(eps0: float, eps: float) -> float:
    """ln of randomized response's δ(ε) = (e^{ε₀} − e^ε)/(e^{ε₀} + 1) (0 for ε ≥ ε₀)."""
    if eps >= eps0:
        return -math.inf
    # (e^{ε₀} − e^ε)/(e^{ε₀} + 1) = (1 − e^{ε − ε₀})/(1 + e^{−ε₀})
    return math.log(-math.expm1(eps - eps0)) - math.log1p(math.exp(-eps0))


def section_log_delta(section: Section, floor_delta: float) -> Callable[[float], float]:
    """ε ↦ ln of an upper bound on the section's δ(ε) (module notes, 1), sharp down to
    ``floor_delta`` (the splits' windows are cut there; below, still an upper bound)."""
    n, eps0, k = section.n, section.local_epsilon, section.k
    if n < 2 or eps0 < TINY_EPS0:
        return lambda eps: _rr_log_delta(eps0, eps)
    if k == 2:
        bound = splits_bound(n, eps0, floor_delta)

        def splits(eps: float) -> float:
            return min(float(splits_log_delta(bound, eps).max()), _rr_log_delta(eps0, eps))

        return splits
    pair = clone_pair(n, eps0, k)
    if k is not None and k >= 3:

        def blanket(eps: float) -> float:
            return min(
                blanket_log_delta(n, eps0, k, eps, floor_delta),
                pair_log_delta(pair, eps),
                _rr_log_delta(eps0, eps),
            )

        return blanket

    def clones(eps: float) -> float:
        return min(pair_log_delta(pair, eps), _rr_log_delta(eps0, eps))

    return clones


def _top(log_delta: Callable[[float], float], eps0: float, log_target: float) -> float:
    """The smallest grid end ε_m (to 1 %) with δ(ε_m) ≤ e^log_target; ε₀ at most."""
    if log_delta(0.0) <= log_target:
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > 0.01 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if log_delta(mid) > log_target else (lo, mid)
    return hi


def _dots(grid: FloatArray, delta: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """The atoms (losses, masses) and ω_∞ of the symmetric pair whose δ_ω meets ``delta``
    (given at ``grid``, 0 = ε₀ < … < ε_m) at every grid point (module notes, 2).

    The masses ω_j at +ε_j are solved from the top down; the pair is symmetric, so the mass at
    −ε_j is e^{−ε_j}·ω_j (P at −ℓ is Q at +ℓ), which makes δ_ω(−ε) = 1 − e^{−ε}(1 − δ_ω(ε))
    without a cancellation-prone solve, and the atom at 0 takes the rest of the mass."""
    m = len(grid) - 1
    omega = np.zeros(m + 1)
    infinite = float(delta[m])
    for j in range(m, 0, -1):
        # δ_ω(ε_{j−1}) from the atoms already placed above ε_j, then ω_j closes the gap.
        reached = infinite + float(np.dot(omega[j:], -np.expm1(grid[j - 1] - grid[j:])))
        gap = float(delta[j - 1]) - reached
        omega[j] = max(0.0, gap / -math.expm1(grid[j - 1] - grid[j]))
    # Re-summed (non-negative terms only): raise every mass by the largest shortfall.
    worst = 1.0
    for j in range(m + 1):
        got = infinite + float(np.dot(omega[j + 1 :], -np.expm1(grid[j] - grid[j + 1 :])))
        if delta[j] > 0.0:
            worst = max(worst, float(delta[j]) / got if got > 0.0 else math.inf)
    if not math.isfinite(worst):
        raise ArithmeticError("profile not representable")
    up = omega[1:] * worst
    down = up * np.exp(-grid[1:])
    infinite *= worst
    rest = 1.0 - infinite - float(up.sum()) - float(down.sum())
    if rest < 0.0:
        # More than all the mass: no pair has this profile (the caller states basic).
        raise ArithmeticError("profile not representable")
    losses = np.concatenate((-grid[:0:-1], [0.0], grid[1:]))
    masses = np.concatenate((down[::-1], [rest], up))
    return losses, masses, infinite


@lru_cache(maxsize=64)
def _section_atoms(
    section: Section, delta: float, sections: int, points: int
) -> tuple[FloatArray, FloatArray, float]:
    """The atoms (losses, masses) and ω_∞ of one section's pair (module notes, 1–2); cached, as
    a file's sections often share n, ε₀ and k (the arrays are never written to)."""
    e0 = section.local_epsilon
    keep = 1.0 / (1.0 + math.exp(-e0))
    # Randomized response itself (atoms ±ε₀): it dominates every ε₀-DP section, and is exact for
    # one report.
    rr = np.array([-e0, e0]), np.array([1.0 - keep, keep]), 0.0
    if section.n < 2:
        return rr
    floor = delta * TAIL / sections
    log_delta = section_log_delta(section, floor)
    top = _top(log_delta, section.local_epsilon, math.log(floor))
    if top == 0.0:
        # δ_q(0) ≤ the floor, but not 0: that mass leaks at every ε (ω_∞), the rest at loss 0.
        leak = min(1.0, math.exp(log_delta(0.0)))
        return np.zeros(1), np.array([1.0 - leak]), leak
    grid = np.linspace(0.0, top, points + 1)
    values = np.exp(np.array([log_delta(float(e)) for e in grid]))
    try:
        return _dots(grid, values)
    except ArithmeticError:
        # A profile at randomized response's own (few reports: nothing left at loss 0 but
        # rounding): RR's pair, which is that profile.
        return rr


def _lattice(losses: FloatArray, masses: FloatArray, step: float) -> tuple[FloatArray, int]:
    """The masses moved up onto multiples of ``step``: (array, base), entry i at loss
    (base + i)·step ≥ the atom's loss."""
    index = np.ceil(losses / step).astype(np.int64)
    index += (index * step < losses).astype(np.int64)  # rounding down by the division: one up
    base = int(index.min())
    out = np.zeros(int(index.max()) - base + 1)
    np.add.at(out, index - base, masses)
    return out, base


def composed_log_delta(
    arrays: Sequence[tuple[FloatArray, int]], infinite: float, step: float
) -> Callable[[float], float]:
    """ε ↦ ln δ(ε) of the composed lattice PLD (module notes, 3)."""
    total = np.array([1.0])
    for a, _ in sorted(arrays, key=lambda item: len(item[0])):
        total = np.convolve(total, a)
    losses = (np.arange(len(total)) + sum(base for _, base in arrays)) * step

    def log_delta(eps: float) -> float:
        live = losses > eps
        value = float(np.dot(total[live], -np.expm1(eps - losses[live]))) + infinite
        return math.log(value * (1.0 + _ROUND)) if value > 0.0 else -math.inf

    return log_delta


def composed_epsilon(
    sections: Sequence[Section],
    delta: float,
    *,
    points: int = POINTS,
    deadline: float | None = None,
) -> float | None:
    """Upper bound on ε of the file of ``sections`` at total δ (module notes); None when fewer
    than two sections have a report (nothing to compose). ``deadline`` (``time.monotonic()``):
    TimeoutError if a section's profile is still to compute after it (each takes ≈ 0.3–7 s at
    n = 10⁶; sections alike are computed once)."""
    live = [s for s in sections if s.n >= 1 and s.local_epsilon > 0.0]
    if len(live) < 2:
        return None
    atoms = []
    for section in live:
        if deadline is not None and time.monotonic() > deadline:
            raise TimeoutError("the composition ran out of time")
        atoms.append(_section_atoms(section, delta, len(live), points))
    infinite = -math.expm1(sum(math.log1p(-w) for _, _, w in atoms))
    tops = [float(g[-1]) for g, _, _ in atoms if g[-1] > 0.0]
    if not tops:  # every section below the floor: what leaks is ω_∞ only
        return 0.0 if infinite * (1.0 + _ROUND) <= delta else None
    step = min(tops) / (points * _SUB)
    while True:
        sizes = [2.0 * g[-1] / step + 2.0 for g, _, _ in atoms]
        work, acc = 0.0, 1.0
        for size in sorted(sizes):
            work += acc * size
            acc += size
        if work <= _WORK:
            break
        step *= 2.0
    arrays = [_lattice(losses, masses, step) for losses, masses, _ in atoms]
    log_delta = composed_log_delta(arrays, infinite, step)
    target = math.log(delta)
    # Never below the exact Σ ε₀ (a float sum can round below it).
    hi = math.nextafter(math.fsum(s.local_epsilon for s in live), math.inf)
    if log_delta(0.0) <= target:
        return 0.0
    lo = 0.0
    while hi - lo > _ABS + _REL * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if log_delta(mid) > target else (lo, mid)
    return hi
