"""The ledger's JSON encoding of privacy events: one explicit type tag per event class.

One ledger entry (one release) is ``count`` identical events, stored as one JSON object::

    {"type": "discrete_laplace",    "epsilon_each": ε, "count": Q}
    {"type": "shifted_discrete_laplace", "epsilon_each": ε, "shift": K, "count": Q}
    {"type": "continuous_laplace",  "epsilon_each": ε, "count": Q}
    {"type": "pure_dp",             "epsilon_each": ε, "count": Q}
    {"type": "bounded_range",       "epsilon_each": ε, "count": Q}
    {"type": "discrete_gaussian",   "sigma": σ, "l2_sensitivity": Δ₂, "count": Q}
    {"type": "continuous_gaussian", "sigma": σ, "l2_sensitivity": Δ₂, "count": Q}
    {"type": "zcdp",                "rho": ρ, "count": Q}

Every field is required and no other is allowed: a tag names exactly one class of
:mod:`dpcore.central.events`, whose meaning never changes, so a stored entry is accounted the same
way forever. A tag is never reused for another mechanism; the pre-2026 tags ``"laplace"`` (which
meant the *discrete* Laplace through a default) and ``"pure"`` are refused here — migration
``privacy/0003_ledger_event_types`` rewrote the stored entries. Floats round-trip exactly through
JSON (``repr``), so decoding gives back the very events that were charged.

**Releases made of different parts** (issue 13). A release whose contributions are not identical
events — histograms (``discrete_laplace``) next to number questions' grid sums
(``shifted_discrete_laplace``, shift K), or discrete Gaussians with different sensitivities Δ
(``discrete_gaussian`` with σΔ and Δ) — is stored by :func:`encode_release` as one entry::

    {"type": "composite", "parts": [<entry>, <entry>, …]}

each part an entry of the table above (at least one; no nesting, no other field). Its meaning is
fixed: the release spent every part's events (composition). The tags ``"composite"`` and
``"shifted_discrete_laplace"`` were added without changing any existing tag's meaning, so stored
entries decode as before and no migration of existing rows was needed; a release made of
identical events is still stored as a plain entry. ``"bounded_range"`` (the exponential
mechanism, issue 30) was added the same way.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, Final

from dpcore.central.events import (
    BoundedRangeEvent,
    ContinuousGaussianEvent,
    ContinuousLaplaceEvent,
    DiscreteGaussianEvent,
    DiscreteLaplaceEvent,
    Event,
    PureDPEvent,
    ShiftedDiscreteLaplaceEvent,
    ZCDPEvent,
)
from dpcore.errors import ArgumentError

__all__ = ["COMPOSITE_TAG", "LEGACY_TAGS", "TAGS", "decode", "encode", "encode_release"]

#: Type tag → (event class, its JSON parameter fields in constructor order).
_CODEC: Final[dict[str, tuple[type[Any], tuple[str, ...]]]] = {
    "discrete_laplace": (DiscreteLaplaceEvent, ("epsilon_each",)),
    "shifted_discrete_laplace": (ShiftedDiscreteLaplaceEvent, ("epsilon_each", "shift")),
    "continuous_laplace": (ContinuousLaplaceEvent, ("epsilon_each",)),
    "pure_dp": (PureDPEvent, ("epsilon_each",)),
    "bounded_range": (BoundedRangeEvent, ("epsilon_each",)),
    "discrete_gaussian": (DiscreteGaussianEvent, ("sigma", "l2_sensitivity")),
    "continuous_gaussian": (ContinuousGaussianEvent, ("sigma", "l2_sensitivity")),
    "zcdp": (ZCDPEvent, ("rho",)),
}
TAGS: Final[tuple[str, ...]] = tuple(_CODEC)
#: Tags of the former encoding, refused (see the module notes).
LEGACY_TAGS: Final[tuple[str, ...]] = ("laplace", "pure")
#: A release made of different parts (see the module notes).
COMPOSITE_TAG: Final = "composite"
_TAG_OF: Final[dict[type[Any], str]] = {cls: tag for tag, (cls, _) in _CODEC.items()}


def _parameters(event: Event) -> list[float]:
    if isinstance(event, ShiftedDiscreteLaplaceEvent):
        return [event.epsilon, event.shift]
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
    # An integer parameter (the shift K) stays an int: decoding requires one.
    params = (v if isinstance(v, int) else float(v) for v in _parameters(first))
    record.update(zip(fields, params, strict=True))
    record["count"] = len(events)
    return record


def encode_release(events: Sequence[Event]) -> dict[str, Any]:
    """One ledger entry for everything a release spends: a plain entry when the events are
    identical, else ``{"type": "composite", "parts": [...]}`` with one part per run of identical
    consecutive events, in order (module notes)."""
    if not events:
        raise ArgumentError("events", "a ledger entry needs at least one event")
    runs: list[list[Event]] = []
    for ev in events:
        if runs and runs[-1][0] == ev:
            runs[-1].append(ev)
        else:
            runs.append([ev])
    if len(runs) == 1:
        return encode(runs[0])
    return {"type": COMPOSITE_TAG, "parts": [encode(run) for run in runs]}


def _integer(record: Mapping[str, Any], field: str) -> int:
    value = record[field]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ArgumentError(
            field, f"ledger event {field} must be a positive integer ({value!r:.60})"
        )
    return value


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
    if tag == COMPOSITE_TAG:
        return _decode_composite(record)
    if not isinstance(tag, str) or tag not in _CODEC:
        raise ArgumentError("type", f"unknown ledger event type {tag!r:.60}")
    cls, fields = _CODEC[tag]
    expected = {"type", "count", *fields}
    if set(record) != expected:
        raise ArgumentError("event", f"ledger event {tag!r} needs exactly {sorted(expected)}")
    count = record["count"]
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise ArgumentError("count", f"ledger event count must be a positive integer ({count!r})")
    event: Event = cls(
        *(_integer(record, f) if f == "shift" else _number(record, f) for f in fields)
    )
    return [event] * count


def _decode_composite(record: Mapping[str, Any]) -> list[Event]:
    """The events of a composite entry: every part's, in order (parts are plain entries)."""
    parts = record.get("parts")
    if set(record) != {"type", "parts"} or not isinstance(parts, list) or not parts:
        raise ArgumentError("parts", "a composite ledger event needs exactly a non-empty 'parts'")
    events: list[Event] = []
    for part in parts:
        if isinstance(part, Mapping) and part.get("type") == COMPOSITE_TAG:
            raise ArgumentError("parts", "composite ledger events do not nest")
        events.extend(decode(part))
    return events
