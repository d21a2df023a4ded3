"""Rényi differential privacy: per-event curves, their composition and the conversion to (ε, δ).

r(α) = Σ rᵢ(α) (Mironov 2017, Prop. 1), converted tightly with
ε = min_α r(α) + ln(1 − 1/α) − (ln δ + ln α)/(α − 1) (Canonne, Kamath & Steinke 2020, Prop. 12;
Asoodeh et al. 2021). Which curve each event gets, and why: :mod:`dpcore.central.accounting`.
Identical events are grouped: RDP of k identical events is k × one curve, evaluated with numpy
over the whole order grid and cached per distinct event.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from dpcore.central.events import (
    BoundedRangeEvent,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    Event,
    Groups,
    ZCDPEvent,
    group_events,
)
from dpcore.errors import ArgumentError
from dpcore.validation import check_delta

__all__ = [
    "RDP_ORDERS",
    "curve_epsilon",
    "event_rdp",
    "logaddexp",
    "rdp_curve",
    "rdp_epsilon",
    "rdp_spent",
    "rdp_to_epsilon",
]

# Rényi orders (docs/formulas.md#rdp): 1.01 … 1.09 step 0.01 (finer near α → 1, where small-ε
# histories take their minimum; issue 13), 1.1 … 10.9 step 0.1, 11 … 63, 128 … 1024.
RDP_ORDERS: tuple[float, ...] = (
    tuple(round(1.0 + i / 100.0, 2) for i in range(1, 10))
    + tuple(round(1.0 + i / 10.0, 1) for i in range(1, 100))
    + tuple(float(a) for a in range(11, 64))
    + (128.0, 256.0, 512.0, 1024.0)
)

FloatArray = npt.NDArray[np.float64]


def logaddexp(a: float, b: float) -> float:
    hi, lo = (a, b) if a >= b else (b, a)
    return hi + math.log1p(math.exp(lo - hi))


def _pure_dp_rdp(epsilon: float, alpha: float) -> float:
    """Tight RDP of ε-DP (randomized response RR_ε): ln((e^{αε} + e^{(1−α)ε})/(1 + e^ε))/(α − 1)."""
    log_num = logaddexp(alpha * epsilon, (1.0 - alpha) * epsilon)
    log_den = logaddexp(0.0, epsilon)
    return min(epsilon, max(0.0, (log_num - log_den) / (alpha - 1.0)))


def _laplace_rdp(epsilon: float, alpha: float) -> float:
    """Continuous Laplace, b = 1/ε (Mironov 2017, Prop. 6)."""
    first = math.log(alpha / (2.0 * alpha - 1.0)) + (alpha - 1.0) * epsilon
    second = math.log((alpha - 1.0) / (2.0 * alpha - 1.0)) - alpha * epsilon
    return min(epsilon, max(0.0, logaddexp(first, second) / (alpha - 1.0)))


def event_rdp(ev: Event, alpha: float) -> float:
    """The Rényi divergence bound r(α) of one event (see the module notes)."""
    if isinstance(ev, DiscreteGaussianEvent | ContinuousGaussianEvent | ZCDPEvent):
        return alpha * ev.rho
    if isinstance(ev, ContinuousLaplaceEvent):
        return _laplace_rdp(ev.epsilon, alpha)
    if isinstance(ev, BoundedRangeEvent):  # ε-BR: both curves hold, so their minimum does
        return min(_pure_dp_rdp(ev.epsilon, alpha), alpha * ev.rho)
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
    if isinstance(ev, DiscreteGaussianEvent | ContinuousGaussianEvent | ZCDPEvent):
        curve = g.alpha * ev.rho
    else:
        eps = ev.epsilon
        if isinstance(ev, ContinuousLaplaceEvent):
            log_num = np.logaddexp(g.lap_log_a + g.am1 * eps, g.lap_log_b - g.alpha * eps)
            raw = log_num / g.am1
        else:
            log_num = np.logaddexp(g.alpha * eps, (1.0 - g.alpha) * eps)
            raw = (log_num - logaddexp(0.0, eps)) / g.am1
        curve = np.minimum(eps, np.maximum(0.0, raw))
        if isinstance(ev, BoundedRangeEvent):
            curve = np.minimum(curve, g.alpha * ev.rho)
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
        raise ArgumentError("rdp", "orders and rdp must have the same length")
    return _rdp_to_epsilon(key, curve, math.log(d), tight)


def rdp_curve(groups: Groups, orders: tuple[float, ...] = RDP_ORDERS) -> FloatArray:
    """r(α) of the grouped events over ``orders`` (a new array)."""
    return _rdp_curve(groups, orders)


def curve_epsilon(curve: FloatArray, d: float, orders: tuple[float, ...] = RDP_ORDERS) -> float:
    """ε at δ of a composed RDP curve (the tight conversion, as :func:`rdp_spent`)."""
    return _rdp_to_epsilon(orders, curve, math.log(d), True)[0]


def rdp_spent(groups: Groups, d: float, orders: tuple[float, ...] = RDP_ORDERS) -> float:
    return _rdp_to_epsilon(orders, _rdp_curve(groups, orders), math.log(d), True)[0]


def rdp_epsilon(
    events: Sequence[Event], delta: float, orders: Sequence[float] = RDP_ORDERS
) -> float:
    """Compose RDP curves additively (Mironov 2017, Prop. 1) and convert tightly."""
    d = check_delta(delta)
    return rdp_spent(group_events(events), d, tuple(float(a) for a in orders))
