"""Privacy events: what one release spends, as types whose meaning never changes.

Modelled on Google's ``dp_accounting.dp_event``: every event type stands for exactly one
mechanism, with no default that selects between mechanisms. The ledger stores events through
:mod:`dpcore.central.event_codec` (one type tag per class), so a stored entry is accounted the
same way for as long as it exists. (The former ``LaplaceEvent(discrete=True)`` was one class for
two mechanisms with different privacy curves: flipping its default would have re-accounted every
stored entry.)

=========================  ======================================  ==========================
event                      mechanism                                curves used
=========================  ======================================  ==========================
DiscreteLaplaceEvent(ε)    discrete Laplace, scale Δ₁/ε (the        pure-DP (RR_ε) curve: its
                           sampler of :mod:`dpcore.central.noise`)  loss for a shift of one is
                                                                    exactly ±ε
ShiftedDiscreteLaplace-    discrete Laplace, scale K/ε, on a query  pure-DP (RR_ε) curve; its
Event(ε, K)                that moves by ≤ K (a number question's   own PLD (shift K) in the
                           grid sum, K = its sensitivity; issue 13) PLD accountant
ContinuousLaplaceEvent(ε)  continuous Laplace, b = Δ₁/ε (kept for   Mironov 2017 Prop. 6;
                           comparisons; never sampled)              pure ε for basic/exact
DiscreteGaussianEvent      discrete Gaussian N_ℤ(0, σ²), L2         zCDP/RDP ρ = Δ²/(2σ²)
(σ, Δ₂)                    sensitivity Δ₂ (CKS 2020, Thm. 14)       only (no GDP)
ContinuousGaussianEvent    continuous Gaussian                      zCDP/RDP and exact GDP
(σ, Δ₂)
PureDPEvent(ε)             any ε-DP mechanism                       pure-DP (RR_ε) curve
BoundedRangeEvent(ε)       the exponential mechanism with ε: ε-DP   pure-DP (RR_ε) curve where
                           and ε-bounded-range (Durfee & Rogers     a method needs pure ε;
                           2019; :mod:`dpcore.central.selection`)    ρ = ε²/8 and RDP
                                                                    min(RR_ε, αε²/8) (Cesar &
                                                                    Rogers 2021, Lemma 3.4)
ZCDPEvent(ρ)               any ρ-zCDP mechanism                     r(α) = αρ
=========================  ======================================  ==========================

The soundness notes for each curve are in :mod:`dpcore.central.accounting`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from dpcore.errors import PrivacyParameterError
from dpcore.validation import check_epsilon, check_positive

__all__ = [
    "EVENT_TYPES",
    "BoundedRangeEvent",
    "ContinuousGaussianEvent",
    "ContinuousLaplaceEvent",
    "DiscreteGaussianEvent",
    "DiscreteLaplaceEvent",
    "Event",
    "Groups",
    "PureDPEvent",
    "ShiftedDiscreteLaplaceEvent",
    "ZCDPEvent",
    "event_rho",
    "fsum_or_inf",
    "group_events",
    "pure_epsilon",
    "repeat_values",
]


def _gaussian_rho(sigma: float, sens: float) -> float:
    """ρ = Δ₂²/(2σ²) (Bun & Steinke 2016; CKS 2020 Thm. 14 for the discrete Gaussian)."""
    if 1e-100 < sigma < 1e100 and sens < 1e100:  # the usual range: the historical formula
        return float(sens**2 / (2.0 * sigma**2))
    ratio = sens / sigma  # extremes: ∞ (never an exception) or a value below 1e-200
    return ratio * ratio / 2.0


@dataclass(frozen=True)
class DiscreteLaplaceEvent:
    """The discrete Laplace mechanism with scale Δ₁/ε: pure ε-DP, accounted as RR_ε."""

    epsilon: float
    discrete: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)


@dataclass(frozen=True)
class ShiftedDiscreteLaplaceEvent:
    """The discrete Laplace mechanism with scale K/ε on a query that moves by at most the integer
    K ≥ 1 (a number question's grid sum, K its sensitivity; issue 13).

    Still pure ε-DP (accounted as RR_ε by every pure-DP method); only the PLD accountant uses
    ``shift``: the pair (DL(0, K/ε), DL(K, K/ε)) has losses in [−ε, ε] on K + 1 levels and is
    tighter than RR_ε. ``shift`` has no default: K = 1 is :class:`DiscreteLaplaceEvent`.
    """

    epsilon: float
    shift: int
    discrete: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        if isinstance(self.shift, bool) or not isinstance(self.shift, int) or self.shift < 1:
            raise PrivacyParameterError("shift", "must be a positive integer")


@dataclass(frozen=True)
class ContinuousLaplaceEvent:
    """The continuous Laplace mechanism with b = Δ₁/ε (Mironov 2017, Prop. 6)."""

    epsilon: float
    discrete: ClassVar[bool] = False

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)


@dataclass(frozen=True)
class DiscreteGaussianEvent:
    """The discrete Gaussian N_ℤ(0, σ²) on a query of L2 sensitivity Δ₂: ρ = Δ₂²/(2σ²)-zCDP."""

    sigma: float
    l2_sensitivity: float
    discrete: ClassVar[bool] = True

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma")
        check_positive(self.l2_sensitivity, "l2_sensitivity")

    @property
    def rho(self) -> float:
        return _gaussian_rho(self.sigma, self.l2_sensitivity)


@dataclass(frozen=True)
class ContinuousGaussianEvent:
    """The continuous Gaussian N(0, σ²) on a query of L2 sensitivity Δ₂ (Δ₂/σ-GDP)."""

    sigma: float
    l2_sensitivity: float
    discrete: ClassVar[bool] = False

    def __post_init__(self) -> None:
        check_positive(self.sigma, "sigma")
        check_positive(self.l2_sensitivity, "l2_sensitivity")

    @property
    def rho(self) -> float:
        return _gaussian_rho(self.sigma, self.l2_sensitivity)


@dataclass(frozen=True)
class PureDPEvent:
    """Any ε-DP mechanism (e.g. a randomized-response release)."""

    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)


@dataclass(frozen=True)
class BoundedRangeEvent:
    """The exponential mechanism P[r] ∝ exp(ε·u_r/R), R the range sensitivity of u: ε-DP and
    ε-bounded-range (Durfee & Rogers 2019, Lemma 3.2; docs/formulas.md#selection), hence
    ε²/8-zCDP (Dong, Durfee & Rogers 2020; Cesar & Rogers 2021, Lemma 3.4). Permute-and-flip is
    *not* known to be bounded-range: it would be a :class:`PureDPEvent`."""

    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)

    @property
    def rho(self) -> float:
        """ρ = ε²/8 (∞ when ε² overflows)."""
        try:
            return self.epsilon**2 / 8.0
        except OverflowError:
            return math.inf


@dataclass(frozen=True)
class ZCDPEvent:
    """Any ρ-zCDP mechanism (Bun & Steinke 2016)."""

    rho: float

    def __post_init__(self) -> None:
        check_positive(self.rho, "rho")


Event = (
    DiscreteLaplaceEvent
    | ShiftedDiscreteLaplaceEvent
    | ContinuousLaplaceEvent
    | DiscreteGaussianEvent
    | ContinuousGaussianEvent
    | PureDPEvent
    | BoundedRangeEvent
    | ZCDPEvent
)
EVENT_TYPES: tuple[type, ...] = (
    DiscreteLaplaceEvent,
    ShiftedDiscreteLaplaceEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    ContinuousGaussianEvent,
    PureDPEvent,
    BoundedRangeEvent,
    ZCDPEvent,
)
GaussianEvents = DiscreteGaussianEvent | ContinuousGaussianEvent
PureEvents = (
    DiscreteLaplaceEvent
    | ShiftedDiscreteLaplaceEvent
    | ContinuousLaplaceEvent
    | PureDPEvent
    | BoundedRangeEvent
)

Groups = Mapping[Event, int]


def group_events(events: Iterable[Event]) -> Counter[Event]:
    """Identical events → multiplicities (events are frozen, hashable dataclasses); every event
    checked once per distinct value."""
    try:
        groups: Counter[Event] = Counter(events)
    except TypeError as exc:  # an unhashable non-event
        raise PrivacyParameterError("mechanism", f"unknown privacy event: {exc}") from None
    for ev in groups:
        if not isinstance(ev, EVENT_TYPES):
            raise PrivacyParameterError("mechanism", f"unknown privacy event {ev!r}")
    return groups


def fsum_or_inf(values: Iterable[float]) -> float:
    """``math.fsum`` of non-negative values, ``math.inf`` when it overflows (sound: ∞ bounds
    anything)."""
    try:
        return math.fsum(values)
    except OverflowError:  # "intermediate overflow in fsum"
        return math.inf


def repeat_values(pairs: Iterable[tuple[float, int]]) -> Iterable[float]:
    """Each value repeated k times, for ``math.fsum`` (exact, so equal to the per-event sum)."""
    return itertools.chain.from_iterable(itertools.repeat(x, k) for x, k in pairs)


def pure_epsilon(ev: Event) -> float | None:
    """ε if the event is pure ε-DP (Laplace of either kind, PureDP, BoundedRange), else None."""
    if isinstance(ev, PureEvents):
        return ev.epsilon
    return None


def event_rho(ev: Event) -> float:
    """ρ of one event: its own for Gaussians and zCDP, ε²/8 for ε-bounded-range (the exponential
    mechanism), ε²/2 for other pure ε-DP (Bun & Steinke 2016, Prop. 3.3); ∞ when ε² overflows
    (ε > ~1.3e154)."""
    if isinstance(ev, GaussianEvents | ZCDPEvent | BoundedRangeEvent):
        return ev.rho
    try:
        return ev.epsilon**2 / 2.0
    except OverflowError:
        return math.inf
