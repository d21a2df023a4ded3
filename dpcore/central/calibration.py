"""Noise calibration and error planning for central-DP releases (docs/formulas.md#calibration).

* :func:`analytic_gaussian_sigma` — the smallest σ for which the (continuous) Gaussian mechanism
  is (ε, δ)-DP, by the exact condition of Balle & Wang, "Improving the Gaussian Mechanism for
  Differential Privacy: Analytical Calibration and Optimal Denoising" (ICML 2018), Thm. 8:
      δ(ε, σ) = Φ(Δ/(2σ) − εσ/Δ) − e^ε · Φ(−Δ/(2σ) − εσ/Δ),
  solved for σ by bisection (their Algorithm 1 does the same search in a reparametrization).
  Φ is evaluated through ``math.erfc`` and the e^ε·Φ(·) term in log space, so tiny δ do not
  cancel catastrophically (``statistics.NormalDist().cdf`` loses the far tail).
* σ ↔ ρ for zCDP (Bun & Steinke 2016): ρ = Δ₂²/(2σ²).
* Laplace scale Δ₁/ε; noise variances of the discrete samplers; the expected ± of a noisy count
  and of a debiased randomized-response estimate, shown to a researcher before spending budget.

All validation raises :class:`dpcore.errors.PrivacyParameterError` (a ``ValueError`` with
``.field``) — including a result that would not be a finite float (e.g. σ for Δ = 1e308, the
variance of the discrete Laplace at scale 1e200): the error names the input responsible.
"""

from __future__ import annotations

import math
from typing import Literal

from dpcore.errors import PrivacyParameterError
from dpcore.validation import check_delta, check_epsilon, check_positive
from dpcore.validation import check_real as _check_real

__all__ = [
    "MAX_DELTA",
    "MIN_DELTA",
    "PrivacyParameterError",
    "analytic_gaussian_sigma",
    "check_delta",
    "check_epsilon",
    "check_positive",
    "classical_gaussian_sigma",
    "discrete_gaussian_variance",
    "discrete_laplace_variance",
    "expected_count_error",
    "expected_estimate_error",
    "gaussian_delta",
    "laplace_scale",
    "log_ndtr",
    "noise_variance",
    "rho_from_sigma",
    "sigma_from_rho",
]

_SQRT2 = math.sqrt(2.0)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


# --------------------------------------------------------------------------- validation
# check_positive, check_epsilon, check_delta: dpcore.validation (re-exported here).


def _finite_result(value: float, field: str, what: str) -> float:
    if not math.isfinite(value):
        raise PrivacyParameterError(field, f"out of range: {what} is not a finite float")
    return value


#: δ accepted in a survey's budget and in a release request. δ is the chance that an (ε, δ)
#: guarantee fails outright — a mechanism may publish one respondent's data with probability δ —
#: so it must be far below 1/n (Dwork & Roth 2014, §2.3: δ ≈ 1/n allows "release a random
#: respondent's record"). 1e-3 is 1/n for the default planned 1,000 respondents: any larger δ
#: is unjustifiable for any survey (δ = 0.9 let eleven ε = 1 releases report "spent 0.076",
#: issue 11 §8); the builder suggests δ < 1/n. Below 1e-100 no accountant's answer changes in
#: any useful way, and subnormal δ broke the exact accountant (issue 11 §10).
MIN_DELTA = 1e-100
MAX_DELTA = 1e-3


# --------------------------------------------------------------------------- normal tails


