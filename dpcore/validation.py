"""The scalar validators of the pure core, in one place (no Django).

Each returns the value in canonical form (a float or an int) or raises a
:class:`~dpcore.errors.ParameterError` naming the field. Three families of message, kept as the
callers have always produced them (tests and API bodies quote them):

* design parameters (:func:`design_number`, :func:`design_probability`) raise
  :class:`~dpcore.errors.DesignError`, ``"p: must be a probability between 0 and 1 (got 2.0)"``;
* privacy parameters (:func:`check_positive`, :func:`check_epsilon`, :func:`check_delta`,
  :func:`check_real`) raise :class:`~dpcore.errors.PrivacyParameterError`, ``"epsilon: must be
  > 0"``;
* statistics arguments (:func:`real`, :func:`count`, :func:`signed_count`, :func:`prior`,
  :func:`check_n`, :func:`check_confidence`, :func:`check_interval_kind`,
  :func:`check_half_width`) raise :class:`~dpcore.errors.ArgumentError`, ``"n must be at least 1
  (got 0)"``.

Finite means strictly inside (−1e308, 1e308): NaN, ±∞ and ints beyond the float range are refused,
compared exactly before ``float()`` could raise ``OverflowError``.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from typing import Final

from dpcore.errors import ArgumentError, DesignError, PrivacyParameterError

__all__ = [
    "CONFIDENCE_MAX",
    "CONFIDENCE_MIN",
    "INTERVAL_KINDS",
    "MAX_COUNT",
    "check_confidence",
    "check_delta",
    "check_epsilon",
    "check_half_width",
    "check_interval_kind",
    "check_n",
    "check_positive",
    "check_real",
    "count",
    "design_number",
    "design_probability",
    "prior",
    "real",
    "signed_count",
]

#: Largest count (n, reported_yes, counts[i], a noisy count's magnitude) accepted: 2⁵³, the
#: largest integer every float operation on it represents exactly (and far above any survey).
MAX_COUNT: Final = 2**53

#: "unified" (the default) first: the boundary-aware score interval that never collapses
#: (dpcore.local.unified_interval; docs/formulas.md#unified-interval).
INTERVAL_KINDS: Final[tuple[str, ...]] = ("unified", "wilson", "wald")


# --------------------------------------------------------------------------- design parameters


def design_number(field: str, value: object) -> float:
    """A finite number (int, float, Decimal, Fraction; not bool) as a float, else DesignError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real | Decimal):
        raise DesignError(field, f"must be a number (got {value!r})")
    try:
        x = float(value)
    except OverflowError:  # an int too large for a float (10**400)
        x = math.inf
    if not math.isfinite(x):
        raise DesignError(field, f"must be a finite number (got {value!r})")
    return x


def design_probability(field: str, value: object) -> float:
    """:func:`design_number` in [0, 1]."""
    x = design_number(field, value)
    if not 0.0 <= x <= 1.0:
        raise DesignError(field, f"must be a probability between 0 and 1 (got {x!r})")
    return x


# --------------------------------------------------------------------------- privacy parameters


def check_positive(value: float, field: str) -> float:
    """Return ``value`` as a float if it is a finite number > 0, else raise."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrivacyParameterError(field, "must be a number")
    try:
        v = float(value)
    except OverflowError:  # an int too large for a float (10**400)
        raise PrivacyParameterError(field, "must be finite") from None
    if math.isnan(v):
        raise PrivacyParameterError(field, "must not be NaN")
    if math.isinf(v):
        raise PrivacyParameterError(field, "must be finite")
    if v <= 0:
        raise PrivacyParameterError(field, "must be > 0")
    return v


def check_real(value: object, field: str) -> float:
    """A finite real number (not bool) as a float, else PrivacyParameterError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PrivacyParameterError(field, "must be a number")
    if not -1e308 < value < 1e308:  # NaN, ±∞ and ints beyond the float range
        raise PrivacyParameterError(field, "must be a finite number")
    return float(value)


def check_epsilon(epsilon: float, field: str = "epsilon") -> float:
    """ε must be finite and > 0."""
    return check_positive(epsilon, field)


def check_delta(delta: float, field: str = "delta") -> float:
    """δ must lie in the open interval (0, 1)."""
    d = check_positive(delta, field)
    if d >= 1:
        raise PrivacyParameterError(field, "must be < 1")
    return d


# --------------------------------------------------------------------------- statistics arguments


