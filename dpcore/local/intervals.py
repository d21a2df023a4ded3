"""Normal quantiles, Wilson/Wald intervals and exact coverage for randomized response.

Pure (numpy and the standard library only; no Django). The z value and the Wilson bounds
themselves are :mod:`dpcore.stats` (one copy for the local and the central estimates).

Every binary randomized-response design reports "yes" with probability ``λ = c·π + d``
(docs/formulas.md#linear-form), so an interval ``[L, U]`` for λ maps to ``[(L − d)/c, (U − d)/c]``
for π, clipped to ``[0, 1]``. The same holds for one option of k-RR with ``c = p − q``, ``d = q``.

Scalar functions use plain :mod:`math` (the dashboard calls them per question per request); the
``*_table`` / coverage functions are the numpy-vectorised versions used for exact coverage
computations, and perform the same IEEE operations in the same order, so they agree with the scalar
path bit for bit.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

import numpy as np
import numpy.typing as npt

from dpcore.errors import ArgumentError
from dpcore.stats import FloatArray, clip01, wilson_bounds, wilson_bounds_array, z_value
from dpcore.validation import INTERVAL_KINDS, check_interval_kind, real

__all__ = [
    "INTERVAL_KINDS",
    "FloatArray",
    "IntervalKind",
    "PointAndInterval",
    "binomial_pmf_table",
    "exact_coverage_cd",
    "interval_table",
    "point_and_interval",
    "point_and_interval_unchecked",
    "wilson_interval",
]

IntervalKind = Literal["wilson", "wald"]


class PointAndInterval(NamedTuple):
    """The estimate of π from one report rate, with its standard error and interval."""

    estimate: float  # clipped to [0, 1]
    estimate_unclipped: float  # unbiased
    std_error: float
    ci_low: float
    ci_high: float


def wilson_interval(
    successes: int | float, n: int | float, confidence: float
) -> tuple[float, float]:
    """Wilson (1927) score interval ``(L, U)`` for the report rate λ = successes/n.

    Wilson, E. B. (1927), "Probable inference, the law of succession, and statistical inference",
    JASA 22(158):209–212. Unlike the Wald interval it never collapses to a point at λ̂ ∈ {0, 1} and
    keeps close to nominal coverage near the boundaries.
    """
    n = real("n", n)
    if not n >= 1.0:
        raise ArgumentError("n", f"n must be at least 1 (got {n!r})")
    successes = real("successes", successes)
    if not 0 <= successes <= n:
        raise ArgumentError(
            "successes", f"successes must be between 0 and n = {n} (got {successes!r})"
        )
    return wilson_bounds(successes / n, n, z_value(confidence))


def point_and_interval(
    rate: float, n: int, c: float, d: float, z: float, interval: str = "wilson"
) -> PointAndInterval:
    """:func:`point_and_interval_unchecked` with its arguments validated (``ValueError`` naming the
    argument): ``0 ≤ rate ≤ 1``, ``1 ≤ n < 1e308``, ``0 < c ≤ 1``, ``0 ≤ d`` with ``c + d ≤ 1``
    (a design's ``P(yes | trait)``), ``0 ≤ z < 1e308`` and a known ``interval``. A ``c`` so
    small that the estimate is not representable (∞ − ∞) raises too.
    """
    rate = real("rate", rate)
    if not 0.0 <= rate <= 1.0:
        raise ArgumentError("rate", f"rate must lie in [0, 1] (got {rate!r})")
    n_ = real("n", n)
    if not n_ >= 1.0:
        raise ArgumentError("n", f"n must be at least 1 (got {n_!r})")
    c = real("c", c)
    if not 0.0 < c <= 1.0:
        raise ArgumentError("c", f"c must lie in (0, 1] (got {c!r})")
    d = real("d", d)
    if not 0.0 <= d <= 1.0 - c + 1e-9:
        raise ArgumentError("d", f"d must lie in [0, 1 − c] (got {d!r})")
    z = real("z", z)
    if z < 0.0:
        raise ArgumentError("z", f"z must be ≥ 0 (got {z!r})")
    check_interval_kind(interval)
    result = point_and_interval_unchecked(rate, n_, c, d, z, interval)
    if any(math.isnan(x) for x in result):
        raise ArgumentError("c", f"c is too small for a representable estimate (got {c!r})")
    return result


def point_and_interval_unchecked(
    rate: float, n: int | float, c: float, d: float, z: float, interval: str = "wilson"
) -> PointAndInterval:
    """Estimate π from the report rate ``λ̂`` of a design ``λ = cπ + d`` (no validation: the
    callers in :mod:`dpcore.local.estimators` have validated n, the counts, the design and z).

    * ``π̂ = (λ̂ − d)/c`` (unbiased; Warner 1965), ``estimate = clip(π̂, 0, 1)`` (the MLE);
    * ``SE = √(λ̂(1 − λ̂)/n) / c``;
    * ``wilson``: Wilson interval ``[L, U]`` for λ mapped to ``[(L − d)/c, (U − d)/c]``, each end
      clipped to [0, 1];
    * ``wald``: ``π̂ ± z·SE``, each end clipped to [0, 1].

    The interval always contains ``estimate``: L ≤ λ̂ ≤ U, the map is monotone and so is clipping.
    """
    unclipped = (rate - d) / c
    se = math.sqrt(rate * (1.0 - rate) / n) / c
    if interval == "wilson":
        low, high = wilson_bounds(rate, n, z)
        ci_low, ci_high = clip01((low - d) / c), clip01((high - d) / c)
    else:
        ci_low, ci_high = clip01(unclipped - z * se), clip01(unclipped + z * se)
    return PointAndInterval(clip01(unclipped), unclipped, se, ci_low, ci_high)


# --- vectorised (numpy) versions -----------------------------------------------------------------


def interval_table(
    c: float, d: float, n: int, confidence: float = 0.95, interval: str = "wilson"
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Clipped estimate, ``ci_low`` and ``ci_high`` for every outcome ``y = 0, 1, …, n``.

    Arrays of length ``n + 1``; entry ``y`` equals what the scalar estimator returns for
    ``reported_yes = y``.
    """
    if n < 1:
        raise ArgumentError("n", f"n must be at least 1 (got {n!r})")
    check_interval_kind(interval)
    z = z_value(confidence)
    rates = np.arange(n + 1, dtype=np.float64) / n
    unclipped = (rates - d) / c
    if interval == "wilson":
        low, high = wilson_bounds_array(rates, n, z)
        ci_low, ci_high = (low - d) / c, (high - d) / c
    else:
        se = np.sqrt(rates * (1.0 - rates) / n) / c
        ci_low, ci_high = unclipped - z * se, unclipped + z * se
    return (
        np.clip(unclipped, 0.0, 1.0),
        np.clip(ci_low, 0.0, 1.0),
        np.clip(ci_high, 0.0, 1.0),
    )


def binomial_pmf_table(n: int, probabilities: npt.ArrayLike) -> FloatArray:
    """Binomial pmf ``P(Y = y)``, ``Y ~ Bin(n, λ)``, shape ``(len(λ), n + 1)``, numpy only.

    Computed in log space from log-factorials (relative error ~1e-12 for n in the thousands);
    λ ∈ {0, 1} give exact point masses.
    """
    lam = np.atleast_1d(np.asarray(probabilities, dtype=np.float64))
    if np.any(~np.isfinite(lam)) or np.any(lam < 0.0) or np.any(lam > 1.0):
        raise ArgumentError("probabilities", "probabilities must lie in [0, 1]")
    y = np.arange(n + 1, dtype=np.float64)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=np.float64)))))
    log_comb = log_fact[n] - log_fact[: n + 1] - log_fact[n::-1]
    lam_col = lam[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_yes = np.where(y > 0, y * np.log(lam_col), 0.0)
        log_no = np.where(y < n, (n - y) * np.log1p(-lam_col), 0.0)
    return np.asarray(np.exp(log_comb + log_yes + log_no), dtype=np.float64)


def exact_coverage_cd(
    c: float,
    d: float,
    *,
    n: int,
    pis: npt.ArrayLike,
    confidence: float = 0.95,
    interval: str = "wilson",
) -> FloatArray:
    """Exact coverage ``P_π(ci_low ≤ π ≤ ci_high)`` for each π: the binomial pmf at λ = cπ + d
    summed over the outcomes whose (clipped) interval contains π. Not simulated."""
    pi = np.atleast_1d(np.asarray(pis, dtype=np.float64))
    _, low, high = interval_table(c, d, n, confidence, interval)
    pmf = binomial_pmf_table(n, np.clip(c * pi + d, 0.0, 1.0))
    covered = (low[None, :] <= pi[:, None]) & (pi[:, None] <= high[None, :])
    return np.asarray((pmf * covered).sum(axis=1), dtype=np.float64)
