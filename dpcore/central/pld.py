"""Privacy-loss-distribution (PLD) accountant for the mechanisms the product samples.

Mechanisms (each a *dominating pair* (P, Q) of output laws on ℤ under add/remove of one person):

* :class:`DiscreteLaplacePair` ``(ε, k)``: discrete Laplace with scale b = k/ε, shifted by k
  (k = 1: a histogram cell or a count; k = K: a number question's grid sum, Δ = K). The loss
  ℓ(x) = ln P(x)/Q(x) = (|x − k| − |x|)/b takes the k + 1 values (k − 2x)/b, x = 0 … k, with
  P(X ≤ 0) = 1/(1 + q), P(X ≥ k) = q^k/(1 + q), P(X = x) = (1 − q)/(1 + q)·q^x (q = e^{−1/b}).
  For k = 1 this is randomized response RR_ε, which dominates every ε-DP mechanism
  (Kairouz, Oh & Viswanath 2015, Thm. 2.1), so it also serves any pure ε-DP event.
* :class:`DiscreteGaussianPair` ``(σ, k)``: N_ℤ(0, σ²) against N_ℤ(k, σ²):
  ℓ(x) = (k² − 2kx)/(2σ²), a lattice of step k/σ² (Canonne, Kamath & Steinke 2020, §2).

Why shift k dominates every shift j ≤ k (a grid sum moves by *at most* K): both noises are
log-concave on ℤ, so (P₀, P_j) has a monotone likelihood ratio, the Neyman–Pearson tests are
(randomized) thresholds, and the trade-off curve is the linear interpolation of the points
(P₀[X ≥ t], P₀[X < t − j]), t ∈ ℤ; for a fixed t the second coordinate falls as j grows, so
f_k ≤ f_j pointwise and every hockey-stick divergence of shift j is at most that of shift k
(Dong, Roth & Su 2019, Prop. 2.12). Both noises are symmetric, so (P₀, P_k) and (P_k, P₀) have
the same PLD (reflect x ↦ k − x): one direction suffices.

Composition (Dwork & Rothblum 2016; Sommer, Meiser & Mohammadi 2019; Koskela et al. 2020): the
loss of a composition is the sum of independent losses, and
    δ(ε) = Σ_ℓ ω(ℓ)·(1 − e^{ε−ℓ})₊ + ω(∞),
ω being the law of the total loss under P. ``(1 − e^{ε−ℓ})₊`` grows with ℓ, so replacing any loss
by a *larger* one (pessimistic discretization; Koskela et al. 2021; Doroshenko et al. 2022)
yields an upper bound, and so does adding mass.

The computation:

1. every distinct pair gets its exact loss lattice ℓ_j = o + j·s (tails of the discrete Gaussian
   beyond |x| ≤ R: the small-loss side is moved up to ℓ(R), the large-loss side goes to ω(∞) by
   the geometric bound Σ_{x>R} e^{−x²/2σ²} ≤ e^{−(R+1)²/2σ²}/(1 − e^{−(2R+3)/2σ²})); a very fine
   discrete-Gaussian lattice (a grid sum's) is coarsened to ≈ 0.05 standard deviations;
2. the masses are *exponentially tilted*, p̃_j = ω_j·e^{λℓ_j − K(λ)} with K(λ) = ln Σ ω_j e^{λℓ_j}
   (the cumulant generating function; K(λ) = λ·D_{λ+1}(P‖Q)). Tilting commutes with convolution,
   so the k-fold composition is the k-fold convolution of p̃, computed as one FFT power
   (repeated self-composition for free), and untilted as ω_J = p̃^{*k}_J·e^{kK(λ) − λℓ_J}. λ is the
   Chernoff/RDP-optimal order − 1 (from ρ), which centres the tilted law near the answer ε, so the
   masses that decide δ(ε) are the largest ones in the array (FFT rounding is relative to the
   largest entry);
3. different pairs are put on one grid of step h ≈ 0.05·sd/√G (G distinct pairs) and convolved by
   one FFT product (small arrays first directly). Every move of an atom — coarsening and
   gridding — is a *connect-the-dots* split onto the two neighbouring grid points that keeps both
   its P- and its Q-mass (Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, "Connect the Dots:
   Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022): the original pair
   is a post-processing (merge the two atoms) of the new one, so δ(ε) can only grow, and the
   error is second order in the step (ceil rounding's is first order: k·h);
4. a support of more than 2¹⁵–2¹⁶ points keeps only a window of ±c standard deviations of the
   tilted law (cyclic convolution): the tilted mass outside it, T, is bounded by Chernoff,
   T ≤ min_θ M̃(±θ)·e^{∓θℓ_edge}, and a lost tilted mass T at losses ≥ ε adds at most
   T·e^{S − λε} to δ(ε) (S = Σ kK): that term is added. Wrapped-around mass is extra positive
   mass, which only increases δ.

Exactness: one kind of event (k identical pairs, no coarsening) is composed exactly on its
lattice; mixes are upper bounds which the tests find within 1.0003× of exact lattice convolution
(:data:`TARGET_RELATIVE_ERROR` is the documented bound, 0.4 %). Floating point: the result is
finally raised by a relative 1e-9 (covering FFT and summation rounding, ≈1e-12 relative near the
tilted peak), so it is never below the exact value.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from dpcore.central.events import (
    BoundedRangeEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    Event,
    PureDPEvent,
    ShiftedDiscreteLaplaceEvent,
)
from dpcore.central.pld_lattice import (
    _NOISE_FLOOR,
    _RESOLUTION,
    _ROUNDING_SLACK,
    TARGET_RELATIVE_ERROR,
    DiscreteGaussianPair,
    DiscreteLaplacePair,
    FloatArray,
    Pair,
    _convolve_all,
    _group,
    _prepared,
    _rho,
    _Tilted,
    _to_grid,
)

__all__ = [
    "MAX_DISTINCT_PAIRS",
    "TARGET_RELATIVE_ERROR",
    "DiscreteGaussianPair",
    "DiscreteLaplacePair",
    "Pair",
    "event_pair",
    "events_epsilon",
    "pld_delta",
    "pld_epsilon",
]


# --------------------------------------------------------------------------- composition


@dataclass(frozen=True)
class _Composed:
    """ω_i = mass_i·e^{log_scale − λℓ_i} on ℓ_i = offset + i·step, plus the extra terms."""

    loss: FloatArray
    log_omega: FloatArray  # ln ω_i (−∞ for empty cells)
    lam: float
    log_scale: float
    lost: float
    inf_mass: float
    exact: bool = False  # no rounding happened (one group on its own lattice)
    lost_low: float = 0.0  # tilted mass lost below loss[0] (cyclic wrap of the lower tail)


def _compose(
    groups: Mapping[Pair, int],
    log_inv_delta: float,
    lam: float,
    fine: float,
    pessimistic: bool = True,
) -> _Composed:
    """Compose the groups; ``fine`` scales the resolution (grid steps are ``fine``·sd).
    ``pessimistic=False``: the optimistic twin (losses rounded down, lost and ∞ masses dropped),
    a lower bound on the exact δ(ε), used only to certify the pessimistic result."""
    n_groups = len(groups)
    tilted: list[_Tilted] = []
    exact = n_groups == 1
    for pair, k in groups.items():
        lat = _prepared(pair, log_inv_delta, fine, pessimistic)
        exact = exact and not lat.coarsened
        tilted.append(_group(lat, k, lam))
    lost_low = 0.0  # tilted mass below the final window: it only counts for ε below the window
    if n_groups == 1:
        g = tilted[0]
        mass, offset, step, lost = g.mass, g.offset, g.step, g.lost
    else:
        total_sd = math.sqrt(math.fsum(g.var for g in tilted))
        h = min(fine * total_sd / math.sqrt(n_groups), min(g.step for g in tilted) * 4096)
        arrays = [_to_grid(g, h, lam, pessimistic) for g in tilted]
        mean = math.fsum(g.mean for g in tilted) / h
        sd = total_sd / h + 1.0
        mass, first, lost_final, lost_low = _convolve_all(arrays, mean, sd)
        offset, step = first * h, h
        # A group's lost tilted mass would have gained at most e^{λh} on the grid.
        lost = sum(g.lost for g in tilted) * math.exp(lam * h) + lost_final
    loss = offset + step * np.arange(mass.size, dtype=np.float64)
    log_scale = sum(g.log_scale for g in tilted)
    # Floating-point allowance for the FFTs (relative to the largest tilted entry). Entries below
    # the FFT noise floor are rounding noise; untilted by e^{S − λℓ} at very low losses they
    # would become huge. They are zeroed and their total (≤ size·floor) joins the allowance.
    top = float(np.max(mass))
    floor = _NOISE_FLOOR * top
    mass = np.where(mass < floor, 0.0, mass)
    lost += 1e-13 * top * (1 + n_groups) * math.log2(max(2, mass.size)) + floor * mass.size
    with np.errstate(divide="ignore"):
        log_omega = np.log(mass) + log_scale - lam * loss
    inf_mass = sum(g.inf_mass for g in tilted)
    if not pessimistic:
        lost, inf_mass, lost_low = 0.0, 0.0, 0.0
    return _Composed(loss, log_omega, lam, log_scale, lost, inf_mass, exact, lost_low)


def _delta_terms(c: _Composed) -> tuple[FloatArray, FloatArray]:
    """ln A_j = ln Σ_{i>j} ω_i and ln B_j = ln Σ_{i>j} ω_i e^{−ℓ_i} (−∞ past the end)."""
    rev_a = np.logaddexp.accumulate(c.log_omega[::-1])[::-1]
    rev_b = np.logaddexp.accumulate((c.log_omega - c.loss)[::-1])[::-1]
    log_a = np.append(rev_a[1:], -np.inf)
    log_b = np.append(rev_b[1:], -np.inf)
    return log_a, log_b


def _delta_at(c: _Composed, log_a: float, log_b: float, eps: float) -> float:
    """δ(ε) = A − e^ε·B + lost·e^{S − λε} + ω(∞), for ε in the segment of (A, B)."""
    main = 0.0
    if log_a > -math.inf:
        # A ≤ 1 truly; min(·, 700) only keeps a garbage-inflated value finite (still > δ).
        main = math.exp(min(log_a, 700.0)) * -math.expm1(min(0.0, eps + log_b - log_a))
    lost = c.lost + (c.lost_low if eps < float(c.loss[0]) else 0.0)
    extra = lost * math.exp(min(700.0, c.log_scale - c.lam * eps)) if lost > 0 else 0.0
    return main + extra + c.inf_mass


def _solve(c: _Composed, delta: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_a, log_b = _delta_terms(c)
        total_a = float(np.logaddexp.reduce(c.log_omega))
        total_b = float(np.logaddexp.reduce(c.log_omega - c.loss))
    loss = c.loss
    j0 = int(np.searchsorted(loss, 0.0, side="right")) - 1
    a0, b0 = (float(log_a[j0]), float(log_b[j0])) if j0 >= 0 else (total_a, total_b)
    if _delta_at(c, a0, b0, 0.0) <= delta:
        return 0.0
    # Last grid point ≥ 0 whose δ exceeds the target: the answer lies in the next segment.
    lo_idx = j0
    hi_idx = loss.size - 1
    if _delta_at(c, float(log_a[hi_idx]), float(log_b[hi_idx]), float(loss[hi_idx])) > delta:
        return _beyond(c, float(loss[hi_idx]), delta)
    while hi_idx - lo_idx > 1:  # invariant: δ(max(ℓ_lo, 0)) > target ≥ δ(ℓ_hi)
        mid = (lo_idx + hi_idx) // 2
        if _delta_at(c, float(log_a[mid]), float(log_b[mid]), float(loss[mid])) > delta:
            lo_idx = mid
        else:
            hi_idx = mid
    if lo_idx < 0 or loss[lo_idx] < 0:
        lower, la, lb = 0.0, a0, b0
    else:
        lower, la, lb = float(loss[lo_idx]), float(log_a[lo_idx]), float(log_b[lo_idx])
    upper = float(loss[hi_idx])
    for _ in range(100):  # bisection inside the segment (δ is continuous and decreasing there)
        if upper - lower <= 1e-13 * max(1.0, upper):
            break
        mid_eps = 0.5 * (lower + upper)
        if _delta_at(c, la, lb, mid_eps) > delta:
            lower = mid_eps
        else:
            upper = mid_eps
    return upper


def _beyond(c: _Composed, start: float, delta: float) -> float:
    """Past the window only the lost-mass and ∞ terms remain: solve them (or ∞)."""
    if c.inf_mass >= delta or c.lost <= 0:
        return math.inf if c.inf_mass >= delta else start
    # lost·e^{S − λε} = δ − ω(∞)  ⇒  ε = (S + ln lost − ln(δ − ω∞))/λ
    return max(start, (c.log_scale + math.log(c.lost) - math.log(delta - c.inf_mass)) / c.lam)


def _plan(groups: Mapping[Pair, int], delta: float) -> tuple[float, float]:
    """Tilt λ and a first upper estimate of ε from ρ (zCDP, Bun & Steinke 2016) and Σε."""
    rho = math.fsum(_rho(p) * k for p, k in groups.items())
    log_inv = -math.log(delta)
    lam = min(1e4, max(0.05, math.sqrt(log_inv / max(rho, 1e-300))))
    est = rho + 2.0 * math.sqrt(rho * log_inv)
    if all(isinstance(p, DiscreteLaplacePair) for p in groups):
        est = min(est, math.fsum(p.epsilon * k for p, k in groups.items()))  # type: ignore[union-attr]
    return lam, est


def _check(groups: Mapping[Pair, int], delta: float) -> None:
    if not 0.0 < delta < 1.0:
        raise ValueError("delta must lie in (0, 1)")
    for pair, k in groups.items():
        if not isinstance(k, int) or k < 1:
            raise ValueError(f"multiplicity of {pair!r} must be a positive int")
        if not isinstance(pair.shift, int) or pair.shift < 1:
            raise ValueError(f"shift of {pair!r} must be a positive int")
        value = pair.epsilon if isinstance(pair, DiscreteLaplacePair) else pair.sigma
        if not 0.0 < value < math.inf:
            raise ValueError(f"{pair!r}: parameter must be finite and > 0")


def pld_epsilon(groups: Mapping[Pair, int], delta: float) -> float:
    """Smallest ε (rounded up) with δ(ε) ≤ δ for the composition of ``groups`` (pair → count).

    Never below the exact ε of the composition; at most (1 + TARGET_RELATIVE_ERROR)× above it
    (module notes). ``math.inf`` if the losses are out of the float range.
    """
    _check(groups, delta)
    if not groups:
        return 0.0
    lam, est = _plan(groups, delta)
    if not math.isfinite(est) or est > 1e12:
        return math.inf
    composed = _compose(groups, -math.log(delta), lam, _RESOLUTION)
    eps = _solve(composed, delta)
    return eps * (1.0 + _ROUNDING_SLACK) if math.isfinite(eps) else eps


def pld_delta(groups: Mapping[Pair, int], epsilon: float, delta_hint: float = 1e-5) -> float:
    """Upper bound on δ(ε) of the composition (the same discretization as :func:`pld_epsilon`
    at ``delta_hint``). For tests and plots."""
    _check(groups, delta_hint)
    lam, _ = _plan(groups, delta_hint)
    c = _compose(groups, -math.log(delta_hint), lam, _RESOLUTION)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        log_a, log_b = _delta_terms(c)
    j = int(np.searchsorted(c.loss, epsilon, side="right")) - 1
    if j < 0:
        la = float(np.logaddexp.reduce(c.log_omega))
        lb = float(np.logaddexp.reduce(c.log_omega - c.loss))
    else:
        la, lb = float(log_a[j]), float(log_b[j])
    return _delta_at(c, la, lb, epsilon)


# --------------------------------------------------------------------------- events → pairs


def event_pair(ev: Event) -> Pair | None:
    """The dominating pair of a privacy event for the PLD accountant (None: no PLD here).

    :class:`DiscreteLaplaceEvent` is its own pair (shift 1), :class:`ShiftedDiscreteLaplaceEvent`
    too (shift K); continuous Laplace and any :class:`PureDPEvent` are dominated by RR_ε = the
    discrete Laplace pair with shift 1 (Kairouz, Oh & Viswanath 2015); the
    :class:`DiscreteGaussianEvent` with an integer sensitivity Δ (≤ 10⁶) is N_ℤ(0, σ²) against
    N_ℤ(Δ, σ²). zCDP-only events and continuous Gaussians have no PLD here (GDP covers those).
    """
    if isinstance(ev, ShiftedDiscreteLaplaceEvent):
        return DiscreteLaplacePair(ev.epsilon, ev.shift)
    if isinstance(
        ev, DiscreteLaplaceEvent | ContinuousLaplaceEvent | PureDPEvent | BoundedRangeEvent
    ):
        return DiscreteLaplacePair(ev.epsilon, 1)
    if isinstance(ev, DiscreteGaussianEvent) and ev.l2_sensitivity.is_integer():
        if ev.l2_sensitivity > 1e6:
            return None
        return DiscreteGaussianPair(ev.sigma, int(ev.l2_sensitivity))
    return None


#: Most distinct pairs composed (a bounded cost: ≈ 5 ms per distinct wide discrete Gaussian on a
#: cold worker, and one lattice cache entry each); beyond it the PLD declares itself inapplicable
#: and zCDP/RDP/basic answer (sound, looser).
MAX_DISTINCT_PAIRS = 1000


def events_epsilon(groups: Mapping[Event, int], delta: float, exact_pure: float) -> float:
    """ε of the PLD accountant for grouped events, ``math.inf`` where it does not apply.

    Skipped (∞) when ``exact_pure`` already answered for shift-1 pure events: it is exact there,
    and when there are more than :data:`MAX_DISTINCT_PAIRS` distinct pairs.
    """
    pairs: dict[Pair, int] = {}
    for ev, k in groups.items():
        pair = event_pair(ev)
        if pair is None:
            return math.inf
        pairs[pair] = pairs.get(pair, 0) + k
    if math.isfinite(exact_pure) and all(
        isinstance(p, DiscreteLaplacePair) and p.shift == 1 for p in pairs
    ):
        return math.inf
    if len(pairs) > MAX_DISTINCT_PAIRS:
        return math.inf
    try:
        return pld_epsilon(pairs, delta)
    except (ValueError, OverflowError, MemoryError):  # out of the float range: not applicable
        return math.inf
