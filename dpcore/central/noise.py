"""Exact integer noise for central-DP releases (docs/formulas.md#noise).

Samplers follow Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy"
(NeurIPS 2020, arXiv:2004.00010), Algorithms 1–3:

* Algorithm 1 — Bernoulli(exp(−γ)) for rational γ ≥ 0, using only Bernoulli(n/d) coin flips;
* Algorithm 2 — discrete Laplace (two-sided geometric) with rational scale t:
  P[X = x] = (1 − e^{−1/t}) / (1 + e^{−1/t}) · e^{−|x|/t}, x ∈ ℤ;
* Algorithm 3 — discrete Gaussian with rational σ²:
  P[X = x] = e^{−x²/(2σ²)} / Σ_{y∈ℤ} e^{−y²/(2σ²)}, x ∈ ℤ.

Why this and not ``numpy.random.laplace``: floating-point noise leaks the input through the
low-order bits of the output (Mironov 2012; Haney et al. 2022). Here every random decision is a
comparison of a uniformly random *integer* with an *integer* threshold, so the output law is
exactly the stated pmf — no rounding anywhere — and outputs are Python ints.

Randomness comes only from :mod:`secrets` (the OS CSPRNG) through the tiny :class:`RandomSource`
protocol. Tests may pass a deterministic source to check the algorithm's control flow; production
code never passes one.

Parameter conversion (documented choice): parameters may be ``int``, :class:`fractions.Fraction`,
:class:`decimal.Decimal`, a decimal ``str`` (``"0.1"`` is exactly 1/10) or ``float``. Floats are
converted **exactly** with ``Fraction(x)`` (the binary value the float really holds), never by a
limited-denominator approximation: rounding a scale *down* would add less noise than the accountant
is charged for. The sampler therefore realizes exactly the distribution for the float that is
recorded with the release. Large denominators cost only big-int arithmetic.

Bounds (documented; :class:`~dpcore.errors.PrivacyParameterError` otherwise). The expected number
of loop iterations of Algorithms 2 and 3 does not grow in either direction of the scale: for a tiny
scale the geometric loop of Algorithm 2 almost always yields 0 and the only rejection is the
"−0" one (probability ½), for a huge scale U is accepted with probability ≥ 1 − e^{−1} and V is a
Geometric(1 − e^{−1}); Algorithm 3's acceptance probability is bounded below (CKS 2020, §5). What
grows is the *cost of each iteration*: every coin is big-integer arithmetic on the numerator and
denominator of the parameter, so the work per draw is about linear in their bit length, and the
work per call is that times ``size``. Hence:

* a parameter's exact numerator and denominator must each fit in :data:`MAX_PARAMETER_BITS` bits
  (2048: every finite float, whose exact fraction needs at most 1075 bits, and decimals such as
  10⁻⁴⁰⁰ pass — in particular the scale lies in [2⁻²⁰⁴⁸, 2²⁰⁴⁸]); decimal strings and Decimals
  are screened by exponent and digit count *before* conversion, so ``"1e999999999"`` is refused
  without building a 10⁹-digit integer;
* ``size`` is at most :data:`MAX_SIZE` (100 000) per call — tens of µs per draw at the largest
  parameters keep one call to a few seconds. A release draws one value per cell, far below it;
  callers needing more draws call again.

No timing-side-channel hardening is attempted (the loops are data-independent only in
distribution); docs/privacy-model.md#mechanisms keeps sampling in a worker and never exposes its
duration.
"""

from __future__ import annotations

import math
import numbers
import secrets
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from dpcore.central.csprng import BufferedSecretsSource
from dpcore.errors import PrivacyParameterError

__all__ = [
    "MAX_PARAMETER_BITS",
    "MAX_SIZE",
    "RandomSource",
    "SecretsRandomSource",
    "default_randbelow",
    "discrete_gaussian_pmf",
    "discrete_laplace_pmf",
    "exact_bernoulli_exp",
    "exact_fraction",
    "exact_geometric",
    "sample_bernoulli_exp",
    "sample_discrete_gaussian",
    "sample_discrete_gaussian_many",
    "sample_discrete_laplace",
    "sample_discrete_laplace_many",
]

Rational = int | float | Fraction | Decimal | str


class RandomSource(Protocol):
    """A source of uniform integers; the only primitive the samplers need."""

    def randbelow(self, n: int) -> int:
        """Return a uniformly random integer in [0, n) for n ≥ 1."""
        ...


