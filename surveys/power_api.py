"""``POST /api/v1/designs/power/`` (docs/analysis.md): validate the body, call dpcore.local.power.

Every bad field is a 400 naming it (``InvalidInput``); the answer is the request object with
the missing figure — ``n`` or ``power`` — filled in (and ``alpha`` with its default).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from deniable.errors import InvalidInput
from dpcore.errors import DesignError
from dpcore.local import power as power_math
from surveys import designs

TESTS = ("one_sample", "two_sample")
KINDS = ("yes_no", "choice")
MAX_N = 10**9


def _probability(body: Mapping[str, Any], field: str, *, open_ends: bool = False) -> float:
    value = body.get(field)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidInput.single(field, "A number is required.")
    low_ok = value > 0 if open_ends else value >= 0
    high_ok = value < 1 if open_ends else value <= 1
    if not (low_ok and high_ok):
        bounds = "strictly between 0 and 1" if open_ends else "between 0 and 1"
        raise InvalidInput.single(field, f"Must lie {bounds}.")
    return float(value)


def _design(body: Mapping[str, Any], kind: str) -> Any:
    k = body.get("k")
    if isinstance(body.get("options"), list):
        k = len(body["options"])
    if kind == "choice" and (isinstance(k, bool) or not isinstance(k, int) or k < 2):
        raise InvalidInput.single("k", "A choice design needs k ≥ 2 (or its options).")
    try:
        design = designs.design_for(kind, body.get("design"), k=k if kind == "choice" else None)
    except DesignError as exc:
        field = {"spec": "design"}.get(exc.field, f"design.{exc.field}")
        raise InvalidInput.single(field, exc.message) from None
    return design


def _n(body: Mapping[str, Any]) -> int:
    value = body.get("n")
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_N:
        raise InvalidInput.single("n", f"A whole number from 1 to {MAX_N}.")
    return value


def power_request(body: Mapping[str, Any]) -> dict[str, Any]:
    kind = body.get("kind", "yes_no")
    if kind not in KINDS:
        raise InvalidInput.single("kind", "One of: yes_no, choice.")
    test = body.get("test")
    if test not in TESTS:
        raise InvalidInput.single("test", "One of: one_sample, two_sample.")
    design = _design(body, kind)
    pi0 = _probability(body, "pi0")
    pi1 = _probability(body, "pi1")
    alpha = _probability(body, "alpha", open_ends=True) if "alpha" in body else 0.05
    has_power, has_n = body.get("power") is not None, body.get("n") is not None
    if has_power == has_n:
        raise InvalidInput.single("power", "Give exactly one of power (→ n) and n (→ power).")
    out = dict(body)
    out["kind"], out["alpha"] = kind, alpha
    figures = {"test": test, "c": design.c, "d": design.d, "pi0": pi0, "pi1": pi1, "alpha": alpha}
    if has_n:
        out["power"] = power_math.power(**figures, n=_n(body))
        return out
    target = _probability(body, "power", open_ends=True)
    if pi0 == pi1:
        raise InvalidInput.single("pi1", "Must differ from pi0 to compute a sample size.")
    if target <= alpha / 2.0:
        raise InvalidInput.single("power", "Must exceed alpha/2 (power at no effect).")
    out["n"] = power_math.sample_size(**figures, target=target)
    return out