def log_ndtr(x: float) -> float:
    """ln Φ(x) for the standard normal CDF, accurate in both tails.

    x ≥ 0: log1p(−½·erfc(x/√2)); −30 ≤ x < 0: ln(½·erfc(−x/√2)) (erfc keeps full relative
    accuracy there); x < −30: the asymptotic series
    ln Φ(x) = −x²/2 − ln(−x) − ½ln(2π) + ln(1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸) (error < 1e-13).
    """
    if x >= 0:
        return math.log1p(-0.5 * math.erfc(x / _SQRT2))
    if x >= -30:
        return math.log(0.5 * math.erfc(-x / _SQRT2))
    z = 1.0 / (x * x)
    series = 1.0 - z * (1.0 - z * (3.0 - z * (15.0 - 105.0 * z)))
    return -0.5 * x * x - math.log(-x) - _HALF_LOG_2PI + math.log(series)


def gaussian_delta(epsilon: float, mu: float) -> float:
    """δ(ε) of a μ-GDP pair N(0,1) vs N(μ,1) (Dong, Roth & Su 2019 Cor. 2.13; Balle & Wang Thm 8).

        δ(ε) = Φ(−ε/μ + μ/2) − e^ε · Φ(−ε/μ − μ/2),  μ = Δ/σ.

    Computed as Φ(a)·(1 − exp(ε + lnΦ(b) − lnΦ(a))) so both terms stay in log space.
    ``mu = 0`` (no sensitivity left) gives 0; ``mu = ∞`` gives 1 (for finite ε).
    """
    if isinstance(epsilon, bool) or not isinstance(epsilon, int | float) or not epsilon >= 0:
        raise PrivacyParameterError("epsilon", "must be a number ≥ 0")
    if isinstance(mu, bool) or not isinstance(mu, int | float) or not mu >= 0:
        raise PrivacyParameterError("mu", "must be a number ≥ 0")
    if mu == 0 or epsilon > 1e308:  # no sensitivity left, or ε = ∞
        return 0.0
    if mu > 1e308:  # μ = ∞ (an int beyond the float range too): Φ(∞) − e^ε·Φ(−∞)
        return 1.0
    a = mu / 2.0 - epsilon / mu
    b = -mu / 2.0 - epsilon / mu
    log_a = log_ndtr(a)
    if log_a == -math.inf:  # Φ(a) underflows: δ ≤ Φ(a) = 0
        return 0.0
    ratio = epsilon + log_ndtr(b) - log_a
    if ratio >= 0.0:  # only by rounding: the true difference is ≥ 0
        return 0.0
    return math.exp(log_a) * -math.expm1(ratio)


# --------------------------------------------------------------------------- σ calibration


def classical_gaussian_sigma(epsilon: float, delta: float, l2_sensitivity: float = 1.0) -> float:
    """The textbook σ = √(2 ln(1.25/δ))·Δ/ε (Dwork & Roth 2014, Thm. A.1; only proven for ε < 1).

    Shown for comparison only: the analytic σ is always smaller for the same (ε, δ).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive(l2_sensitivity, "l2_sensitivity")
    sigma = math.sqrt(2.0 * math.log(1.25 / d)) * sens / eps
    return _finite_result(sigma, "l2_sensitivity", "σ")


def analytic_gaussian_sigma(
    epsilon: float, delta: float, l2_sensitivity: float = 1.0, *, rel_tol: float = 1e-12
) -> float:
    """Smallest σ with δ(ε, σ) ≤ δ for the continuous Gaussian mechanism (Balle & Wang 2018).

    δ(ε, σ) is strictly decreasing in σ, so bisection on ln σ converges; the *upper* end of the
    final bracket is returned, so ``gaussian_delta(ε, Δ/σ) ≤ δ`` always holds at the result.
    Reference (δ = 1e-5, Δ = 1): ε = 0.1, 0.5, 1, 2 → σ = 30.750, 7.032, 3.731, 1.994.

    Note: this is the calibration for *continuous* noise. For the discrete Gaussian sampler the
    accountant charges via zCDP/RDP; use
    :func:`dpcore.central.accounting.gaussian_sigma_for_budget` to
    get a σ whose charged ε is at most the request.
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    sens = check_positive(l2_sensitivity, "l2_sensitivity")

    def too_small(sigma: float) -> bool:
        return gaussian_delta(eps, sens / sigma) > d

    hi = sens
    while too_small(hi):
        hi *= 2.0
        _finite_result(hi, "l2_sensitivity", "σ")
    lo = hi / 2.0
    while not too_small(lo):
        lo /= 2.0
        if lo < 1e-300:  # pragma: no cover - δ(ε, σ) → 1 as σ → 0, so this cannot happen
            return hi
    for _ in range(200):
        if hi - lo <= rel_tol * hi:
            break
        product = lo * hi  # underflows for a tiny Δ (1e-300): then take the roots apart
        mid = math.sqrt(product) if product > 1e-290 else math.sqrt(lo) * math.sqrt(hi)
        if too_small(mid):
            lo = mid
        else:
            hi = mid
    return hi