class SecretsRandomSource(BufferedSecretsSource):
    """The production source: OS CSPRNG bits from :func:`secrets.token_bytes`, read in blocks and
    turned into exact uniform integers by rejection (:mod:`dpcore.central.csprng`; issue 13 —
    ``secrets.randbelow`` made one system call per integer, most of a draw's cost)."""

    def __init__(self) -> None:
        super().__init__(secrets.token_bytes)


_DEFAULT_SOURCE: RandomSource = SecretsRandomSource()

#: Largest bit length of a parameter's exact numerator or denominator (module notes).
MAX_PARAMETER_BITS = 2048
#: Largest ``size`` of one ``*_many`` call (module notes).
MAX_SIZE = 100_000
# Decimal screening before exact conversion: |adjusted exponent| and digit count (10^700 > 2^2048).
_MAX_DECIMAL_EXPONENT = 700
_MAX_DECIMAL_DIGITS = 700


# --------------------------------------------------------------------------- parameters


def _screen_decimal(value: Decimal, field: str) -> Decimal:
    if not value.is_finite():
        raise PrivacyParameterError(field, "must be finite")
    if (
        len(value.as_tuple().digits) > _MAX_DECIMAL_DIGITS
        or abs(value.adjusted()) > _MAX_DECIMAL_EXPONENT
    ):
        raise PrivacyParameterError(
            field, f"is out of range (more than {MAX_PARAMETER_BITS} bits when made exact)"
        )
    return value


def _to_fraction(value: Rational, field: str) -> Fraction:
    """The exact value of a str ("n/d" or a decimal), Decimal, rational or float parameter."""
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 2 * _MAX_DECIMAL_DIGITS:
            raise PrivacyParameterError(field, "is too long to be a parameter")
        if "/" in text:
            return Fraction(text)  # "n/d": two integers of bounded length, no exponent
        return Fraction(_screen_decimal(Decimal(text), field))
    if isinstance(value, Decimal):
        return Fraction(_screen_decimal(value, field))
    if isinstance(value, numbers.Rational | float):
        return Fraction(value)
    raise TypeError(type(value).__name__)


def exact_fraction(value: Rational, field: str = "value") -> Fraction:
    """Convert a parameter to an exact, finite, strictly positive :class:`Fraction`.

    Floats are converted exactly (``Fraction(0.1) == 3602879701896397/2**55``); strings and
    Decimals are read as exact decimals (a string may also be ``"n/d"``). Numerator and
    denominator must fit in :data:`MAX_PARAMETER_BITS` bits. Raises
    :class:`PrivacyParameterError` otherwise.
    """
    if isinstance(value, bool):
        raise PrivacyParameterError(field, "must be a number, not a boolean")
    if isinstance(value, float) and not math.isfinite(value):
        raise PrivacyParameterError(field, "must be finite")
    try:
        frac = _to_fraction(value, field)
    except PrivacyParameterError:
        raise
    except (ArithmeticError, ValueError, TypeError) as exc:  # decimal.InvalidOperation too
        raise PrivacyParameterError(field, f"is not a rational number: {value!r:.60}") from exc
    if frac <= 0:
        raise PrivacyParameterError(field, "must be > 0")
    if max(frac.numerator.bit_length(), frac.denominator.bit_length()) > MAX_PARAMETER_BITS:
        raise PrivacyParameterError(
            field,
            f"is out of range: its exact numerator and denominator must fit in "
            f"{MAX_PARAMETER_BITS} bits (scale between 2^-{MAX_PARAMETER_BITS} and "
            f"2^{MAX_PARAMETER_BITS})",
        )
    return frac


def _check_size(size: int) -> int:
    if isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise PrivacyParameterError("size", "must be a non-negative integer")
    if size > MAX_SIZE:
        raise PrivacyParameterError("size", f"must be at most {MAX_SIZE} per call")
    return size


# --------------------------------------------------------------------------- Algorithm 1


