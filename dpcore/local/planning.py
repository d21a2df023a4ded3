"""Randomized-response limits and planning: variances, the ε-LDP bound, efficiency,
deniability, sample sizes, expected half-widths and exact coverage.

Pure (numpy and the standard library only). The limit: Kairouz, P., Oh, S. & Viswanath, P.
(2016) "Extremal mechanisms for local differential privacy", JMLR 17 — for a binary attribute
under ε-LDP symmetric RR is optimal, so ``Var(π̂) ≥ [π(1 − π) + e^ε/(e^ε − 1)²]/n``.
"""

from __future__ import annotations

import math

import numpy.typing as npt

from dpcore.errors import ArgumentError
from dpcore.local.designs import BinaryDesign, Design, KRRDesign
from dpcore.local.intervals import exact_coverage_cd, interval_table
from dpcore.stats import FloatArray, z_value
from dpcore.validation import check_confidence
from dpcore.validation import check_half_width as _check_half_width
from dpcore.validation import check_n as _check_n
from dpcore.validation import prior as _check_prior

__all__ = [
    "binary_interval_table",
    "deniability",
    "efficiency",
    "estimator_variance",
    "exact_coverage",
    "krr_deniability",
    "krr_proportion_variance",
    "krr_variance",
    "planned_half_width",
    "planned_half_width_direct",
    "sample_size",
    "sample_size_direct",
    "variance_bound",
]


# --- limits, efficiency, deniability -------------------------------------------------------------


def _c_d(design: Design) -> tuple[float, float]:
    return design.c, design.d


def _report_variance(design: Design, pi: float) -> float:
    """``λ(1 − λ)`` at λ = cπ + d, with ``1 − λ = c(1 − π) + (1 − c − d)`` (no cancellation near
    λ = 1; for k-RR ``1 − c − d = 1 − p``)."""
    c, d = _c_d(design)
    if isinstance(design, BinaryDesign):
        no_given_trait = design.p_no_given_trait
    else:
        no_given_trait = (design.k - 1) * design.other_probability
    return (c * pi + d) * (c * (1.0 - pi) + no_given_trait)


def _ldp_term(epsilon: float) -> float:
    """``e^ε/(e^ε − 1)²``, written as ``e^−ε/(1 − e^−ε)²`` (→ 0 as ε → ∞, no overflow; → ∞ as
    ε → 0: ``math.inf`` once (1 − e^−ε)² underflows, ε ≲ 1e-154, where the true value > 1e308)."""
    denominator = math.expm1(-epsilon) ** 2
    if denominator == 0.0:
        return math.inf
    return math.exp(-epsilon) / denominator