def rho_from_sigma(sigma: float, l2_sensitivity: float = 1.0) -> float:
    """ρ = Δ₂²/(2σ²): Gaussian (continuous or discrete, CKS 2020 Thm. 14) is ρ-zCDP."""
    s = check_positive(sigma, "sigma")
    sens = check_positive(l2_sensitivity, "l2_sensitivity")
    ratio = sens / s  # not sens²/(2σ²): σ² underflows (σ = 1e-300) and both overflow at 1e308
    return _finite_result(ratio * ratio / 2.0, "sigma", "ρ = Δ²/(2σ²)")


def sigma_from_rho(rho: float, l2_sensitivity: float = 1.0) -> float:
    """σ = Δ₂/√(2ρ), the inverse of :func:`rho_from_sigma`."""
    r = check_positive(rho, "rho")
    sens = check_positive(l2_sensitivity, "l2_sensitivity")
    return _finite_result(sens / math.sqrt(2.0 * r), "rho", "σ = Δ/√(2ρ)")


def laplace_scale(epsilon: float, l1_sensitivity: float = 1.0) -> float:
    """Scale t = Δ₁/ε of the (discrete) Laplace mechanism; ε-DP."""
    eps = check_epsilon(epsilon)
    sens = check_positive(l1_sensitivity, "l1_sensitivity")
    return _finite_result(sens / eps, "epsilon", "the scale Δ₁/ε")


# --------------------------------------------------------------------------- error planning


def discrete_laplace_variance(scale: float) -> float:
    """Var of the discrete Laplace with scale t: 2e^{−1/t}/(1 − e^{−1/t})² (exact).

    (For large t this approaches the continuous 2t², minus 1/6.)
    """
    t = check_positive(scale, "scale")
    q = math.exp(-1.0 / t)
    denominator = (-math.expm1(-1.0 / t)) ** 2  # underflows to 0 for t > ~1e154 (variance ~2t²)
    if denominator == 0.0:
        raise PrivacyParameterError("scale", "out of range: the variance is not a finite float")
    return _finite_result(2.0 * q / denominator, "scale", "the variance")


def discrete_gaussian_variance(sigma: float) -> float:
    """Var of the discrete Gaussian N_ℤ(0, σ²); always < σ² (CKS 2020, Prop. 19 / Cor. 9).

    For σ < 10 the pmf is summed out to |x| ≤ 40σ + 10 (the neglected tail is below e^{−800}).
    For σ ≥ 10, σ² is returned: by Poisson summation the relative gap is about
    4π²σ²·e^{−2π²σ²} < 1e-800, far below float resolution.
    """
    s = check_positive(sigma, "sigma")
    if s >= 10.0:
        return _finite_result(s * s, "sigma", "σ²")
    two_s2 = 2.0 * s * s
    if two_s2 == 0.0:  # σ < 1e-162: the variance ≈ 2e^{−1/(2σ²)} underflowed long before
        return 0.0
    bound = math.ceil(40 * s) + 10
    weights = [math.exp(-(x * x) / two_s2) for x in range(1, bound + 1)]
    normalizer = 1.0 + 2.0 * math.fsum(weights)
    second_moment = 2.0 * math.fsum(x * x * w for x, w in enumerate(weights, start=1))
    return second_moment / normalizer


