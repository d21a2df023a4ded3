"""Validation helpers shared by the survey and submission services: errors collected by field."""

from __future__ import annotations

import math
from typing import Any

Errors = dict[str, list[str]]


def add_error(errors: Errors, field: str, message: str) -> None:
    errors.setdefault(field, []).append(message)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_finite_number(value: Any) -> bool:
    """A JSON number that is a finite float: not NaN/±∞, and not an int too large for a float
    (``math.isfinite(10**400)`` raises OverflowError)."""
    if not _is_number(value):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
