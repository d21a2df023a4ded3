"""Privacy accounting for central-DP releases (DESIGN.md §5).

A survey's releases are a sequence of *events*; :func:`epsilon_spent` composes them and reports
the tightest (ε, δ) bound among the *sound* accountants that apply, and which one won:

===========  ==========================================================  ======================
method       bound                                                       applies to
===========  ==========================================================  ======================
basic        Σ εᵢ (Dwork & Roth 2014, Thm. 3.14)                          pure-DP events only
advanced     ε₀√(2k ln(1/δ)) + kε₀(e^{ε₀} − 1), ε₀ = max εᵢ, min with      pure-DP events only
             basic (Dwork, Rothblum & Vadhan 2010, Thm. III.3)
zcdp         ρ = Σρᵢ, ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop 1.3)  every event
rdp          r(α) = Σ rᵢ(α), ε = min_α r(α) + ln(1 − 1/α)                  every event
             − (ln δ + ln α)/(α − 1) (Canonne, Kamath & Steinke 2020,
             Prop. 12; Asoodeh et al. 2021)
gdp          μ = √Σ(Δᵢ/σᵢ)², exact δ(ε) of μ-GDP (Dong, Roth & Su 2019)     continuous Gaussians
===========  ==========================================================  ======================

Which privacy-loss curve each event gets — and why (soundness notes):

* :class:`GaussianEvent` ``discrete=True`` (what :mod:`privacy.noise` samples): the discrete
  Gaussian with integer-valued L2 sensitivity Δ satisfies D_α ≤ αΔ²/(2σ²) (CKS 2020, Thm. 14 —
  the same RDP/zCDP curve as the continuous one). Its exact (ε, δ) curve (CKS Thm. 7) is *not*
  claimed here to be dominated by the continuous curve, so GDP is **not** applied to discrete
  events; they are accounted through zCDP/RDP only.
* :class:`GaussianEvent` ``discrete=False``: continuous Gaussian; RDP αΔ²/(2σ²) (Mironov 2017,
  Prop. 7) and the exact GDP composition.
* :class:`LaplaceEvent` ``discrete=True`` (default — the discrete Laplace of :mod:`privacy.noise`
  with scale Δ₁/ε): for a shift of one, its privacy loss is exactly ±ε (P[x]/P[x−1] = e^{∓ε}), i.e.
  it *is* randomized response with ε — the worst ε-DP pair. Its RDP curve is therefore the pure-DP
  curve below, which is strictly larger than the continuous Laplace curve. Using Mironov's
  continuous-Laplace curve for discrete noise would under-count.
* :class:`LaplaceEvent` ``discrete=False``: continuous Laplace with b = 1/ε (Mironov 2017,
  Prop. 6): r(α) = ln(α/(2α−1)·e^{(α−1)ε} + (α−1)/(2α−1)·e^{−αε})/(α−1). Kept for comparisons
  and for reproducing published tables; the product never samples continuous noise.
* :class:`PureDPEvent`: any ε-DP mechanism is a post-processing of binary randomized response
  RR_ε (Kairouz, Oh & Viswanath 2015, Thm. 2.1), so by data processing
  D_α ≤ ln((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)  (≤ min(ε, αε²/2)); ρ = ε²/2 (Bun & Steinke
  2016, Prop. 3.3).
* :class:`ZCDPEvent`: r(α) = αρ by definition.

All accountants use the full δ (they are alternative bounds on the same composition, and the
minimum of valid bounds is valid).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from privacy.calibrate import check_delta, check_epsilon, check_positive, gaussian_delta
from privacy.errors import PrivacyParameterError

__all__ = [
    "RDP_ORDERS",
    "AccountingResult",
    "Event",
    "GaussianEvent",
    "LaplaceEvent",
    "PrivacyParameterError",
    "PureDPEvent",
    "ZCDPEvent",
    "advanced_composition_epsilon",
    "basic_composition_epsilon",
    "can_afford",
    "epsilon_spent",
    "event_rdp",
    "gaussian_sigma_for_budget",
    "gdp_epsilon",
    "rdp_epsilon",
    "rdp_to_epsilon",
    "zcdp_epsilon",
    "zcdp_rho",
]

# Rényi orders (DESIGN.md §5): 1.1 … 10.9 step 0.1, 11 … 63, 128 … 1024 (powers of two).
RDP_ORDERS: tuple[float, ...] = (
    tuple(round(1.0 + i / 10.0, 1) for i in range(1, 100))
    + tuple(float(a) for a in range(11, 64))
    + (128.0, 256.0, 512.0, 1024.0)
)

# can_afford's relative slack: ε's are user-entered decimals, and 0.1 + 0.1 + 0.1 > 0.3 in binary
# floating point. Without a slack an exactly-fitting m-th release would be refused. 1e-9·ε_total
# is far below any meaningful privacy difference (and every accountant here is an upper bound).
BUDGET_RELATIVE_SLACK = 1e-9


# --------------------------------------------------------------------------- events


@dataclass(frozen=True)
class LaplaceEvent:
    """(Discrete) Laplace mechanism with scale Δ₁/ε: pure ε-DP. See the module notes on
    ``discrete`` — the default matches :func:`privacy.noise.sample_discrete_laplace`."""

    epsilon: float
    discrete: bool = True

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)


@dataclass(frozen=True)
class GaussianEvent:
    """Gaussian mechanism with noise σ on a query of L2 sensitivity Δ₂: ρ = Δ₂²/(2σ²)."""

    sigma: float
    l2_sensitivity: float = 1.0
    discrete: bool = True

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma")
        check_positive(self.l2_sensitivity, "l2_sensitivity")

    @property
    def rho(self) -> float:
        return self.l2_sensitivity**2 / (2.0 * self.sigma**2)


@dataclass(frozen=True)
class PureDPEvent:
    """Any ε-DP mechanism (e.g. a randomized-response release)."""

    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)


@dataclass(frozen=True)
class ZCDPEvent:
    """Any ρ-zCDP mechanism (Bun & Steinke 2016)."""

    rho: float

    def __post_init__(self) -> None:
        check_positive(self.rho, "rho")


Event = LaplaceEvent | GaussianEvent | PureDPEvent | ZCDPEvent


@dataclass(frozen=True)
class AccountingResult:
    """Tightest sound ε at the given δ, the method that gave it, and every method's value
    (``math.inf`` where a method does not apply)."""

    epsilon: float
    method: str
    candidates: dict[str, float] = field(default_factory=dict)


def _check_events(events: Iterable[Event]) -> list[Event]:
    out = list(events)
    for ev in out:
        if not isinstance(ev, LaplaceEvent | GaussianEvent | PureDPEvent | ZCDPEvent):
            raise PrivacyParameterError("mechanism", f"unknown privacy event {ev!r}")
    return out


def _pure_epsilon(ev: Event) -> float | None:
    """ε if the event is pure ε-DP, else None."""
    if isinstance(ev, LaplaceEvent | PureDPEvent):
        return ev.epsilon
    return None


# --------------------------------------------------------------------------- basic / advanced


def basic_composition_epsilon(events: Sequence[Event]) -> float:
    """Σεᵢ (correctly rounded with fsum) if every event is pure DP, else ``math.inf``."""
    eps = [_pure_epsilon(ev) for ev in _check_events(events)]
    if any(e is None for e in eps):
        return math.inf
    return math.fsum(e for e in eps if e is not None)


def advanced_composition_epsilon(events: Sequence[Event], delta: float) -> float:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20).

    k mechanisms that are each ε₀-DP compose to (ε₀√(2k ln(1/δ′)) + kε₀(e^{ε₀} − 1), kδ₀ + δ′).
    Here δ₀ = 0 (pure events), so the whole δ goes to δ′. Heterogeneous εᵢ use ε₀ = max εᵢ
    (each event is also ε₀-DP). The result is min(advanced, basic); ``math.inf`` if any event is
    not pure DP.
    """
    d = check_delta(delta)
    evs = _check_events(events)
    basic = basic_composition_epsilon(evs)
    if not evs or math.isinf(basic):
        return basic
    eps0 = max(e for e in (_pure_epsilon(ev) for ev in evs) if e is not None)
    k = len(evs)
    advanced = eps0 * math.sqrt(2.0 * k * math.log(1.0 / d)) + k * eps0 * math.expm1(eps0)
    return min(advanced, basic)