Mechanism = Literal["laplace", "gaussian"]


def noise_variance(mechanism: Mechanism, scale: float) -> float:
    """Variance of the noise added to one cell: ``scale`` is t (laplace) or σ (gaussian)."""
    if mechanism == "laplace":
        return discrete_laplace_variance(scale)
    if mechanism == "gaussian":
        return discrete_gaussian_variance(scale)
    raise PrivacyParameterError("mechanism", f"unknown mechanism {mechanism!r}")


def expected_count_error(mechanism: Mechanism, scale: float) -> float:
    """Standard deviation (±1 SE) of the noise on one released count; see :func:`noise_variance`.

    Examples: laplace t = 1 → 1.357; gaussian σ = 3.731 → ≈ 3.731.
    """
    return math.sqrt(noise_variance(mechanism, scale))


def _estimate_variance(lam: float, n: float, noise_var: float, c: float) -> float:
    sampling = lam * (1.0 - lam) / n
    noise = noise_var * (lam * lam + (1.0 - lam) ** 2) / n / n  # n² underflows for n < 1e-162
    return (sampling + noise) / c / c  # c² underflows for |c| < 1e-162


def expected_estimate_error(
    *,
    c: float,
    d: float,
    n: float,
    noise_variance: float,
    prevalence: float | None = None,
) -> float:
    """Expected standard error of the debiased RR estimate π̂ released with central noise.

    Model (docs/formulas.md#expected-error): a release publishes noisy cell counts ỹ = y + η₁
    (reported yes) and ñ = (n − y) + η₀ (reported no) with independent noise of variance V =
    ``noise_variance``. The true n is not released, so the estimator uses the noisy total:
        λ̂ = ỹ / (ỹ + ñ),   π̂ = (λ̂ − d)/c.
    Delta method on λ̂ at (λn, (1−λ)n) — gradient ((1−λ)/n, −λ/n) — plus binomial sampling:
        Var(λ̂) ≈ λ(1−λ)/n + V·(λ² + (1−λ)²)/n²,   SE(π̂) = √Var(λ̂)/|c|.
    With ``prevalence`` π given, λ = cπ + d; otherwise the worst case over the feasible
    λ ∈ [d, c + d] is returned (the expression is quadratic in λ, so its maximum is at λ = ½ or
    at an end point). Multiply by z (1.96) for a 95 % half-width. ``n`` is the expected number
    of respondents; ``noise_variance`` comes from :func:`noise_variance`.
    """
    c_ = _check_real(c, "c")
    d_ = _check_real(d, "d")
    if c_ == 0.0:
        raise PrivacyParameterError("c", "must be finite and non-zero")
    if not 0.0 <= d_ <= 1.0:
        raise PrivacyParameterError("d", "must lie in [0, 1]")
    n_ = check_positive(n, "n")
    noise_variance = _check_real(noise_variance, "noise_variance")
    if noise_variance < 0:
        raise PrivacyParameterError("noise_variance", "must be finite and ≥ 0")
    lo, hi = sorted((d_, c_ + d_))
    if lo < 0.0 or hi > 1.0:
        raise PrivacyParameterError("c", "c·π + d must stay in [0, 1] for π ∈ [0, 1]")
    if prevalence is not None:
        prevalence = _check_real(prevalence, "prevalence")
        if not 0.0 <= prevalence <= 1.0:
            raise PrivacyParameterError("prevalence", "must lie in [0, 1]")
        candidates = [c_ * prevalence + d_]
    else:
        candidates = [lo, hi] + ([0.5] if lo <= 0.5 <= hi else [])
    variance = max(_estimate_variance(lam, n_, noise_variance, c_) for lam in candidates)
    return math.sqrt(variance)
