"""Exact accountants: the optimal composition of pure ε-DP events, and Gaussian DP.

* :func:`exact_pure_epsilon` — the exact δ(ε) of ⊗ RR_{εᵢ}, the optimal composition of
  εᵢ-DP mechanisms (Kairouz, Oh & Viswanath 2015; Murtagh & Vadhan 2016), solved for ε exactly
  per segment between consecutive privacy-loss values (the derivation:
  :mod:`dpcore.central.accounting`).
* :func:`gdp_epsilon` — continuous Gaussians only: μ = √Σ(Δᵢ/σᵢ)², the exact δ(ε) of μ-GDP
  (Dong, Roth & Su 2019, Cor. 2.13 and Cor. 3.3), solved by bisection.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from dpcore.central.calibration import gaussian_delta
from dpcore.central.events import (
    ContinuousGaussianEvent,
    Event,
    Groups,
    fsum_or_inf,
    group_events,
    pure_epsilon,
    repeat_values,
)
from dpcore.central.rdp import logaddexp
from dpcore.errors import PrivacyParameterError
from dpcore.validation import check_delta

__all__ = [
    "EXACT_PURE_MAX_SUPPORT",
    "exact_pure",
    "exact_pure_delta",
    "exact_pure_epsilon",
    "gdp",
    "gdp_epsilon",
    "pure_groups",
]

# exact_pure: largest joint privacy-loss support Π_g(k_g + 1) computed (beyond it: not applicable).
EXACT_PURE_MAX_SUPPORT = 250_000

FloatArray = npt.NDArray[np.float64]


def pure_groups(groups: Groups) -> dict[float, int] | None:
    """ε → number of events, if every event is pure DP (Laplace of either kind, PureDP)."""
    out: dict[float, int] = {}
    for ev, k in groups.items():
        e = pure_epsilon(ev)
        if e is None:
            return None
        out[e] = out.get(e, 0) + k
    return out


# --------------------------------------------------------------------------- exact Gaussian (GDP)


def gdp(groups: Groups, d: float) -> float:
    gaussians = [(ev, k) for ev, k in groups.items() if isinstance(ev, ContinuousGaussianEvent)]
    if not groups or len(gaussians) != len(groups):
        return math.inf
    ratios = ((ev.l2_sensitivity / ev.sigma, k) for ev, k in gaussians)
    mu = math.sqrt(fsum_or_inf(repeat_values((r * r, k) for r, k in ratios)))
    if math.isinf(mu):
        return math.inf
    if gaussian_delta(0.0, mu) <= d:
        return 0.0
    lo, hi = 0.0, 1.0
    while gaussian_delta(hi, mu) > d:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        if hi - lo <= 1e-12 * hi:
            break
        mid = 0.5 * (lo + hi)
        if gaussian_delta(mid, mu) > d:
            lo = mid
        else:
            hi = mid
    return hi


def gdp_epsilon(events: Sequence[Event], delta: float) -> float:
    """Exact ε for continuous Gaussians only (Dong, Roth & Su 2019, Cor. 2.13 and Cor. 3.3).

    μᵢ = Δᵢ/σᵢ-GDP mechanisms compose to μ = √Σμᵢ²-GDP, whose exact (ε, δ) curve is
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2); δ(ε) is decreasing, so bisection finds ε, and the
    upper end of the bracket is returned. ``math.inf`` unless every event is a
    :class:`ContinuousGaussianEvent` (see the accounting notes on the discrete Gaussian).
    """
    d = check_delta(delta)
    return gdp(group_events(events), d)


# --------------------------------------------------------------------------- exact pure DP


@dataclass(frozen=True)
class _LossDistribution:
    """Privacy loss ℓ = ln(P/Q) of ⊗ RR_{εᵢ}, sorted ascending, with ln P[ℓ] and ln Q[ℓ]."""

    loss: FloatArray
    log_p: FloatArray
    log_q: FloatArray


def _rr_group(eps: float, k: int) -> tuple[FloatArray, FloatArray, FloatArray]:
    """k × RR_ε: ℓ = (k − 2L)ε; ln P = ln C(k, L) + (k − L)ε − k·ln(1 + e^ε); ln Q: L for k − L."""
    lg_k = math.lgamma(k + 1.0)
    log_binom = np.array(
        [lg_k - math.lgamma(j + 1.0) - math.lgamma(k - j + 1.0) for j in range(k + 1)]
    )
    n_lose = np.arange(k + 1, dtype=np.float64)
    log_norm = k * logaddexp(0.0, eps)
    log_p = log_binom + (k - n_lose) * eps - log_norm
    log_q = log_binom + n_lose * eps - log_norm
    return (k - 2.0 * n_lose) * eps, log_p, log_q


def _loss_distribution(by_eps: Mapping[float, int]) -> _LossDistribution | None:
    """The joint loss of the grouped RR pairs (outer sums over groups), or None over the cap."""
    if math.prod(k + 1 for k in by_eps.values()) > EXACT_PURE_MAX_SUPPORT:
        return None
    loss, log_p, log_q = np.zeros(1), np.zeros(1), np.zeros(1)
    for eps, k in sorted(by_eps.items()):
        g_loss, g_p, g_q = _rr_group(eps, k)
        loss = np.add.outer(loss, g_loss).ravel()
        log_p = np.add.outer(log_p, g_p).ravel()
        log_q = np.add.outer(log_q, g_q).ravel()
    order = np.argsort(loss)  # ties need no order: their loss terms cancel (module notes)
    return _LossDistribution(loss[order], log_p[order], log_q[order])


def _exact_pure_distribution(events: Sequence[Event]) -> _LossDistribution:
    by_eps = pure_groups(group_events(events))
    if not by_eps:
        raise PrivacyParameterError("mechanism", "exact_pure needs a non-empty list of pure events")
    dist = _loss_distribution(by_eps)
    if dist is None:
        raise PrivacyParameterError(
            "mechanism", f"more than {EXACT_PURE_MAX_SUPPORT} privacy-loss values"
        )
    return dist


def exact_pure_delta(events: Sequence[Event], epsilon: float) -> float:
    """Exact δ(ε) = Σ_ℓ P[ℓ](1 − e^{ε−ℓ})₊ of the composition of pure events (the optimal
    composition; see the module notes). Raises PrivacyParameterError if not applicable."""
    dist = _exact_pure_distribution(events)
    above = dist.loss > epsilon
    terms = np.exp(dist.log_p[above]) * -np.expm1(epsilon - dist.loss[above])
    return math.fsum(terms.tolist())


def _solve_exact(dist: _LossDistribution, d: float) -> float:
    """Smallest ε ≥ 0 with δ(ε) ≤ d, exactly per segment between consecutive loss values."""
    loss = dist.loss
    n = loss.size
    with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
        if float(loss[-1] - loss[0]) <= 600.0:
            # Linear suffix sums (fast), Q rescaled by e^{ℓ_max}: P_i·e^{ℓ_max − ℓ_i} ≤ e^{600}.
            shift = float(loss[-1])
            a_incl = np.cumsum(np.exp(dist.log_p[::-1]))[::-1]
            b_incl = np.cumsum(np.exp(dist.log_q[::-1] + shift))[::-1]
            log_a = np.append(np.log(a_incl[1:]), -np.inf)
            log_b = np.append(np.log(b_incl[1:]) - shift, -np.inf)
        else:  # losses spread over more than e^{600}: accumulate in log space
            log_a = np.append(np.logaddexp.accumulate(dist.log_p[::-1])[::-1][1:], -np.inf)
            log_b = np.append(np.logaddexp.accumulate(dist.log_q[::-1])[::-1][1:], -np.inf)
        # Log-masses strictly above index j (the last: nothing above, −∞). δ at ε = ℓ_j:
        # A_j − e^{ℓ_j} B_j = A_j (1 − e^{ℓ_j + ln B_j − ln A_j}).
        delta_at = np.exp(log_a) * -np.expm1(np.minimum(0.0, loss + log_b - log_a))
        delta_at = np.where(np.isneginf(log_a), 0.0, delta_at)
    j0 = int(np.searchsorted(loss, 0.0, side="right")) - 1  # last index with ℓ ≤ 0 (−1: none)
    if j0 >= 0:
        a0, b0 = float(log_a[j0]), float(log_b[j0])
    else:
        a0 = float(np.logaddexp.reduce(dist.log_p))
        b0 = float(np.logaddexp.reduce(dist.log_q))
    delta_zero = 0.0 if a0 == -math.inf else math.exp(a0) - math.exp(b0)
    if delta_zero <= d:
        return 0.0
    # The segment (ℓ_m, ℓ_{m+1}] holding the answer: m = the last point (or 0) with δ > d — the
    # last, not the first, so that rounding noise in δ_j could only move ε up.
    over = np.nonzero(delta_at[j0 + 1 :] > d)[0]
    if over.size:
        m = j0 + 1 + int(over[-1])
        lower, log_am, log_bm = float(loss[m]), float(log_a[m]), float(log_b[m])
    else:
        m = j0
        lower, log_am, log_bm = 0.0, a0, b0
    upper = float(loss[min(m + 1, n - 1)])
    # A − e^ε B = d  ⇒  ε = ln(A − d) − ln B  (A > d because δ(lower) > d).
    if log_bm == -math.inf:
        return upper
    # ln(A − d) = ln A + ln(1 − e^{ln d − ln A}): in log space, since A itself may be below the
    # float range's reciprocal (δ = 5e-324 and A ≈ 1e-320 made d·e^{−ln A} overflow: a 500).
    ratio = math.exp(min(0.0, math.log(d) - log_am))
    eps = log_am + (math.log1p(-ratio) if ratio < 1.0 else -math.inf) - log_bm
    return min(max(eps, lower), upper)


def exact_pure(groups: Groups, d: float) -> float:
    by_eps = pure_groups(groups)
    if not by_eps or not fsum_or_inf(eps * k for eps, k in by_eps.items()) <= 1e300:
        return math.inf  # not applicable, or losses so large their sums would overflow
    dist = _loss_distribution(by_eps)
    if dist is None:
        return math.inf
    return _solve_exact(dist, d)


def exact_pure_epsilon(events: Sequence[Event], delta: float) -> float:
    """Exact (optimal) ε at δ for a list of pure ε-DP events (Laplace events of either kind,
    PureDPEvent): the composition of the RR_{εᵢ} pairs, grouped by distinct εᵢ (module notes).
    ``math.inf`` if any event is not pure or the loss support exceeds
    :data:`EXACT_PURE_MAX_SUPPORT`."""
    d = check_delta(delta)
    return exact_pure(group_events(events), d)