# --------------------------------------------------------------------------- zCDP


def _event_rho(ev: Event) -> float:
    if isinstance(ev, GaussianEvent):
        return ev.rho
    if isinstance(ev, ZCDPEvent):
        return ev.rho
    return ev.epsilon**2 / 2.0  # pure ε-DP ⇒ ε²/2-zCDP (Bun & Steinke 2016, Prop. 3.3)


def zcdp_rho(events: Sequence[Event]) -> float:
    """Total ρ: zCDP composes additively (Bun & Steinke 2016, Lemma 2.3)."""
    return math.fsum(_event_rho(ev) for ev in _check_events(events))


def zcdp_epsilon(events: Sequence[Event], delta: float) -> float:
    """ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)."""
    d = check_delta(delta)
    rho = zcdp_rho(events)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / d))


# --------------------------------------------------------------------------- RDP


def _logaddexp(a: float, b: float) -> float:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def _pure_dp_rdp(epsilon: float, alpha: float) -> float:
    """Tight RDP of ε-DP (randomized response RR_ε): ln((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)."""
    log_num = _logaddexp(alpha * epsilon, (1.0 - alpha) * epsilon)
    log_den = _logaddexp(0.0, epsilon)
    return min(epsilon, max(0.0, (log_num - log_den) / (alpha - 1.0)))


