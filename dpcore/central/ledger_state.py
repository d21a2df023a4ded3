"""What a ledger has composed, kept so that a charge composes only the new events onto it
(issue 21 item 11, issue 24 goal 2; docs/privacy-model.md#budget).

The tight figure (:func:`dpcore.central.accounting.epsilon_spent`: exact pure-DP, GDP, PLD, …)
composes the whole history, which can take a while (PLD: ≈ 5 ms per *distinct* discrete-Gaussian
event). It is computed *before* the budget lock is taken; inside the lock the charge only checks
that the ledger is still the one composed. When it is not (another charge or a refund came in
between), the charge must not compose the whole history under the lock, so it composes the new
events onto this state and answers with :func:`bound`: the accountants whose composition is a
plain sum and therefore extends in O(1) per event —

* basic composition Σεᵢ (Dwork & Roth 2014, Thm. 3.14), pure events only;
* zCDP ρ = Σρᵢ, ε = ρ + 2√(ρ ln 1/δ) (Bun & Steinke 2016, Lemma 2.3 and Prop. 1.3);
* RDP r(α) = Σ rᵢ(α) on :data:`~dpcore.central.rdp.RDP_ORDERS` (Mironov 2017, Prop. 1),
  converted with Canonne, Kamath & Steinke 2020, Prop. 12.

Each is a sound upper bound on the same composition (the curves per event are those of
:mod:`dpcore.central.accounting`), so their minimum is sound, only looser than the tight figure.
The stored sums are added in another order than the accountant's (one charge at a time), so
they may differ from its by a few ulps either way; every figure is raised by a relative
:data:`ROUNDING_ALLOWANCE` (≫ the ≤ 10⁴ × 2⁻⁵³ of the sums, ≪ ``BUDGET_RELATIVE_SLACK``), so it
is never below the accountant's value for the same candidate.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpcore.central.accounting import AccountingResult
from dpcore.central.events import Event, event_rho, fsum_or_inf, group_events, pure_epsilon
from dpcore.central.rdp import RDP_ORDERS, curve_epsilon, rdp_curve

__all__ = ["EMPTY", "ROUNDING_ALLOWANCE", "Composed", "bound", "compose", "from_json", "to_json"]

#: Relative upward rounding of every figure of :func:`bound` (module notes).
ROUNDING_ALLOWANCE = 1e-11

# Methods of :func:`bound`, in the accountant's tie-break order.
_METHODS = ("basic", "zcdp", "rdp")


@dataclass(frozen=True)
class Composed:
    """Σρ, Σr(α) over RDP_ORDERS, and Σε while every event is pure (None after the first that
    is not)."""

    rho: float
    rdp: tuple[float, ...]
    pure: float | None


EMPTY = Composed(rho=0.0, rdp=tuple(0.0 for _ in RDP_ORDERS), pure=0.0)


def compose(state: Composed, events: Sequence[Event]) -> Composed:
    """``state`` with ``events`` composed onto it (O(distinct events × orders))."""
    groups = group_events(events)
    if not groups:
        return state
    rho = fsum_or_inf([state.rho, *(event_rho(ev) * k for ev, k in groups.items())])
    with np.errstate(over="ignore", invalid="ignore"):
        curve = np.asarray(state.rdp, dtype=np.float64) + rdp_curve(groups)
    pure: float | None = state.pure
    for ev, k in groups.items():
        eps = pure_epsilon(ev)
        pure = None if pure is None or eps is None else fsum_or_inf([pure, eps * k])
    return Composed(rho=rho, rdp=tuple(float(x) for x in curve), pure=pure)


def bound(state: Composed, delta: float) -> AccountingResult:
    """The smallest of basic, zCDP and RDP for the composed state at δ (sound; see the notes)."""
    if state == EMPTY:
        return AccountingResult(epsilon=0.0, method="none", candidates={})
    log_inv = -math.log(delta)
    rho = state.rho
    raw = {
        "basic": math.inf if state.pure is None else state.pure,
        "zcdp": rho + 2.0 * math.sqrt(rho * log_inv),
        "rdp": curve_epsilon(np.asarray(state.rdp, dtype=np.float64), delta),
    }
    candidates = {k: v * (1.0 + ROUNDING_ALLOWANCE) for k, v in raw.items()}
    method = min(_METHODS, key=lambda name: (candidates[name], _METHODS.index(name)))
    if math.isnan(candidates[method]):
        return AccountingResult(epsilon=math.inf, method="basic", candidates=candidates)
    return AccountingResult(epsilon=candidates[method], method=method, candidates=candidates)


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_json(state: Composed) -> dict[str, Any]:
    """JSON-safe form (±∞ as null: PostgreSQL's jsonb has no Infinity)."""
    return {
        "orders": list(RDP_ORDERS),
        "rho": _finite_or_none(state.rho),
        "rdp": [_finite_or_none(x) for x in state.rdp],
        "pure": None if state.pure is None else _finite_or_none(state.pure),
        "all_pure": state.pure is not None,
    }


def _num(value: Any) -> float:
    if value is None:
        return math.inf
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("not a number")
    x = float(value)
    if math.isnan(x) or x < 0:
        raise ValueError("not a non-negative number")
    return x


def from_json(record: Mapping[str, Any] | None) -> Composed | None:
    """The stored state, or None when absent, malformed or on another order grid (recompose)."""
    if not isinstance(record, Mapping) or record.get("orders") != list(RDP_ORDERS):
        return None
    try:
        rdp = record["rdp"]
        if not isinstance(rdp, list) or len(rdp) != len(RDP_ORDERS):
            return None
        pure = _num(record["pure"]) if record["all_pure"] is True else None
        return Composed(rho=_num(record["rho"]), rdp=tuple(_num(x) for x in rdp), pure=pure)
    except (KeyError, ValueError):
        return None
