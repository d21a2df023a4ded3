"""Exact samplers (dpcore.central.noise) against their exact pmfs.

The samplers draw from ``secrets`` and cannot be seeded, so every statistical test here is a
hypothesis test at a fixed false-alarm rate α = 1e-6: the critical value is
``scipy.stats.chi2.ppf(1 - 1e-6, df)`` (or a binomial test p-value > 1e-6). A correct sampler fails
a given test about once in a million runs; a wrong pmf fails it essentially always at these n.
"""

from __future__ import annotations

import ast
import io
import math
import re
import tokenize
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from dpcore.central.noise import (
    SecretsRandomSource,
    discrete_gaussian_normalizer,
    discrete_gaussian_pmf,
    discrete_laplace_pmf,
    exact_fraction,
    sample_bernoulli_exp,
    sample_discrete_gaussian,
    sample_discrete_gaussian_many,
    sample_discrete_laplace,
    sample_discrete_laplace_many,
)
from dpcore.errors import PrivacyParameterError

ALPHA = 1e-6
N = 20_000
REPO = Path(__file__).resolve().parents[3]


# --------------------------------------------------------------------------- helpers


@cache
def laplace_samples(scale: float) -> tuple[int, ...]:
    return tuple(sample_discrete_laplace_many(Fraction(scale), N))


@cache
def gaussian_samples(sigma: float) -> tuple[int, ...]:
    return tuple(sample_discrete_gaussian_many(Fraction(sigma) ** 2, N))