def _laplace_rdp(epsilon: float, alpha: float) -> float:
    """Continuous Laplace, b = 1/ε (Mironov 2017, Prop. 6)."""
    first = math.log(alpha / (2.0 * alpha - 1.0)) + (alpha - 1.0) * epsilon
    second = math.log((alpha - 1.0) / (2.0 * alpha - 1.0)) - alpha * epsilon
    return min(epsilon, max(0.0, _logaddexp(first, second) / (alpha - 1.0)))


def event_rdp(ev: Event, alpha: float) -> float:
    """The Rényi divergence bound r(α) of one event (see the module notes)."""
    if isinstance(ev, GaussianEvent | ZCDPEvent):
        return alpha * ev.rho
    if isinstance(ev, LaplaceEvent) and not ev.discrete:
        return _laplace_rdp(ev.epsilon, alpha)
    return _pure_dp_rdp(ev.epsilon, alpha)


def rdp_to_epsilon(
    orders: Sequence[float], rdp: Sequence[float], delta: float, *, tight: bool = True
) -> tuple[float, float]:
    """Convert an RDP curve to (ε, best α) at δ.

    tight=True: ε(α) = r(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (CKS 2020, Prop. 12).
    tight=False: the standard ε(α) = r(α) + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3).
    ε is clipped at 0.
    """
    d = check_delta(delta)
    log_d = math.log(d)
    best, best_alpha = math.inf, math.nan
    for alpha, r in zip(orders, rdp, strict=True):
        if tight:
            eps = r + math.log1p(-1.0 / alpha) - (log_d + math.log(alpha)) / (alpha - 1.0)
        else:
            eps = r - log_d / (alpha - 1.0)
        if eps < best:
            best, best_alpha = eps, alpha
    return max(0.0, best), best_alpha


def rdp_epsilon(
    events: Sequence[Event], delta: float, orders: Sequence[float] = RDP_ORDERS
) -> float:
    """Compose RDP curves additively (Mironov 2017, Prop. 1) and convert tightly."""
    evs = _check_events(events)
    rdp = [math.fsum(event_rdp(ev, a) for ev in evs) for a in orders]
    return rdp_to_epsilon(orders, rdp, delta)[0]