def variance_bound(epsilon: float, pi: float, n: int) -> float:
    """Kairouz, Oh & Viswanath (2016): under ε-LDP no binary mechanism's unbiased estimator has
    ``Var(π̂) < [π(1 − π) + e^ε/(e^ε − 1)²]/n`` (attained by symmetric RR). Coin (ε = ln 3) at
    π = ½: 1/n. ε = ∞ gives π(1 − π)/n (direct questioning).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not epsilon > 0:
        raise ArgumentError("epsilon", f"epsilon must be > 0 (got {epsilon!r:.60})")
    pi = _check_prior(pi, "pi")
    n = _check_n(n)
    eps = math.inf if epsilon > 1e308 else float(epsilon)  # an int beyond the float range: ∞
    return (pi * (1.0 - pi) + _ldp_term(eps)) / n


def estimator_variance(design: Design, pi: float, n: int) -> float:
    """``Var(π̂) = λ(1 − λ)/(c²·n)``, ``λ = cπ + d`` (exact for the unbiased estimator)."""
    c = design.c
    return _report_variance(design, _check_prior(pi, "pi")) / (c * c * _check_n(n))


def efficiency(design: BinaryDesign, pi: float, n: int = 1) -> float:
    """``variance_bound(ε, π, n) / estimator_variance(design, π, n)`` ∈ (0, 1]; 1 for the coin and
    every :func:`optimal_forced_response` / Warner design, at every π."""
    actual = estimator_variance(design, pi, n)
    bound = variance_bound(design.epsilon, pi, n)
    if actual == 0.0:  # one-sided design at π ∈ {0, 1}: both are 0
        return 1.0
    return bound / actual


def deniability(design: BinaryDesign, prior: float) -> float:
    """``P(trait | reported yes) = π(c + d)/λ``, ``λ = cπ + d`` (Bayes). Coin, π = 0.1: 0.25.

    1.0 for a one-sided design with d = 0 (a "yes" proves the trait).
    """
    pi = _check_prior(prior)
    if pi == 0.0:
        return 0.0
    return pi * (design.c + design.d) / (design.c * pi + design.d)


def revealing_deniability(design: BinaryDesign, prior: float) -> tuple[bool, float]:
    """The report that raises the posterior most, and that posterior: ``(True, P(trait | yes))``
    when ``c ≥ 0``, else ``(False, P(trait | no))`` with ``P(trait | no) = π(1 − c − d)/(1 − λ)``.

    A crosswise design with p < ½ has c = 2p − 1 < 0: "yes" (SAME) *lowers* the posterior and
    "no" (DIFFERENT) is the revealing answer (p = ¼, π = 0.1: 0.25, where SAME gives 0.036).
    """
    pi = _check_prior(prior)
    if design.c >= 0.0:
        return True, deniability(design, pi)
    no_rate = 1.0 - (design.c * pi + design.d)
    if pi == 0.0 or no_rate <= 0.0:
        return False, 0.0
    return False, pi * (1.0 - design.c - design.d) / no_rate


def krr_deniability(design: KRRDesign, prior: float) -> float:
    """``P(true option v | reported v) = π_v·p / (π_v·p + (1 − π_v)·q)`` for a prior π_v."""
    pi = _check_prior(prior)
    p, q = design.keep_probability, design.other_probability
    return pi * p / (pi * p + (1.0 - pi) * q)


def krr_variance(design: KRRDesign, n: int) -> float:
    """Approximate variance of the unbiased count ĉ_v (Wang et al. 2017, eq. for direct encoding):
    ``n·q(1 − q)/(p − q)² = n·(e^ε + k − 2)/(e^ε − 1)²`` (drops the term ``n·f_v(1 − p − q)/(p −
    q)``, small when f_v is). For a proportion divide by n²: ``(e^ε + k − 2)/(n(e^ε − 1)²)``; see
    :func:`krr_proportion_variance` for the exact per-frequency version.
    """
    n = _check_n(n)
    t = math.exp(-design.epsilon)  # multiply through by e^−2ε: no overflow at large ε
    return n * (t + (design.k - 2) * t * t) / math.expm1(-design.epsilon) ** 2


def krr_proportion_variance(design: KRRDesign, n: int, *, frequency: float | None = None) -> float:
    """Variance of one option's unbiased proportion ``ĉ_v/n``.

    ``frequency=None``: the approximation ``(e^ε + k − 2)/(n(e^ε − 1)²)``; otherwise exact:
    ``λ_v(1 − λ_v)/(n(p − q)²)`` with ``λ_v = q + (p − q)·f_v``.
    """
    n = _check_n(n)
    if frequency is None:
        return krr_variance(design, n) / (n * n)
    return estimator_variance(design, frequency, n)


# --- planning ------------------------------------------------------------------------------------


def _planning_variance(design: Design, prior: float | None) -> float:
    """``λ(1 − λ)`` for a guessed π, or the worst case (the largest) for None: ¼ when the design
    can report at λ = ½, else at the nearest attainable end of [d, c + d]."""
    if prior is not None:
        return _report_variance(design, _check_prior(prior))
    c, d = _c_d(design)
    if min(d, c + d) > 0.5:  # λ ranges over [min, max] of d and c + d (c < 0: crosswise)
        return _report_variance(design, 0.0 if d < c + d else 1.0)
    if max(d, c + d) < 0.5:
        return _report_variance(design, 1.0 if c + d > d else 0.0)
    return 0.25


def _planned_n(numerator: float, h: float) -> int:
    """``⌈numerator/h²⌉``, dividing by h twice (h² underflows to 0 for h < 1e-162); a plan
    needing more respondents than a float holds is refused, naming ``half_width``."""
    n = numerator / h / h
    if not math.isfinite(n):
        raise ArgumentError(
            "half_width", f"half_width is too small: over 1e308 respondents needed (got {h!r})"
        )
    return _ceil(n)


def _ceil(x: float) -> int:
    """Round up, ignoring a relative excess of ≤ 1e-12 (so 1536.0000000001 is 1536)."""
    return max(1, math.ceil(x * (1.0 - 1e-12)))


def sample_size(
    design: Design,
    *,
    half_width: float,
    prior: float | None = None,
    confidence: float = 0.95,
) -> int:
    """Respondents for a ±``half_width`` interval: ``n = ⌈z²·λ(1 − λ)/(c²h²)⌉``, ``λ = cπ + d``.

    ``prior=None`` plans for the worst case (λ = ½ when attainable). Compare
    :func:`sample_size_direct`: the coin design at π = ½ needs 4× the respondents.
    """
    h = _check_half_width(half_width)
    z = z_value(confidence)
    c = design.c
    return _planned_n(z * z * _planning_variance(design, prior) / (c * c), h)


def sample_size_direct(
    *, half_width: float, prior: float | None = None, confidence: float = 0.95
) -> int:
    """Direct questioning: ``n = ⌈z²·π(1 − π)/h²⌉`` (worst case π = ½)."""
    h = _check_half_width(half_width)
    z = z_value(confidence)
    pi = 0.5 if prior is None else _check_prior(prior)
    return _planned_n(z * z * pi * (1.0 - pi), h)


def planned_half_width(
    design: Design, *, n: int, prior: float | None = None, confidence: float = 0.95
) -> float:
    """Expected interval half-width ``z·√(λ(1 − λ)/n)/c`` (the inverse of :func:`sample_size`)."""
    z = z_value(confidence)
    return z * math.sqrt(_planning_variance(design, prior) / _check_n(n)) / abs(design.c)


def planned_half_width_direct(
    *, n: int, prior: float | None = None, confidence: float = 0.95
) -> float:
    """Direct questioning: ``z·√(π(1 − π)/n)`` (worst case π = ½)."""
    z = z_value(confidence)
    pi = 0.5 if prior is None else _check_prior(prior)
    return z * math.sqrt(pi * (1.0 - pi) / _check_n(n))


# --- vectorised tables and exact coverage --------------------------------------------------------


def binary_interval_table(
    design: Design, *, n: int, confidence: float = 0.95, interval: str = "unified"
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """``(estimate, ci_low, ci_high)`` arrays for every outcome y = 0..n (numpy; matches
    :func:`estimate_binary` entry by entry)."""
    c, d = _c_d(design)
    return interval_table(c, d, _check_n(n), check_confidence(confidence), interval)


def exact_coverage(
    design: Design,
    *,
    n: int,
    pis: npt.ArrayLike,
    confidence: float = 0.95,
    interval: str = "unified",
) -> FloatArray:
    """Exact (not simulated) coverage ``P_π(ci_low ≤ π ≤ ci_high)`` for each π in ``pis``:
    the Bin(n, cπ + d) pmf summed over the outcomes whose interval contains π."""
    c, d = _c_d(design)
    return exact_coverage_cd(
        c, d, n=_check_n(n), pis=pis, confidence=check_confidence(confidence), interval=interval
    )
