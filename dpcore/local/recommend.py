"""Which design of a k-option question is more precise at a given ε (issue 26.1): every registered
design serving the ``options`` shape with ε as its only parameter (k-RR, OUE) is built at (k, ε)
and compared on the variance of one option's unbiased share.

Every such design reports option v with ``P = c·f_v + d`` independently per respondent (k-RR: the
reported option is v; OUE: v's bit is set), so given the true answers the count is a sum of n·f_v
Bernoulli(p) and n(1 − f_v) Bernoulli(q) with ``p = c + d``, ``q = d``, and

    Var f̂_v = [q(1 − q)/(p − q)² + f_v(1 − p − q)/(p − q)]/n          (Wang et al. 2017).

At f_v → 0 this is ``(e^ε + k − 2)/(n(e^ε − 1)²)`` for k-RR and ``4e^ε/(n(e^ε − 1)²)`` for OUE:
k-RR is the more precise exactly while ``k < 3e^ε + 2``. The comparison is made at uniform
frequencies ``f_v = 1/k`` (the figures ``variance``, ``half_width = z·√variance``) and given for a
rare option too (``f_v → 0``). Formulas: docs/formulas.md#oue.

Pure: the standard library and :mod:`dpcore.local` only (no Django).
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any

from dpcore.errors import ArgumentError
from dpcore.local.designs._registry import registered
from dpcore.stats import z_value

__all__ = ["Candidate", "Recommendation", "option_variance", "recommend_options_design"]


def option_variance(c: float, d: float, n: int, frequency: float) -> float:
    """``Var f̂_v = [q(1 − q)/c² + f(1 − p − q)/c]/n`` with ``p = c + d``, ``q = d`` (module
    notes), for one option of frequency ``f`` among n respondents, given the true answers."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ArgumentError("n", f"must be an integer ≥ 1 (got {n!r})")
    p, q = c + d, d
    return (q * (1.0 - q) / (c * c) + frequency * (1.0 - p - q) / c) / n


@dataclasses.dataclass(frozen=True)
class Candidate:
    """One design at (k, ε): its spec, and one option's variance and interval half-width at
    uniform frequencies and (``*_rare``) at f → 0."""

    design: dict[str, Any]
    variance: float
    half_width: float
    variance_rare: float
    half_width_rare: float


@dataclasses.dataclass(frozen=True)
class Recommendation:
    recommended: dict[str, Any]
    frequency: float
    candidates: tuple[Candidate, ...]


def recommend_options_design(
    *, k: int, epsilon: float, n: int, confidence: float = 0.95
) -> Recommendation:
    """The designs of a k-option question at local ε, each with its per-option variance, the
    smallest first chosen (ties: registry order). Raises ``DesignError``/``ArgumentError``
    naming the field."""
    z = z_value(confidence)
    frequency = 1.0 / k
    candidates = []
    for entry in registered():
        if "options" not in entry.serves or entry.numbers != ("epsilon",):
            continue
        design = entry.build({"name": entry.name, "epsilon": epsilon}, k)
        var = option_variance(design.c, design.d, n, frequency)
        rare = option_variance(design.c, design.d, n, 0.0)
        candidates.append(
            Candidate(design.to_spec(), var, z * math.sqrt(var), rare, z * math.sqrt(rare))
        )
    best = min(candidates, key=lambda c: c.variance)
    return Recommendation(dict(best.design), frequency, tuple(candidates))
