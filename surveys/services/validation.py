"""Validation helpers shared by the survey and submission services: errors collected by field."""

from __future__ import annotations

import math
from typing import Any

# Why a string cannot be stored (NUL, lone surrogates), or None: the API's parser refuses these
# first; services check again for their other callers (pages, commands).
from deniable.json_input import string_problem

Errors = dict[str, list[str]]

# Number questions' bounds: |min|, |max| ≤ 1e9. Each answer adds x² ≤ 1e18 to a float64 tally,
# so even 2⁵³ respondents sum to ≤ 9e33, far below the float maximum 1.8e308: the tallies stay
# finite (an answer of 1e200 within ±1e300 once stored x² = ∞, and the survey's estimates 503'd).
# Exactness is another matter: sums are exact integers only below 2⁵³ ≈ 9e15 (e.g. integer
# answers |x| ≤ 3e4 at 1e7 respondents); beyond that their relative rounding error is at most
# n·2⁻⁵³ ≈ 1.1e-9 at n = 1e7, which costs the standard error precision only when the spread is
# below ~3e-5 of the mean (``surveys.selectors._number_entry`` reports a conservative SE then).
# 1e9 still covers every survey quantity we know of (incomes in cents, populations, seconds).
MAX_ABS_NUMBER = 1e9


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


text_problem = string_problem