def _bernoulli_exp_at_most_one(num: int, den: int, randbelow: Callable[[int], int]) -> bool:
    """Bernoulli(exp(−γ)) for γ = num/den ∈ [0, 1] (CKS 2020, Algorithm 1, first part).

    Draw A_k ~ Bernoulli(γ/k) for k = 1, 2, … until the first A_k = 0; return whether that K is
    odd. P[K > k] = γ^k / k!, so P[K odd] = Σ (−γ)^k / k! = e^{−γ}. Bernoulli(num/(den·k)) is
    exactly ``randbelow(den·k) < num``.
    """
    if num == 0:
        return True  # γ = 0: A_1 = 0 surely, K = 1 — skip the wasted draw.
    # A_1 ~ Bernoulli(γ) is surely 1 when γ = 1 (the e^{−1} coin): skip that draw.
    k = 2 if num == den else 1
    while randbelow(den * k) < num:
        k += 1
    return k % 2 == 1


def _bernoulli_exp(num: int, den: int, randbelow: Callable[[int], int]) -> bool:
    """Bernoulli(exp(−num/den)) for any num ≥ 0, den > 0 (CKS 2020, Algorithm 1).

    For γ > 1, e^{−γ} = (e^{−1})^{⌊γ⌋} · e^{−(γ−⌊γ⌋)}: ⌊γ⌋ independent Bernoulli(e^{−1}) coins
    (stopping at the first failure) and one Bernoulli(e^{−frac(γ)}).
    """
    whole, rest = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_at_most_one(1, 1, randbelow):
            return False
    return _bernoulli_exp_at_most_one(rest, den, randbelow)


def sample_bernoulli_exp(gamma: Rational, rng: RandomSource | None = None) -> bool:
    """Return True with probability exactly exp(−γ), for rational γ ≥ 0 (CKS 2020, Alg. 1)."""
    if isinstance(gamma, int | Fraction) and not isinstance(gamma, bool) and gamma == 0:
        return True
    g = exact_fraction(gamma, "gamma")
    source = rng or _DEFAULT_SOURCE
    return _bernoulli_exp(g.numerator, g.denominator, source.randbelow)


# --------------------------------------------------------------------------- Algorithm 2


def _geometric(t: int, s: int, randbelow: Callable[[int], int]) -> int:
    """Y ~ Geometric(1 − e^{−s/t}) on {0, 1, …}: P[Y = y] = (1 − e^{−s/t})·e^{−y·s/t}
    (the first half of CKS 2020 Algorithm 2).

    U ~ Uniform{0..t−1} accepted w.p. e^{−U/t} and V ~ Geometric(1 − e^{−1}) give
    X = U + t·V ~ Geometric(1 − e^{−1/t}); Y = ⌊X/s⌋ ~ Geometric(1 − e^{−s/t}).
    """
    while True:
        u = randbelow(t)
        if _bernoulli_exp_at_most_one(u, t, randbelow):
            break
    v = 0
    while _bernoulli_exp_at_most_one(1, 1, randbelow):
        v += 1
    return (u + t * v) // s


def exact_geometric(rate: Fraction, randbelow: Callable[[int], int]) -> int:
    """Y ≥ 0 with P[Y = y] = (1 − e^{−λ})·e^{−λy} exactly, for rational λ = ``rate`` > 0."""
    return _geometric(rate.denominator, rate.numerator, randbelow)


def exact_bernoulli_exp(gamma: Fraction, randbelow: Callable[[int], int]) -> bool:
    """True with probability exactly e^{−γ}, rational γ ≥ 0 (CKS 2020, Algorithm 1)."""
    return _bernoulli_exp(gamma.numerator, gamma.denominator, randbelow)


def default_randbelow() -> Callable[[int], int]:
    """The production source's ``randbelow`` (:class:`SecretsRandomSource`)."""
    return _DEFAULT_SOURCE.randbelow


def _discrete_laplace(t: int, s: int, randbelow: Callable[[int], int]) -> int:
    """Discrete Laplace with scale t/s (t, s positive ints), CKS 2020 Algorithm 2.

    Y ~ Geometric(1 − e^{−s/t}) (:func:`_geometric`); a random sign with the (−0) outcome
    rejected gives P[Y = y] ∝ e^{−|y|·s/t}.
    """
    while True:
        y = _geometric(t, s, randbelow)
        negative = randbelow(2) == 1
        if negative and y == 0:
            continue  # reject "−0" so that 0 is not counted twice
        return -y if negative else y


