"""Privacy accounting for central-DP releases (docs/formulas.md#accounting).

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
pld          the privacy-loss distributions of the mechanisms actually       discrete Laplace (any
             sampled, composed (pessimistic, connect-the-dots; Koskela et    shift), pure events,
             al. 2020, Doroshenko et al. 2022): exact for one kind of event  discrete Gaussian with
             on its own lattice, else within a 0.4 % tolerance (tests find   integer sensitivity
             ≤ 1.001×; :mod:`dpcore.central.pld`; issue 13)
===========  ==========================================================  ======================

Which privacy-loss curve each event gets — and why (soundness notes):

* :class:`DiscreteGaussianEvent` (what :mod:`dpcore.central.noise` samples): the discrete
  Gaussian with integer-valued L2 sensitivity Δ satisfies D_α ≤ αΔ²/(2σ²) (CKS 2020, Thm. 14 —
  the same RDP/zCDP curve as the continuous one). Its exact (ε, δ) curve (CKS Thm. 7) is *not*
  claimed here to be dominated by the continuous curve, so GDP is **not** applied to discrete
  events; they are accounted through zCDP/RDP, and (integer Δ) through their own PLD (issue 13).
* :class:`ShiftedDiscreteLaplaceEvent` (a grid sum: scale K/ε, moved by ≤ K): pure ε-DP (the RR_ε
  curve everywhere) and, in the PLD accountant, its own pair (DL(0, K/ε), DL(K, K/ε)).
* :class:`ContinuousGaussianEvent`: continuous Gaussian; RDP αΔ²/(2σ²) (Mironov 2017,
  Prop. 7) and the exact GDP composition.
* :class:`DiscreteLaplaceEvent` (the discrete Laplace of :mod:`dpcore.central.noise`
  with scale Δ₁/ε): for a shift of one, its privacy loss is exactly ±ε (P[x]/P[x−1] = e^{∓ε}), i.e.
  it *is* randomized response with ε — the worst ε-DP pair. Its RDP curve is therefore the pure-DP
  curve below, which is strictly larger than the continuous Laplace curve. Using Mironov's
  continuous-Laplace curve for discrete noise would under-count.
* :class:`ContinuousLaplaceEvent`: continuous Laplace with b = 1/ε (Mironov 2017,
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
:func:`~dpcore.central.events.fsum_or_inf`
(``math.inf`` on overflow), squares are taken as products (no ``OverflowError``),
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
a charge spends here: ≈ 20 ms at 2.5·10⁵ points (≈ 0.3 s at 2·10⁶, mostly the sort).
Between consecutive loss values δ(ε) = A − e^ε·B (A = P[ℓ > ε], B = Q[ℓ > ε]), so instead of a
bisection ε is solved exactly in its segment: ε = ln(A − δ) − ln B. Suffix masses are cumulative
sums (Q rescaled by e^{max ℓ}) when the losses span ≤ 600, and are accumulated in log space
otherwise (no overflow at large ε). The error is floating-point rounding only (checked ≈ 1e-13
relative against the KOV closed form in 60-digit arithmetic; point masses below 1e-308 underflow
and are dropped), far inside BUDGET_RELATIVE_SLACK.
For continuous Laplace this is sound but not tight (its own loss is not ±ε); RDP with Mironov's
curve can then be lower, and the minimum is reported.

**Speed.** :func:`epsilon_spent` runs in the release request *before* the budget lock is taken
(:mod:`privacy.services.budget`: inside the lock only the ledger's fingerprint is checked, and
:mod:`dpcore.central.ledger_state` composes onto a stored state when the ledger moved). A wide
discrete Gaussian's lattice is built from block moments (:mod:`dpcore.central.dgauss_lattice`).
Identical events are grouped (:class:`collections.Counter`): RDP of k identical events is k ×
one curve, evaluated with numpy over the whole order grid and cached per distinct event; Σρ, Σμ²
and Σε are taken with ``math.fsum`` over the repeated values (C-level iteration, bit-identical
to the per-event sums).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from dpcore.central import dgauss_profile, pld
from dpcore.central.events import (
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    Event,
    Groups,
    PureDPEvent,
    ShiftedDiscreteLaplaceEvent,
    ZCDPEvent,
    event_rho,
    fsum_or_inf,
    group_events,
    pure_epsilon,
    repeat_values,
)
from dpcore.central.exact import (
    EXACT_PURE_MAX_SUPPORT,
    exact_pure,
    exact_pure_delta,
    exact_pure_epsilon,
    gdp,
    gdp_epsilon,
    pure_groups,
)
from dpcore.central.rdp import RDP_ORDERS, event_rdp, rdp_epsilon, rdp_to_epsilon
from dpcore.central.rdp import rdp_spent as _rdp
from dpcore.errors import PrivacyParameterError
from dpcore.validation import check_delta, check_epsilon, check_positive

__all__ = [
    "BUDGET_RELATIVE_SLACK",
    "EXACT_PURE_MAX_SUPPORT",
    "RDP_ORDERS",
    "AccountingResult",
    "ContinuousGaussianEvent",
    "ContinuousLaplaceEvent",
    "DiscreteGaussianEvent",
    "DiscreteLaplaceEvent",
    "Event",
    "PrivacyParameterError",
    "PureDPEvent",
    "ShiftedDiscreteLaplaceEvent",
    "ZCDPEvent",
    "advanced_composition_epsilon",
    "basic_composition_epsilon",
    "can_afford",
    "discrete_gaussian_events",
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

# can_afford's relative slack: ε's are user-entered decimals, and 0.1 + 0.1 + 0.1 > 0.3 in binary
# floating point. Without a slack an exactly-fitting m-th release would be refused. 1e-9·ε_total
# is far below any meaningful privacy difference (and every accountant here is an upper bound).
BUDGET_RELATIVE_SLACK = 1e-9


@dataclass(frozen=True)
class AccountingResult:
    """Tightest sound ε at the given δ, the method that gave it, and every method's value
    (``math.inf`` where a method does not apply)."""

    epsilon: float
    method: str
    candidates: dict[str, float] = field(default_factory=dict)


# --------------------------------------------------------------------------- basic / advanced


def _basic(groups: Groups) -> float:
    by_eps = pure_groups(groups)
    if by_eps is None:
        return math.inf
    return fsum_or_inf(repeat_values(by_eps.items()))


def _advanced(groups: Groups, d: float) -> float:
    basic = _basic(groups)
    if not groups or math.isinf(basic):
        return basic
    eps0 = max(e for e in (pure_epsilon(ev) for ev in groups) if e is not None)
    k = sum(groups.values())
    try:
        advanced = eps0 * math.sqrt(2.0 * k * _log_inv(d)) + k * eps0 * math.expm1(eps0)
    except OverflowError:  # e^ε₀ overflows past ε₀ ≈ 709: the bound is +∞ (basic wins)
        advanced = math.inf
    return min(advanced, basic)


def basic_composition_epsilon(events: Sequence[Event]) -> float:
    """Σεᵢ (correctly rounded with fsum) if every event is pure DP, else ``math.inf``."""
    return _basic(group_events(events))


def advanced_composition_epsilon(events: Sequence[Event], delta: float) -> float:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm. 3.20).

    k mechanisms that are each ε₀-DP compose to (ε₀√(2k ln(1/δ′)) + kε₀(e^{ε₀} − 1), kδ₀ + δ′).
    Here δ₀ = 0 (pure events), so the whole δ goes to δ′. Heterogeneous εᵢ use ε₀ = max εᵢ
    (each event is also ε₀-DP). The result is min(advanced, basic); ``math.inf`` if any event is
    not pure DP.
    """
    d = check_delta(delta)
    return _advanced(group_events(events), d)


