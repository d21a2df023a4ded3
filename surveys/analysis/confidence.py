"""The one rule for a ``confidence`` parameter (DESIGN §8.4, docs/api.md): a number for which
every interval can be computed, i.e. from ``dpcore.validation.CONFIDENCE_MIN`` to
``CONFIDENCE_MAX``; anything else is a 400 naming ``confidence`` with :data:`CONFIDENCE_MESSAGE`
(estimates JSON/CSV/compare, regression, the design preview)."""

from __future__ import annotations

import math
from typing import Any

from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN

CONFIDENCE_MESSAGE = (
    f"A number from {CONFIDENCE_MIN:g} to {CONFIDENCE_MAX!r}, such as 0.95: outside that range "
    "no interval can be computed."
)


def confidence_or_none(value: Any) -> float | None:
    """``value`` (a number, or a query string) as a confidence level, or ``None`` if it is not
    one an interval can be computed at."""
    if isinstance(value, bool):
        return None
    try:
        confidence = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    if not math.isfinite(confidence) or not CONFIDENCE_MIN <= confidence <= CONFIDENCE_MAX:
        return None
    return confidence
