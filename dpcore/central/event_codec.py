"""The ledger's JSON encoding of privacy events: one explicit type tag per event class.

One ledger entry (one release) is ``count`` identical events, stored as one JSON object::

    {"type": "discrete_laplace",    "epsilon_each": ε, "count": Q}
    {"type": "continuous_laplace",  "epsilon_each": ε, "count": Q}
    {"type": "pure_dp",             "epsilon_each": ε, "count": Q}
    {"type": "discrete_gaussian",   "sigma": σ, "l2_sensitivity": Δ₂, "count": Q}
    {"type": "continuous_gaussian", "sigma": σ, "l2_sensitivity": Δ₂, "count": Q}
    {"type": "zcdp",                "rho": ρ, "count": Q}

Every field is required and no other is allowed: a tag names exactly one class of
:mod:`dpcore.central.events`, whose meaning never changes, so a stored entry is accounted the same
way forever. A tag is never reused for another mechanism; the pre-2026 tags ``"laplace"`` (which
meant the *discrete* Laplace through a default) and ``"pure"`` are refused here — migration
``privacy/0003_ledger_event_types`` rewrote the stored entries. Floats round-trip exactly through
JSON (``repr``), so decoding gives back the very events that were charged.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dpcore.central.events import (
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    Event,
    PureDPEvent,
    ZCDPEvent,
)
from dpcore.errors import ArgumentError

__all__ = ["LEGACY_TAGS", "TAGS", "decode", "encode"]

#: Type tag → (event class, its JSON parameter fields in constructor order).
_CODEC: Final[dict[str, tuple[type[Any], tuple[str, ...]]]] = {
    "discrete_laplace": (DiscreteLaplaceEvent, ("epsilon_each",)),
    "continuous_laplace": (ContinuousLaplaceEvent, ("epsilon_each",)),
    "pure_dp": (PureDPEvent, ("epsilon_each",)),
    "discrete_gaussian": (DiscreteGaussianEvent, ("sigma", "l2_sensitivity")),
    "continuous_gaussian": (ContinuousGaussianEvent, ("sigma", "l2_sensitivity")),
    "zcdp": (ZCDPEvent, ("rho",)),
}
TAGS: Final[tuple[str, ...]] = tuple(_CODEC)
#: Tags of the former encoding, refused (see the module notes).
LEGACY_TAGS: Final[tuple[str, ...]] = ("laplace", "pure")
_TAG_OF: Final[dict[type[Any], str]] = {cls: tag for tag, (cls, _) in _CODEC.items()}


def _parameters(event: Event) -> list[float]:
    if isinstance(event, DiscreteGaussianEvent | ContinuousGaussianEvent):
        return [event.sigma, event.l2_sensitivity]
    if isinstance(event, ZCDPEvent):
        return [event.rho]
    return [event.epsilon]


def encode(events: Sequence[Event]) -> dict[str, Any]:
    """One ledger entry for ``events``: a non-empty list of *identical* events."""
    if not events:
        raise ArgumentError("events", "a ledger entry needs at least one event")
    first = events[0]
    if any(ev != first for ev in events):
        raise ArgumentError("events", "a ledger entry holds identical events only")
    tag = _TAG_OF.get(type(first))
    if tag is None:
        raise ArgumentError("events", f"unknown privacy event {first!r:.60}")
    fields = _CODEC[tag][1]
    record: dict[str, Any] = {"type": tag}
    record.update(zip(fields, (float(v) for v in _parameters(first)), strict=True))
    record["count"] = len(events)
    return record


def _number(record: Mapping[str, Any], field: str) -> float:
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(field, f"ledger event {field} must be a number (got {value!r:.60})")
    x = float(value)
    if not math.isfinite(x):
        raise ArgumentError(field, f"ledger event {field} must be finite (got {value!r:.60})")
    return x


def decode(record: Mapping[str, Any]) -> list[Event]:
    """The events of one stored ledger entry (the inverse of :func:`encode`)."""
    if not isinstance(record, Mapping):
        raise ArgumentError("event", f"a ledger event is a JSON object (got {record!r:.60})")
    tag = record.get("type")
    if tag in LEGACY_TAGS:
        raise ArgumentError(
            "type", f"ledger event type {tag!r} is the old encoding: run the migrations"
        )
    if not isinstance(tag, str) or tag not in _CODEC:
        raise ArgumentError("type", f"unknown ledger event type {tag!r:.60}")
    cls, fields = _CODEC[tag]
    expected = {"type", "count", *fields}
    if set(record) != expected:
        raise ArgumentError("event", f"ledger event {tag!r} needs exactly {sorted(expected)}")
    count = record["count"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ArgumentError("count", f"ledger event count must be a positive integer ({count!r})")
    event: Event = cls(*(_number(record, f) for f in fields))
    return [event] * count
