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
exact_pure   exact δ(ε) of the product of RR(εᵢ) pairs — the optimal         pure-DP events only,
             composition of εᵢ-DP mechanisms (Kairouz, Oh & Viswanath 2015;  ≤ 2.5·10⁵ loss values
             Murtagh & Vadhan 2016) — solved for ε
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

**Overflow.** Events accept any finite parameter > 0 (a ``PrivacyParameterError`` otherwise); an
absurd one (ε = 1e300, σ = 1e-300) makes some sums overflow. Every accountant then answers
``math.inf`` — always a sound upper bound — instead of raising: Σε and Σρ are summed by
:func:`_sum` (``math.inf`` on overflow), squares are taken as products (no ``OverflowError``),
exact_pure declares itself inapplicable once Σkε exceeds 1e300, and GDP returns ∞ for μ = ∞.

All accountants use the full δ (they are alternative bounds on the same composition, and the
minimum of valid bounds is valid).

**exact_pure** (see :func:`exact_pure_epsilon`). An ε-DP mechanism is f_{ε,0}-DP, f_{ε,0} being the
trade-off function of RR_ε (Dong, Roth & Su 2019, Prop. 2.5; KOV 2015, Thm. 2.1), and the adaptive
composition of f_{εᵢ,0}-DP mechanisms is ⊗ᵢ f_{εᵢ,0}-DP (DRS 2019, Thm. 3.2): the pair
(P, Q) = (⊗ RR_{εᵢ}(0), ⊗ RR_{εᵢ}(1)) dominates any adaptive composition of εᵢ-DP mechanisms
(discrete or continuous Laplace, randomized response, …), and for k RR_{εᵢ} it is attained, so
nothing sound is tighter for a list of pure events. Its privacy loss, with events grouped by
distinct ε_g (k_g events each), is Σ_g (k_g − 2L_g)ε_g with L_g ~ Bin(k_g, 1/(1 + e^{ε_g})) under P
and ~ Bin(k_g, e^{ε_g}/(1 + e^{ε_g})) under Q, and δ(ε) = Σ_ℓ P[ℓ](1 − e^{ε−ℓ})₊ (the hockey-stick
divergence; Murtagh & Vadhan 2016, Thm. 1.5, for heterogeneous εᵢ; KOV 2015, Thm. 3.3 for
homogeneous). Computing it is #P-hard in general (Murtagh & Vadhan), but cheap for few distinct
εᵢ: the support has Π_g(k_g + 1) points; above :data:`EXACT_PURE_MAX_SUPPORT` the method is
declared inapplicable (``math.inf``) and the other accountants answer. The cap bounds the time
spent inside the budget row lock: ≈ 20 ms at 2.5·10⁵ points (≈ 0.3 s at 2·10⁶, mostly the sort).
Between consecutive loss values δ(ε) = A − e^ε·B (A = P[ℓ > ε], B = Q[ℓ > ε]), so instead of a
bisection ε is solved exactly in its segment: ε = ln(A − δ) − ln B. Suffix masses are cumulative
sums (Q rescaled by e^{max ℓ}) when the losses span ≤ 600, and are accumulated in log space
otherwise (no overflow at large ε). The error is floating-point rounding only (checked ≈ 1e-13
relative against the KOV closed form in 60-digit arithmetic; point masses below 1e-308 underflow
and are dropped), far inside BUDGET_RELATIVE_SLACK.
For continuous Laplace this is sound but not tight (its own loss is not ±ε); RDP with Mironov's
curve can then be lower, and the minimum is reported.

**Speed.** :func:`epsilon_spent` runs inside the budget row lock. Identical events are grouped
(:class:`collections.Counter`): RDP of k identical events is k × one curve, evaluated with numpy
over the whole order grid and cached per distinct event; Σρ, Σμ² and Σε are taken with
``math.fsum`` over the repeated values (C-level iteration, bit-identical to the per-event sums).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from privacy.calibrate import check_delta, check_epsilon, check_positive, gaussian_delta
from privacy.errors import PrivacyParameterError

