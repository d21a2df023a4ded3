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
ContinuousLaplaceEvent(ε)  continuous Laplace, b = Δ₁/ε (kept for   Mironov 2017 Prop. 6;
                           comparisons; never sampled)              pure ε for basic/exact
DiscreteGaussianEvent      discrete Gaussian N_ℤ(0, σ²), L2         zCDP/RDP ρ = Δ²/(2σ²)
(σ, Δ₂)                    sensitivity Δ₂ (CKS 2020, Thm. 14)       only (no GDP)
ContinuousGaussianEvent    continuous Gaussian                      zCDP/RDP and exact GDP
(σ, Δ₂)
PureDPEvent(ε)             any ε-DP mechanism                       pure-DP (RR_ε) curve
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
    "ContinuousGaussianEvent",
    "ContinuousLaplaceEvent",
    "DiscreteGaussianEvent",
    "DiscreteLaplaceEvent",
    "Event",
    "Groups",
    "PureDPEvent",
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
class ZCDPEvent:
    """Any ρ-zCDP mechanism (Bun & Steinke 2016)."""

    rho: float

    def __post_init__(self) -> None:
        check_positive(self.rho, "rho")


Event = (
    DiscreteLaplaceEvent
    | ContinuousLaplaceEvent
    | DiscreteGaussianEvent
    | ContinuousGaussianEvent
    | PureDPEvent
    | ZCDPEvent
)
EVENT_TYPES: tuple[type, ...] = (
    DiscreteLaplaceEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    ContinuousGaussianEvent,
    PureDPEvent,
    ZCDPEvent,
)
GaussianEvents = DiscreteGaussianEvent | ContinuousGaussianEvent
PureEvents = DiscreteLaplaceEvent | ContinuousLaplaceEvent | PureDPEvent

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
    """ε if the event is pure ε-DP (Laplace of either kind, PureDP), else None."""
    if isinstance(ev, PureEvents):
        return ev.epsilon
    return None


def event_rho(ev: Event) -> float:
    """ρ of one event: its own for Gaussians and zCDP, ε²/2 for pure ε-DP (Bun & Steinke 2016,
    Prop. 3.3); ∞ when ε² overflows (ε > ~1.3e154)."""
    if isinstance(ev, GaussianEvents | ZCDPEvent):
        return ev.rho
    try:
        return ev.epsilon**2 / 2.0
    except OverflowError:
        return math.inf