# --------------------------------------------------------------------------- zCDP


def _rho(groups: Groups) -> float:
    return fsum_or_inf(repeat_values((event_rho(ev), k) for ev, k in groups.items()))


def _log_inv(d: float) -> float:
    """ln(1/δ); −ln δ when 1/δ overflows (subnormal δ), so that ρ = 0 never meets ln ∞."""
    inv = 1.0 / d
    return math.log(inv) if inv < math.inf else -math.log(d)


def _zcdp(groups: Groups, d: float) -> float:
    rho = _rho(groups)
    return rho + 2.0 * math.sqrt(rho * _log_inv(d))


def zcdp_rho(events: Sequence[Event]) -> float:
    """Total ρ: zCDP composes additively (Bun & Steinke 2016, Lemma 2.3)."""
    return _rho(group_events(events))


def zcdp_epsilon(events: Sequence[Event], delta: float) -> float:
    """ε = ρ + 2√(ρ ln(1/δ)) (Bun & Steinke 2016, Prop. 1.3)."""
    d = check_delta(delta)
    return _zcdp(group_events(events), d)


# --------------------------------------------------------------------------- RDP


# --------------------------------------------------------------------------- the answer

# Tie-break order: the simplest explanation wins when two methods give the same ε.
_METHODS = ("basic", "advanced", "exact_pure", "zcdp", "rdp", "gdp", "pld")