def sample_discrete_laplace(scale: Rational, rng: RandomSource | None = None) -> int:
    """One draw from the discrete Laplace with scale t: P[x] ∝ exp(−|x|/t), x ∈ ℤ.

    With scale Δ₁/ε this is ε-DP for integer queries of L1 sensitivity Δ₁ (docs/formulas.md#noise).
    """
    frac = exact_fraction(scale, "scale")
    source = rng or _DEFAULT_SOURCE
    return _discrete_laplace(frac.numerator, frac.denominator, source.randbelow)


def sample_discrete_laplace_many(
    scale: Rational, size: int, rng: RandomSource | None = None
) -> list[int]:
    """``size`` independent discrete Laplace draws with scale t (parameters converted once)."""
    frac = exact_fraction(scale, "scale")
    n = _check_size(size)
    randbelow = (rng or _DEFAULT_SOURCE).randbelow
    t, s = frac.numerator, frac.denominator
    return [_discrete_laplace(t, s, randbelow) for _ in range(n)]


# --------------------------------------------------------------------------- Algorithm 3


def _discrete_gaussian(a: int, b: int, randbelow: Callable[[int], int]) -> int:
    """Discrete Gaussian with σ² = a/b, CKS 2020 Algorithm 3.

    Propose Y ~ discrete Laplace with integer scale τ = ⌊σ⌋ + 1 and accept with probability
    exp(−(|Y| − σ²/τ)² / (2σ²)). In integers, with σ² = a/b:
        γ = (|Y|·b·τ − a)² / (2·a·b·τ²).
    ⌊σ⌋ = isqrt(⌊σ²⌋) exactly, since ⌊√x⌋ = ⌊√⌊x⌋⌋ for x ≥ 0.
    """
    tau = math.isqrt(a // b) + 1
    den = 2 * a * b * tau * tau
    while True:
        y = _discrete_laplace(tau, 1, randbelow)
        diff = abs(y) * b * tau - a
        if _bernoulli_exp(diff * diff, den, randbelow):
            return y


def sample_discrete_gaussian(sigma2: Rational, rng: RandomSource | None = None) -> int:
    """One draw from the discrete Gaussian with variance parameter σ²: P[x] ∝ exp(−x²/(2σ²)).

    Adding it to an integer query of L2 sensitivity Δ₂ is (Δ₂²/(2σ²))-zCDP (CKS 2020, Thm. 14).
    Note the *parameter* is σ², not σ (pass ``sigma**2`` or a Fraction).
    """
    frac = exact_fraction(sigma2, "sigma2")
    source = rng or _DEFAULT_SOURCE
    return _discrete_gaussian(frac.numerator, frac.denominator, source.randbelow)


def sample_discrete_gaussian_many(
    sigma2: Rational, size: int, rng: RandomSource | None = None
) -> list[int]:
    """``size`` independent discrete Gaussian draws with parameter σ² (converted once)."""
    frac = exact_fraction(sigma2, "sigma2")
    n = _check_size(size)
    randbelow = (rng or _DEFAULT_SOURCE).randbelow
    a, b = frac.numerator, frac.denominator
    return [_discrete_gaussian(a, b, randbelow) for _ in range(n)]


# --------------------------------------------------------------------------- exact pmfs (float)


def discrete_laplace_pmf(x: int, scale: float) -> float:
    """P[X = x] = (1 − e^{−1/t})/(1 + e^{−1/t}) · e^{−|x|/t} = tanh(1/(2t)) · e^{−|x|/t}.

    Float evaluation, for tests and error planning only (never used to sample).
    """
    return math.tanh(0.5 / scale) * math.exp(-abs(x) / scale)


def discrete_gaussian_normalizer(sigma2: float) -> float:
    """Z = Σ_{y∈ℤ} e^{−y²/(2σ²)}, summed directly out to |y| ≤ 40σ + 10 (tail < e^{−800})."""
    sigma = math.sqrt(sigma2)
    bound = math.ceil(40 * sigma) + 10
    return 1.0 + 2.0 * math.fsum(math.exp(-(y * y) / (2 * sigma2)) for y in range(1, bound + 1))


def discrete_gaussian_pmf(x: int, sigma2: float, normalizer: float | None = None) -> float:
    """P[X = x] = e^{−x²/(2σ²)} / Z (float; pass a precomputed ``normalizer`` in loops)."""
    z = normalizer if normalizer is not None else discrete_gaussian_normalizer(sigma2)
    return math.exp(-(x * x) / (2 * sigma2)) / z