# --------------------------------------------------------------------------- exact Gaussian (GDP)


def gdp_epsilon(events: Sequence[Event], delta: float) -> float:
    """Exact ε for continuous Gaussians only (Dong, Roth & Su 2019, Cor. 2.13 and Cor. 3.3).

    μᵢ = Δᵢ/σᵢ-GDP mechanisms compose to μ = √Σμᵢ²-GDP, whose exact (ε, δ) curve is
    δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2); δ(ε) is decreasing, so bisection finds ε, and the
    upper end of the bracket is returned. ``math.inf`` unless every event is a GaussianEvent with
    ``discrete=False`` (see the module notes on the discrete Gaussian).
    """
    d = check_delta(delta)
    evs = _check_events(events)
    if not evs or not all(isinstance(ev, GaussianEvent) and not ev.discrete for ev in evs):
        return math.inf
    mu = math.sqrt(math.fsum((ev.l2_sensitivity / ev.sigma) ** 2 for ev in evs))  # type: ignore[union-attr]
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


# --------------------------------------------------------------------------- the answer

# Tie-break order: the simplest explanation wins when two methods give the same ε.
_METHODS = ("basic", "advanced", "zcdp", "rdp", "gdp")


def epsilon_spent(events: Sequence[Event], delta: float) -> AccountingResult:
    """The tightest sound ε at δ over all applicable accountants, and which one gave it.

    An empty event list spends nothing: ``AccountingResult(0.0, "none", {})``.
    """
    d = check_delta(delta)
    evs = _check_events(events)
    if not evs:
        return AccountingResult(epsilon=0.0, method="none", candidates={})
    candidates = {
        "basic": basic_composition_epsilon(evs),
        "advanced": advanced_composition_epsilon(evs, d),
        "zcdp": zcdp_epsilon(evs, d),
        "rdp": rdp_epsilon(evs, d),
        "gdp": gdp_epsilon(evs, d),
    }
    method = "basic"
    for name in _METHODS:
        if candidates[name] < candidates[method]:
            method = name
    return AccountingResult(epsilon=candidates[method], method=method, candidates=candidates)


def can_afford(
    events_so_far: Sequence[Event],
    new_events: Sequence[Event],
    epsilon_total: float,
    delta_total: float,
) -> bool:
    """Whether adding ``new_events`` keeps the composed ε at ``delta_total`` within budget.

    Allows a relative slack of :data:`BUDGET_RELATIVE_SLACK` for binary rounding of decimal ε's.
    """
    total = check_epsilon(epsilon_total, "epsilon_total")
    d = check_delta(delta_total, "delta_total")
    spent = epsilon_spent([*events_so_far, *new_events], d).epsilon
    return spent <= total * (1.0 + BUDGET_RELATIVE_SLACK)


def gaussian_sigma_for_budget(
    epsilon: float, delta: float, l2_sensitivity: float = 1.0, *, discrete: bool = True
) -> float:
    """Smallest σ whose single release is charged at most ε by :func:`epsilon_spent` at δ.

    For ``discrete=False`` this is the analytic Gaussian σ (Balle & Wang 2018, = GDP with one
    event). For the discrete Gaussian (what the sampler draws) the charge goes through RDP/zCDP,
    so σ is somewhat larger; calibrating with this function keeps the ledger equal to the request.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive(l2_sensitivity, "l2_sensitivity")

    def charged(sigma: float) -> float:
        return epsilon_spent([GaussianEvent(sigma, sens, discrete)], d).epsilon

    hi = sens
    while charged(hi) > eps:
        hi *= 2.0
    lo = hi / 2.0
    while charged(lo) <= eps:
        lo /= 2.0
    for _ in range(100):
        if hi - lo <= 1e-10 * hi:
            break
        mid = math.sqrt(lo * hi)
        if charged(mid) > eps:
            lo = mid
        else:
            hi = mid
    return hi
