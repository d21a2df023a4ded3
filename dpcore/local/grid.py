"""The respondent page's random grid: uniform integers in ``[0, 2⁵³)`` and thresholds on it.

Kept apart from :mod:`dpcore.local.browser` so that each design module (which states its own
thresholds) can use it without importing the browser plan, which imports the designs. Why 2⁵³:
:mod:`dpcore.local.browser`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from dpcore.errors import DesignError

__all__ = ["GRID", "RANDOM_BITS", "on_grid"]

RANDOM_BITS: Final = 53
GRID: Final = 2**RANDOM_BITS


def on_grid(field: str, p: float | Fraction) -> int:
    """``round(p·2⁵³)``, refusing a probability that would become 0 or 1 (never drawn / always)."""
    t = round(Fraction(p) * GRID)
    if not 0 < t < GRID:
        raise DesignError(
            field,
            f"{float(p)!r} cannot be run by a browser: it rounds to {'0' if t <= 0 else '1'} "
            "on the 2⁻⁵³ grid the respondent's page draws on",
        )
    return t
