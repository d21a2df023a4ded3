"""The respondent page's random grid (uniform integers in ``[0, 2⁵³)``, thresholds on it) and the
exact ε of the probabilities it realises, rounded up.

Kept apart from :mod:`dpcore.local.browser` so that each design module (which states its own
thresholds) can use it without importing the browser plan, which imports the designs. Why 2⁵³:
:mod:`dpcore.local.browser`.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Final

from dpcore.errors import DesignError

__all__ = ["GRID", "RANDOM_BITS", "epsilon_of_ratios", "ln_ratio_up", "on_grid"]

RANDOM_BITS: Final = 53
GRID: Final = 2**RANDOM_BITS
# 50 significant digits: far more than the 17 a float needs, so rounding up is never fooled.
_DIGITS: Final = 50


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


def ln_ratio_up(num: Fraction, den: Fraction) -> float:
    """``ln(num/den)`` rounded up to a float (∞ when den is 0)."""
    if den == 0:
        return math.inf
    ratio = num / den
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        exact = (Decimal(ratio.numerator).ln() - Decimal(ratio.denominator).ln()) if ratio else None
        if exact is None:
            return -math.inf
        value = float(exact)
        # Decimal's ln is correctly rounded to 50 digits; a float within 1e-40 of the value could
        # still be on the wrong side, so step up whenever it is not clearly above.
        if Decimal(value) < exact + Decimal(10) ** -40:
            value = math.nextafter(value, math.inf)
    return value


def epsilon_of_ratios(p_yes_trait: Fraction, p_yes_no_trait: Fraction) -> float:
    """Local ε of a binary mechanism with exact ``P(yes | trait)`` and ``P(yes | no trait)``:
    ``max{ln(a/b), ln((1 − b)/(1 − a))}`` (either order), rounded up; ∞ if one-sided."""
    a, b = p_yes_trait, p_yes_no_trait
    return max(
        ln_ratio_up(a, b),
        ln_ratio_up(b, a),
        ln_ratio_up(1 - b, 1 - a),
        ln_ratio_up(1 - a, 1 - b),
    )