__all__ = [
    "EXACT_PURE_MAX_SUPPORT",
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
    "exact_pure_delta",
    "exact_pure_epsilon",
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

# exact_pure: largest joint privacy-loss support Π_g(k_g + 1) computed (beyond it: not applicable).
EXACT_PURE_MAX_SUPPORT = 250_000

FloatArray = npt.NDArray[np.float64]


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
        sigma, sens = self.sigma, self.l2_sensitivity
        if 1e-100 < sigma < 1e100 and sens < 1e100:  # the usual range: the historical formula
            return sens**2 / (2.0 * sigma**2)
        ratio = sens / sigma  # extremes: ∞ (never an exception) or a value below 1e-200
        return ratio * ratio / 2.0


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


Groups = Mapping["Event", int]


def _check_events(events: Iterable[Event]) -> list[Event]:
    out = list(events)
    for ev in out:
        if not isinstance(ev, LaplaceEvent | GaussianEvent | PureDPEvent | ZCDPEvent):
            raise PrivacyParameterError("mechanism", f"unknown privacy event {ev!r}")
    return out


def _group(events: Iterable[Event]) -> Counter[Event]:
    """Identical events → multiplicities (events are frozen, hashable dataclasses); every event
    checked once per distinct value."""
    try:
        groups: Counter[Event] = Counter(events)
    except TypeError as exc:  # an unhashable non-event
        raise PrivacyParameterError("mechanism", f"unknown privacy event: {exc}") from None
    _check_events(groups)
    return groups


def _sum(values: Iterable[float]) -> float:
    """``math.fsum`` of non-negative values, ``math.inf`` when it overflows (sound: ∞ bounds
    anything)."""
    try:
        return math.fsum(values)
    except OverflowError:  # "intermediate overflow in fsum"
        return math.inf


def _repeat(pairs: Iterable[tuple[float, int]]) -> Iterable[float]:
    """Each value repeated k times, for ``math.fsum`` (exact, so equal to the per-event sum)."""
    return itertools.chain.from_iterable(itertools.repeat(x, k) for x, k in pairs)


def _pure_epsilon(ev: Event) -> float | None:
    """ε if the event is pure ε-DP, else None."""
    if isinstance(ev, LaplaceEvent | PureDPEvent):
        return ev.epsilon
    return None


def _pure_groups(groups: Groups) -> dict[float, int] | None:
    """ε → number of events, if every event is pure DP (Laplace of either kind, PureDP)."""
    out: dict[float, int] = {}
    for ev, k in groups.items():
        e = _pure_epsilon(ev)
        if e is None:
            return None
        out[e] = out.get(e, 0) + k
    return out


# --------------------------------------------------------------------------- basic / advanced


def _basic(groups: Groups) -> float:
    by_eps = _pure_groups(groups)
    if by_eps is None:
        return math.inf
    return _sum(_repeat(by_eps.items()))


def _advanced(groups: Groups, d: float) -> float:
    basic = _basic(groups)
    if not groups or math.isinf(basic):
        return basic
    eps0 = max(e for e in (_pure_epsilon(ev) for ev in groups) if e is not None)
    k = sum(groups.values())
    try:
        advanced = eps0 * math.sqrt(2.0 * k * _log_inv(d)) + k * eps0 * math.expm1(eps0)
    except OverflowError:  # e^ε₀ overflows past ε₀ ≈ 709: the bound is +∞ (basic wins)
        advanced = math.inf
    return min(advanced, basic)


def basic_composition_epsilon(events: Sequence[Event]) -> float:
    """Σεᵢ (correctly rounded with fsum) if every event is pure DP, else ``math.inf``."""
    return _basic(_group(events))


def advanced_composition_epsilon(events: Sequence[Event], delta: float) -> float:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20).

    k mechanisms that are each ε₀-DP compose to (ε₀√(2k ln(1/δ′)) + kε₀(e^{ε₀} − 1), kδ₀ + δ′).
    Here δ₀ = 0 (pure events), so the whole δ goes to δ′. Heterogeneous εᵢ use ε₀ = max εᵢ
    (each event is also ε₀-DP). The result is min(advanced, basic); ``math.inf`` if any event is
    not pure DP.
    """
    d = check_delta(delta)
    return _advanced(_group(events), d)


# --------------------------------------------------------------------------- zCDP


def _event_rho(ev: Event) -> float:
    if isinstance(ev, GaussianEvent):
        return ev.rho
    if isinstance(ev, ZCDPEvent):
        return ev.rho
    try:
        return ev.epsilon**2 / 2.0  # pure ε-DP ⇒ ε²/2-zCDP (Bun & Steinke 2016, Prop. 3.3)
    except OverflowError:  # ε > ~1.3e154
        return math.inf


def _rho(groups: Groups) -> float:
    return _sum(_repeat((_event_rho(ev), k) for ev, k in groups.items()))


def _log_inv(d: float) -> float:
    """ln(1/δ); −ln δ when 1/δ overflows (subnormal δ), so that ρ = 0 never meets ln ∞."""
    inv = 1.0 / d
    return math.log(inv) if inv < math.inf else -math.log(d)


def _zcdp(groups: Groups, d: float) -> float:
    rho = _rho(groups)
    return rho + 2.0 * math.sqrt(rho * _log_inv(d))


def zcdp_rho(events: Sequence[Event]) -> float:
    """Total ρ: zCDP composes additively (Bun & Steinke 2016, Lemma 2.3)."""
    return _rho(_group(events))


def zcdp_epsilon(events: Sequence[Event], delta: float) -> float:
    """ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)."""
    d = check_delta(delta)
    return _zcdp(_group(events), d)


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


@dataclass(frozen=True)
class _OrderGrid:
    """Per-order constants of one grid of Rényi orders, as read-only arrays."""

    alpha: FloatArray
    am1: FloatArray  # α − 1
    log_alpha: FloatArray
    log1p_m_inv: FloatArray  # ln(1 − 1/α)
    lap_log_a: FloatArray  # ln(α/(2α − 1))
    lap_log_b: FloatArray  # ln((α − 1)/(2α − 1))


def _frozen(values: list[float]) -> FloatArray:
    arr = np.array(values, dtype=np.float64)
    arr.flags.writeable = False
    return arr


@lru_cache(maxsize=16)
def _order_grid(orders: tuple[float, ...]) -> _OrderGrid:
    # math.* per order (computed once per grid), so every constant equals the scalar code's.
    return _OrderGrid(
        alpha=_frozen(list(orders)),
        am1=_frozen([a - 1.0 for a in orders]),
        log_alpha=_frozen([math.log(a) for a in orders]),
        log1p_m_inv=_frozen([math.log1p(-1.0 / a) for a in orders]),
        lap_log_a=_frozen([math.log(a / (2.0 * a - 1.0)) for a in orders]),
        lap_log_b=_frozen([math.log((a - 1.0) / (2.0 * a - 1.0)) for a in orders]),
    )


@lru_cache(maxsize=4096)
def _event_curve(ev: Event, orders: tuple[float, ...]) -> FloatArray:
    """``event_rdp(ev, α)`` over a whole order grid (numpy; cached per distinct event)."""
    g = _order_grid(orders)
    with np.errstate(over="ignore"):  # an absurd ε or ρ (1e300): the curve is ∞, a sound bound
        curve = _raw_curve(ev, g)
    curve.flags.writeable = False
    return curve


def _raw_curve(ev: Event, g: _OrderGrid) -> FloatArray:
    if isinstance(ev, GaussianEvent | ZCDPEvent):
        curve = g.alpha * ev.rho
    else:
        eps = ev.epsilon
        if isinstance(ev, LaplaceEvent) and not ev.discrete:
            log_num = np.logaddexp(g.lap_log_a + g.am1 * eps, g.lap_log_b - g.alpha * eps)
            raw = log_num / g.am1
        else:
            log_num = np.logaddexp(g.alpha * eps, (1.0 - g.alpha) * eps)
            raw = (log_num - _logaddexp(0.0, eps)) / g.am1
        curve = np.minimum(eps, np.maximum(0.0, raw))
    return np.asarray(curve, dtype=np.float64)


def _rdp_curve(groups: Groups, orders: tuple[float, ...]) -> FloatArray:
    """r(α) = Σ kᵢ·rᵢ(α) over distinct events (Mironov 2017, Prop. 1)."""
    total = np.zeros(len(orders))
    with np.errstate(over="ignore"):
        for ev, k in groups.items():
            total += k * _event_curve(ev, orders)
    return total


def _rdp_to_epsilon(
    orders: tuple[float, ...], rdp: FloatArray, log_d: float, tight: bool
) -> tuple[float, float]:
    g = _order_grid(orders)
    if tight:
        eps = rdp + g.log1p_m_inv - (log_d + g.log_alpha) / g.am1
    else:
        eps = rdp - log_d / g.am1
    i = int(np.argmin(eps))  # the first minimum, as a strict-< scan would pick
    best = float(eps[i])
    if math.isnan(best):
        return math.nan, math.nan
    return max(0.0, best), float(g.alpha[i])


def rdp_to_epsilon(
    orders: Sequence[float], rdp: Sequence[float], delta: float, *, tight: bool = True
) -> tuple[float, float]:
    """Convert an RDP curve to (ε, best α) at δ.

    tight=True: ε(α) = r(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (CKS 2020, Prop. 12).
    tight=False: the standard ε(α) = r(α) + ln(1/δ)/(α − 1) (Mironov 2017, Prop. 3).
    ε is clipped at 0.
    """
    d = check_delta(delta)
    key = tuple(float(a) for a in orders)
    curve = np.asarray(rdp, dtype=np.float64)
    if curve.shape != (len(key),):
        raise ValueError("orders and rdp must have the same length")
    return _rdp_to_epsilon(key, curve, math.log(d), tight)


def _rdp(groups: Groups, d: float, orders: tuple[float, ...] = RDP_ORDERS) -> float:
    return _rdp_to_epsilon(orders, _rdp_curve(groups, orders), math.log(d), True)[0]


def rdp_epsilon(
    events: Sequence[Event], delta: float, orders: Sequence[float] = RDP_ORDERS
) -> float:
    """Compose RDP curves additively (Mironov 2017, Prop. 1) and convert tightly."""
    d = check_delta(delta)
    return _rdp(_group(events), d, tuple(float(a) for a in orders))


# --------------------------------------------------------------------------- exact Gaussian (GDP)


def _gdp(groups: Groups, d: float) -> float:
    if not groups or not all(isinstance(ev, GaussianEvent) and not ev.discrete for ev in groups):
        return math.inf
    ratios = ((ev.l2_sensitivity / ev.sigma, k) for ev, k in groups.items())  # type: ignore[union-attr]
    mu = math.sqrt(_sum(_repeat((r * r, k) for r, k in ratios)))
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
    upper end of the bracket is returned. ``math.inf`` unless every event is a GaussianEvent with
    ``discrete=False`` (see the module notes on the discrete Gaussian).
    """
    d = check_delta(delta)
    return _gdp(_group(events), d)


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
    log_norm = k * _logaddexp(0.0, eps)
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
    by_eps = _pure_groups(_group(events))
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


def _exact_pure(groups: Groups, d: float) -> float:
    by_eps = _pure_groups(groups)
    if not by_eps or not _sum(eps * k for eps, k in by_eps.items()) <= 1e300:
        return math.inf  # not applicable, or losses so large their sums would overflow
    dist = _loss_distribution(by_eps)
    if dist is None:
        return math.inf
    return _solve_exact(dist, d)


def exact_pure_epsilon(events: Sequence[Event], delta: float) -> float:
    """Exact (optimal) ε at δ for a list of pure ε-DP events (LaplaceEvent of either kind,
    PureDPEvent): the composition of the RR_{εᵢ} pairs, grouped by distinct εᵢ (module notes).
    ``math.inf`` if any event is not pure or the loss support exceeds
    :data:`EXACT_PURE_MAX_SUPPORT`."""
    d = check_delta(delta)
    return _exact_pure(_group(events), d)


# --------------------------------------------------------------------------- the answer

# Tie-break order: the simplest explanation wins when two methods give the same ε.
_METHODS = ("basic", "advanced", "exact_pure", "zcdp", "rdp", "gdp")


def epsilon_spent(events: Sequence[Event], delta: float) -> AccountingResult:
    """The tightest sound ε at δ over all applicable accountants, and which one gave it.

    An empty event list spends nothing: ``AccountingResult(0.0, "none", {})``.
    """
    d = check_delta(delta)
    groups = _group(events)
    if not groups:
        return AccountingResult(epsilon=0.0, method="none", candidates={})
    candidates = {
        "basic": _basic(groups),
        "advanced": _advanced(groups, d),
        "exact_pure": _exact_pure(groups, d),
        "zcdp": _zcdp(groups, d),
        "rdp": _rdp(groups, d),
        "gdp": _gdp(groups, d),
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