def epsilon_spent(events: Sequence[Event], delta: float) -> AccountingResult:
    """The tightest sound ε at δ over all applicable accountants, and which one gave it.

    An empty event list spends nothing: ``AccountingResult(0.0, "none", {})``.
    """
    d = check_delta(delta)
    groups = group_events(events)
    if not groups:
        return AccountingResult(epsilon=0.0, method="none", candidates={})
    candidates = dict(_candidates(frozenset(groups.items()), d))
    method = "basic"
    for name in _METHODS:
        if candidates[name] < candidates[method]:
            method = name
    return AccountingResult(epsilon=candidates[method], method=method, candidates=candidates)


@lru_cache(maxsize=256)
def _candidates(key: frozenset[tuple[Event, int]], d: float) -> tuple[tuple[str, float], ...]:
    """Every accountant's ε for one grouped history (cached: a charge composes the history
    before and after the new release, and the next charge's "before" is this one's "after")."""
    groups: Groups = dict(key)
    pure = exact_pure(groups, d)
    return (
        ("basic", _basic(groups)),
        ("advanced", _advanced(groups, d)),
        ("exact_pure", pure),
        ("zcdp", _zcdp(groups, d)),
        ("rdp", _rdp(groups, d)),
        ("gdp", gdp(groups, d)),
        ("pld", pld.events_epsilon(groups, d, pure)),
    )


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
    epsilon: float,
    delta: float,
    l2_sensitivity: float = 1.0,
    *,
    discrete: bool = True,
    sensitivities: Sequence[int] | None = None,
) -> float:
    """Smallest σ whose single release is charged at most ε by :func:`epsilon_spent` at δ.

    For ``discrete=False`` this is the analytic Gaussian σ (Balle & Wang 2018, = GDP with one
    event). For the discrete Gaussian (what the sampler draws) with the release's per-contribution
    integer ``sensitivities`` Δ_j (unit σ, contribution j gets Δ_jσ): σ calibrated against the
    discrete Gaussian's own privacy profile (:func:`dpcore.central.dgauss_profile.calibrate_sigma`,
    issue 13) — the events :func:`discrete_gaussian_events` are then charged ε. Without
    ``sensitivities``: one event of sensitivity ``l2_sensitivity`` (PLD when it is an integer,
    else RDP/zCDP), by bisection on the charge.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive(l2_sensitivity, "l2_sensitivity")
    if discrete and sensitivities:
        sigma = dgauss_profile.calibrate_sigma(eps, d, sensitivities)
        if epsilon_spent(discrete_gaussian_events(sigma, sensitivities), d).epsilon <= eps:
            return sigma
        # pragma: no cover - the PLD charge is the same computation; fall back to the bisection

    def charged(sigma: float) -> float:
        if discrete and sensitivities:  # pragma: no cover - see above
            return epsilon_spent(discrete_gaussian_events(sigma, sensitivities), d).epsilon
        event: Event = (
            DiscreteGaussianEvent(sigma, sens) if discrete else ContinuousGaussianEvent(sigma, sens)
        )
        return epsilon_spent([event], d).epsilon

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


def discrete_gaussian_events(sigma: float, sensitivities: Sequence[int]) -> list[Event]:
    """The ledger events of a discrete-Gaussian release with unit σ: contribution j is
    N_ℤ(0, (Δ_jσ)²) on a query of sensitivity Δ_j (ρ_j = 1/(2σ²), CKS 2020 Thm. 14); Δ_jσ is
    rounded down (:func:`~dpcore.central.dgauss_profile.scaled_sigma`), never under-charging."""
    return [
        DiscreteGaussianEvent(dgauss_profile.scaled_sigma(sigma, int(s)), float(s))
        for s in sensitivities
    ]