def exact_pmf(kind: str, scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Support window and exact pmf (tail mass beyond it < 1e-12 · n)."""
    if kind == "laplace":
        half = math.ceil(40 * scale) + 10
        xs = np.arange(-half, half + 1)
        return xs, np.array([discrete_laplace_pmf(int(x), scale) for x in xs])
    half = math.ceil(10 * scale) + 10
    xs = np.arange(-half, half + 1)
    z = discrete_gaussian_normalizer(scale * scale)
    return xs, np.array([discrete_gaussian_pmf(int(x), scale * scale, z) for x in xs])


def chisquare_stat(
    samples: np.ndarray, xs: np.ndarray, pmf: np.ndarray, min_expected: float = 5.0
) -> tuple[float, int]:
    """Pearson χ² with adjacent cells pooled until each expects ≥ ``min_expected`` draws.

    The outermost cells absorb everything beyond the window (samples are clipped into them and
    the missing tail mass is added), so every draw lands in exactly one cell.
    """
    n = len(samples)
    probs = pmf.copy()
    missing = max(0.0, 1.0 - probs.sum())
    probs[0] += missing / 2
    probs[-1] += missing / 2
    expected = n * probs
    right_edges: list[int] = []
    cell_expected: list[float] = []
    acc = 0.0
    for x, e in zip(xs, expected, strict=True):
        acc += e
        if acc >= min_expected:
            right_edges.append(int(x))
            cell_expected.append(acc)
            acc = 0.0
    if acc > 0:  # leftover right tail: merge into the last cell
        cell_expected[-1] += acc
    right_edges[-1] = int(xs[-1])
    clipped = np.clip(samples, xs[0], xs[-1])
    cells = np.searchsorted(np.array(right_edges), clipped, side="left")
    observed = np.bincount(cells, minlength=len(right_edges))
    exp = np.array(cell_expected)
    stat = float(((observed - exp) ** 2 / exp).sum())
    return stat, len(right_edges) - 1


def assert_fits(samples: np.ndarray, xs: np.ndarray, pmf: np.ndarray, **kw: float) -> None:
    stat, df = chisquare_stat(samples, xs, pmf, **kw)
    critical = stats.chi2.ppf(1 - ALPHA, df)  # α = 1e-6 critical value (unseeded CSPRNG)
    assert df >= 2
    assert stat < critical, f"chi2={stat:.1f} > {critical:.1f} (df={df})"


def assert_moments(samples: np.ndarray, xs: np.ndarray, pmf: np.ndarray) -> None:
    """Sample mean and variance within 5 standard errors of the exact ones (mean 0)."""
    n = len(samples)
    var = float((xs.astype(float) ** 2 * pmf).sum())
    mu4 = float((xs.astype(float) ** 4 * pmf).sum())
    mean_se = math.sqrt(var / n)
    var_se = math.sqrt((mu4 - var * var) / n)
    assert abs(samples.mean()) < 5 * mean_se
    assert abs(samples.var() - var) < 5 * var_se + 1e-12


# --------------------------------------------------------------------------- algorithm logic


class ScriptedSource:
    """Deterministic source for control-flow checks: returns scripted values, checks bounds."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.calls: list[int] = []

    def randbelow(self, n: int) -> int:
        self.calls.append(n)
        value = self.values.pop(0)
        assert 0 <= value < n
        return value


def test_bernoulli_exp_follows_algorithm_1_step_by_step() -> None:
    # γ = 1/2: A₁ ~ Bern(γ/1) = [randbelow(2) < 1] → 0 means A₁ = 1; A₂ = [randbelow(4) < 1] → 3
    # means A₂ = 0, so K = 2 (even) → 0.
    src = ScriptedSource([0, 3])
    assert sample_bernoulli_exp(Fraction(1, 2), src) is False
    assert src.calls == [2, 4]
    # First coin fails immediately: K = 1 (odd) → 1.
    assert sample_bernoulli_exp(Fraction(1, 2), ScriptedSource([1])) is True
    # γ = 0 needs no randomness at all.
    assert sample_bernoulli_exp(0, ScriptedSource([])) is True


def test_discrete_laplace_rejects_negative_zero() -> None:
    # scale 1 (t = s = 1): U = randbelow(1) = 0 is accepted without a draw; the e^{−1} coin's
    # first Bernoulli(1) is skipped, its second (randbelow(2) = 1 ≥ 1) stops V at 0; sign draw 1
    # with Y = 0 is the rejected "−0", the second round returns +0.
    src = ScriptedSource([0, 1, 1, 0, 1, 0])
    assert sample_discrete_laplace(1, src) == 0
    assert src.calls == [1, 2, 2, 1, 2, 2]


def test_default_source_is_secrets() -> None:
    assert isinstance(SecretsRandomSource().randbelow(10), int)
    assert 0 <= SecretsRandomSource().randbelow(1) < 1


def test_outputs_are_python_ints() -> None:
    for value in sample_discrete_laplace_many(Fraction(7, 3), 50) + sample_discrete_gaussian_many(
        "2.5", 50
    ):
        assert type(value) is int
    assert type(sample_discrete_gaussian(4)) is int
    assert type(sample_discrete_laplace(0.3)) is int
    assert sample_discrete_laplace_many(1, 0) == []


def test_parameter_conversion_is_exact() -> None:
    assert exact_fraction(0.1) == Fraction(3602879701896397, 2**55)  # the float's binary value
    assert exact_fraction("0.1") == Fraction(1, 10)
    assert exact_fraction(Fraction(2, 3)) == Fraction(2, 3)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda: sample_discrete_laplace(0), "scale"),
        (lambda: sample_discrete_laplace(-1.0), "scale"),
        (lambda: sample_discrete_laplace(math.nan), "scale"),
        (lambda: sample_discrete_laplace(math.inf), "scale"),
        (lambda: sample_discrete_gaussian(0), "sigma2"),
        (lambda: sample_discrete_gaussian(True), "sigma2"),
        (lambda: sample_discrete_gaussian_many(1, -1), "size"),
        (lambda: sample_bernoulli_exp(-1), "gamma"),
    ],
)
def test_bad_parameters_raise(call, field: str) -> None:
    with pytest.raises(PrivacyParameterError) as info:
        call()
    assert info.value.field == field


# --------------------------------------------------------------------------- distributions


@pytest.mark.parametrize("gamma", [Fraction(1, 3), Fraction(1), Fraction(3, 2), Fraction(22, 7)])
def test_bernoulli_exp_has_exact_probability(gamma: Fraction) -> None:
    n = 40_000
    hits = sum(sample_bernoulli_exp(gamma) for _ in range(n))
    p = math.exp(-float(gamma))
    assert stats.binomtest(hits, n, p).pvalue > ALPHA


@pytest.mark.parametrize("scale", [0.5, 1.0, 3.0, 20.0])
def test_discrete_laplace_matches_exact_pmf(scale: float) -> None:
    samples = np.array(laplace_samples(scale))
    xs, pmf = exact_pmf("laplace", scale)
    assert_fits(samples, xs, pmf)
    assert_moments(samples, xs, pmf)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 5.0, 50.0])
def test_discrete_gaussian_matches_exact_pmf(sigma: float) -> None:
    samples = np.array(gaussian_samples(sigma))
    xs, pmf = exact_pmf("gaussian", sigma)
    assert_fits(samples, xs, pmf)
    assert_moments(samples, xs, pmf)


