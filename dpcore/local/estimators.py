"""Randomized-response estimates: prevalence of a binary design, option frequencies of k-RR.

Pure (numpy and the standard library only). Formulas: Warner (1965) for the unbiased estimator
``π̂ = (λ̂ − d)/c``; Wang, Blocki, Li & Jha (2017) for k-RR; Wilson (1927) intervals
(:mod:`dpcore.local.intervals`). Simplex projection: Duchi, J., Shalev-Shwartz, S., Singer, Y. &
Chandra, T. (2008) "Efficient projections onto the ℓ₁-ball for learning in high dimensions", ICML.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping, Sequence

from dpcore.errors import ArgumentError
from dpcore.local.designs import BinaryDesign, KRRDesign
from dpcore.local.intervals import point_and_interval_unchecked as _point_and_interval
from dpcore.stats import z_value
from dpcore.validation import check_interval_kind
from dpcore.validation import count as _count

__all__ = [
    "BinaryEstimate",
    "KRREstimate",
    "OptionEstimate",
    "estimate_binary",
    "estimate_krr",
    "project_to_simplex",
]


# --- estimates -----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class BinaryEstimate:
    """Prevalence estimate from ``reported_yes`` of ``n`` randomized reports.

    ``estimate_unclipped`` = (λ̂ − d)/c is unbiased (export it); ``estimate`` clips it to [0, 1]
    (the MLE; display it). With ``n == 0`` every float field is None.
    """

    n: int
    reported_yes: int
    reported_yes_rate: float | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    confidence: float
    interval: str = "wilson"


@dataclasses.dataclass(frozen=True)
class OptionEstimate:
    """One option of a k-RR estimate (its label lives with the question, not here).

    ``estimate`` is the simplex projection of all options' unbiased estimates (for display; it may
    lie outside this option's interval when the projection shifts it); ``estimate_unclipped`` is
    unbiased (export it). The interval is the Wilson-transformed one of this option alone.
    """

    reported: int
    reported_rate: float | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


@dataclasses.dataclass(frozen=True)
class KRREstimate:
    n: int
    confidence: float
    options: tuple[OptionEstimate, ...]


def estimate_binary(
    design: BinaryDesign,
    *,
    n: int,
    reported_yes: int,
    confidence: float = 0.95,
    interval: str = "wilson",
) -> BinaryEstimate:
    """Estimate the prevalence π from ``reported_yes`` "yes" reports out of ``n``.

    ``π̂ = (λ̂ − d)/c`` (coin: 2λ̂ − ½), unbiased (Warner 1965); ``estimate = clip(π̂, 0, 1)``;
    ``SE = √(λ̂(1 − λ̂)/n)/c``. ``interval="wilson"`` (default): the Wilson (1927) interval
    ``[L, U]`` for λ mapped to ``[(L − d)/c, (U − d)/c]`` and clipped to [0, 1];
    ``interval="wald"``: ``π̂ ± z·SE`` clipped (undercovers at large ε; kept for comparison).

    Note: at π = 0 or 1 exactly the clipped interval can only miss on one side, so its coverage
    there is that of a one-sided 97.5% bound (see the coverage tests).
    """
    n = _count("n", n)
    reported_yes = _count("reported_yes", reported_yes)
    if reported_yes > n:
        raise ArgumentError("reported_yes", f"reported_yes = {reported_yes} exceeds n = {n}")
    check_interval_kind(interval)
    z = z_value(confidence)
    if n == 0:
        return BinaryEstimate(0, 0, None, None, None, None, None, None, confidence, interval)
    rate = reported_yes / n
    est = _point_and_interval(rate, n, design.c, design.d, z, interval)
    return BinaryEstimate(n, reported_yes, rate, *est, confidence, interval)


def estimate_krr(
    design: KRRDesign,
    *,
    counts: Sequence[int],
    confidence: float = 0.95,
    interval: str = "wilson",
) -> KRREstimate:
    """Estimate option frequencies from k-RR report counts ``C_v`` (Wang et al. 2017).

    ``ĉ_v = (C_v − n·q)/(p − q)`` (an unbiased count), proportion ``ĉ_v/n``; per option the
    binary formulas apply with ``c = p − q``, ``d = q``. The display ``estimate`` is the Euclidean
    projection of the unbiased proportions onto the probability simplex (Duchi et al. 2008).
    """
    if isinstance(counts, str | bytes | Mapping) or not isinstance(counts, Sequence | Iterable):
        raise ArgumentError(
            "counts", f"counts must be a sequence of k integers (got {type(counts).__name__})"
        )
    values = tuple(_count(f"counts[{i}]", count) for i, count in enumerate(counts))
    if len(values) != design.k:
        raise ArgumentError(
            "counts", f"counts has {len(values)} entries but the design has k = {design.k}"
        )
    check_interval_kind(interval)
    z = z_value(confidence)
    n = sum(values)
    if n == 0:
        empty = OptionEstimate(0, None, None, None, None, None, None)
        return KRREstimate(0, confidence, tuple(empty for _ in values))
    c, d = design.c, design.d
    rows = [_point_and_interval(count / n, n, c, d, z, interval) for count in values]
    display = project_to_simplex([row.estimate_unclipped for row in rows])
    options = tuple(
        OptionEstimate(
            count, count / n, shown, row.estimate_unclipped, row.std_error, row.ci_low, row.ci_high
        )
        for count, row, shown in zip(values, rows, display, strict=True)
    )
    return KRREstimate(n, confidence, options)


def project_to_simplex(values: Sequence[float]) -> tuple[float, ...]:
    """Euclidean projection onto ``{x : x ≥ 0, Σx = 1}`` (Duchi et al. 2008, Fig. 1).

    Sort ``u`` descending; ``ρ = max{j : u_j − (Σ_{r≤j} u_r − 1)/j > 0}``;
    ``θ = (Σ_{r≤ρ} u_r − 1)/ρ``; ``x_i = max(v_i − θ, 0)``. O(k log k), plain Python (k is small).
    """
    v = [float(x) for x in values]
    if not v:
        raise ArgumentError("values", "cannot project an empty vector")
    if not all(math.isfinite(x) for x in v):
        raise ArgumentError("values", "values must be finite")
    cumulative = 0.0
    theta = 0.0
    for j, u_j in enumerate(sorted(v, reverse=True), start=1):
        cumulative += u_j
        t = (cumulative - 1.0) / j
        if u_j - t > 0.0:
            theta = t
    return tuple(max(x - theta, 0.0) for x in v)