def real(field: str, value: object) -> float:
    """A finite real number (int, float, Fraction, ...; not bool) as a float, else ArgumentError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ArgumentError(field, f"{field} must be a number (got {value!r:.60})")
    if not -1e308 < value < 1e308:  # type: ignore[operator]  # NaN too; ints compared exactly
        raise ArgumentError(field, f"{field} must be a finite number (got {value!r:.60})")
    return float(value)


def count(field: str, value: object) -> int:
    """A non-negative integer count ≤ :data:`MAX_COUNT` (not bool)."""
    if type(value) is int and 0 <= value <= MAX_COUNT:  # the hot path: skip the ABC checks
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ArgumentError(field, f"{field} must be an integer (got {value!r:.60})")
    if int(value) < 0:
        raise ArgumentError(field, f"{field} must be non-negative (got {value!r})")
    if int(value) > MAX_COUNT:
        raise ArgumentError(field, f"{field} must be at most 2**53 (got {value!r:.60})")
    return int(value)


def signed_count(field: str, value: object) -> int:
    """An integer (or integral float) with |value| ≤ 2⁵³ (noisy counts may be negative)."""
    if type(value) is int and -MAX_COUNT <= value <= MAX_COUNT:  # the common case
        return value
    x = real(field, value)
    if not x.is_integer() or abs(x) > MAX_COUNT:
        raise ArgumentError(
            field, f"{field} must be an integer of magnitude at most 2**53 (got {x!r})"
        )
    return int(x)


def prior(value: float, field: str = "prior") -> float:
    """A prior probability π in [0, 1] (int or float; not bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise ArgumentError(
            field, f"{field} must be a probability between 0 and 1 (got {value!r:.60})"
        )
    return float(value)


def check_n(n: int) -> int:
    """A sample size: a :func:`count` ≥ 1."""
    n = count("n", n)
    if n < 1:
        raise ArgumentError("n", f"n must be at least 1 (got {n!r})")
    return n


#: The confidence levels for which every interval can be computed (DESIGN §8.4): z =
#: Φ⁻¹(0.5 + confidence/2) must be finite and large enough that z·SE moves an estimate by more
#: than its rounding. In floating point 0.5 + c/2 rounds to 1 for c ≥ 1 − 2⁻⁵³
#: (0.9999999999999999 → z = ∞, the 500 of issue 21 item 14) and to 0.5 for c ≤ 2⁻⁵³ (z = 0, a
#: zero-width interval); 1 − 1e-12 (z ≈ 7.1) and 1e-6 (z ≈ 1.3e-6) keep a margin from both.
CONFIDENCE_MIN: Final = 1e-6
CONFIDENCE_MAX: Final = 1.0 - 1e-12


def check_confidence(confidence: float) -> float:
    """Return ``confidence`` as a float, or raise unless CONFIDENCE_MIN ≤ confidence ≤
    CONFIDENCE_MAX (an interval can be computed: see above)."""
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise ArgumentError(
            "confidence", f"confidence must be a number between 0 and 1 (got {confidence!r})"
        )
    if not 0.0 < confidence < 1.0:  # also rejects NaN
        raise ArgumentError(
            "confidence", f"confidence must be strictly between 0 and 1 (got {confidence!r})"
        )
    if not CONFIDENCE_MIN <= confidence <= CONFIDENCE_MAX:
        raise ArgumentError(
            "confidence",
            f"no interval can be computed at confidence {confidence!r}: it must be from "
            f"{CONFIDENCE_MIN!r} to {CONFIDENCE_MAX!r}",
        )
    return float(confidence)


def check_interval_kind(interval: str) -> str:
    """``"unified"``, ``"wilson"`` or ``"wald"``."""
    if not isinstance(interval, str) or interval not in INTERVAL_KINDS:
        raise ArgumentError(
            "interval", f"interval must be one of {', '.join(INTERVAL_KINDS)} (got {interval!r})"
        )
    return interval


def check_half_width(half_width: float) -> float:
    """A planned interval half-width: a finite number > 0."""
    if isinstance(half_width, bool) or not isinstance(half_width, int | float):
        raise ArgumentError("half_width", f"half_width must be a number (got {half_width!r:.60})")
    if not 0.0 < half_width < 1e308:  # also rejects NaN, ∞ and ints beyond the float range
        raise ArgumentError(
            "half_width", f"half_width must be positive and finite (got {half_width!r:.60})"
        )
    return float(half_width)