def test_discrete_gaussian_large_sigma_binned() -> None:
    # σ = 1000: ~8000 support points, so pool into ~50 equiprobable-ish cells (binned χ²).
    sigma = 1000.0
    samples = np.array(gaussian_samples(sigma))
    xs, pmf = exact_pmf("gaussian", sigma)
    assert_fits(samples, xs, pmf, min_expected=N / 50)
    assert_moments(samples, xs, pmf)


def test_discrete_laplace_float_scale_is_exact_for_that_float() -> None:
    scale = 1 / 0.3  # a float scale: sampled exactly at Fraction(1/0.3)
    samples = np.array(sample_discrete_laplace_many(scale, N))
    xs, pmf = exact_pmf("laplace", scale)
    assert_fits(samples, xs, pmf)


# --------------------------------------------------------------------------- floating point


def _is_multiple_of_2_pow_minus_53(y: float) -> bool:
    return (y * 2.0**53).is_integer()  # scaling by a power of two is exact


def test_numpy_laplace_leaks_through_low_bits_but_integer_noise_does_not() -> None:
    """Mironov 2012 / Haney et al. 2022: with float noise, S = "not a multiple of 2⁻⁵³" separates
    x = 0 from x = 1. 1 + y rounds to a multiple of 2⁻⁵³ for every float y (|1 + y| ≥ ½ leaves no
    finer bits; otherwise y ∈ [−3/2, −½] and Sterbenz makes 1 + y exact with |y| ≥ ½), while
    y itself has finer bits whenever |y| < ½."""
    rng = np.random.default_rng(20240501)  # the counter-example, not privacy noise
    n = 20_000
    noise = rng.laplace(0.0, 1.0, size=n)  # ε = 1 continuous Laplace
    s_given_0 = np.mean([not _is_multiple_of_2_pow_minus_53(float(0.0 + y)) for y in noise])
    s_given_1 = np.mean([not _is_multiple_of_2_pow_minus_53(float(1.0 + y)) for y in noise])
    assert s_given_1 == 0.0
    # Seen ≈ 0.27 (not every |y| < ½ has finer bits: numpy builds y from a 53-bit uniform).
    # S has probability 0 under x = 1 and > 0 under x = 0: no finite ε covers that.
    assert s_given_0 > 0.1

    # Integer noise: x + noise is an integer for both inputs (no bit pattern can tell them apart),
    # its support is all of ℤ for both, and the x = 1 output law is exactly the x = 0 law shifted.
    samples = np.array(laplace_samples(1.0))
    fresh = np.array(sample_discrete_laplace_many(1, N))
    out0, out1 = 0 + samples, 1 + fresh
    assert out0.dtype.kind == out1.dtype.kind == "i"
    for out in (out0, out1):
        assert 0 < np.mean(out >= 1) < 1 and 0 < np.mean(out <= 0) < 1
        assert 0 < np.mean(out % 2 == 0) < 1
    xs, pmf = exact_pmf("laplace", 1.0)
    assert_fits(out1, xs + 1, pmf)  # x = 1 outputs fit pmf(v − 1)
    assert_fits(out0, xs, pmf)


# --------------------------------------------------------------------------- no insecure RNG


def _code_without_comments_and_strings(source: str) -> str:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    kept = [tok.string for tok in tokens if tok.type not in (tokenize.COMMENT, tokenize.STRING)]
    return " ".join(kept)


PRIVACY_FILES = sorted(
    p
    for package in ("dpcore", "privacy")
    for p in (REPO / package).rglob("*.py")
    if "migrations" not in p.parts
)


@pytest.mark.parametrize("path", PRIVACY_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_privacy_code_never_uses_insecure_randomness(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    code = _code_without_comments_and_strings(source)
    assert not re.search(r"\bimport random\b|\bfrom random\b", code)
    assert not re.search(r"\bnumpy \. random\b|\bnp \. random\b|\bnumpy\.random\b", code)
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            assert all(a.name.split(".")[0] != "random" for a in node.names)
            assert all(not a.name.startswith("numpy.random") for a in node.names)
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] != "random"
            assert not (node.module or "").startswith("numpy.random")
            if node.module == "numpy":
                assert all(a.name != "random" for a in node.names)


def test_noise_module_uses_only_secrets() -> None:
    tree = ast.parse((REPO / "dpcore" / "central" / "noise.py").read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    }
    assert "secrets" in imported
    assert not imported & {"random", "numpy", "numpy.random", "os"}
