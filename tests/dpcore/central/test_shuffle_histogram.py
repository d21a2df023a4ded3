"""The stated shuffled bound against real datasets (dpcore.central.shuffle): for binary and 3-ary
randomized response, the exact δ(ε) of the shuffled histogram for many inputs of the others —
each computed exactly by convolving the reports' laws — is never above ``clones-2023``; and the
all-alike dataset (dpcore.central.shuffle_histogram) is not the worst one, which is why it is only
a lower bound."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from dpcore.central import shuffle, shuffle_histogram
from dpcore.central.shuffle_pair import pair_log_delta


def hockey(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    """max of the two directions of Σ (P − e^ε Q)₊."""
    g = math.exp(eps)
    return float(max(np.maximum(p - g * q, 0).sum(), np.maximum(q - g * p, 0).sum()))


def binary_histogram(n: int, eps0: float, zeros: int) -> tuple[np.ndarray, np.ndarray]:
    """Law of the count of 1-reports: `zeros` others answer 0, the rest 1; the target 0 vs 1."""
    q = 1.0 / (math.exp(eps0) + 1.0)
    law = np.array([1.0])
    for i in range(n - 1):
        one = q if i < zeros else 1.0 - q
        law = np.convolve(law, [1.0 - one, one])
    return np.convolve(law, [1.0 - q, q]), np.convolve(law, [q, 1.0 - q])


@pytest.mark.parametrize("eps0", [1.1, 2.0, 4.0])
def test_binary_every_dataset_is_below_the_stated_bound(eps0: float) -> None:
    n = 60
    pair = shuffle.clone_pair(n, eps0, 2)
    for eps in (0.05, 0.2, 0.5, 0.9 * eps0):
        bound = math.exp(pair_log_delta(pair, eps))
        for zeros in range(n):
            p, q = binary_histogram(n, eps0, zeros)
            assert hockey(p, q, eps) <= bound * (1 + 1e-9) + 1e-15, (eps, zeros)


def test_the_alike_dataset_is_not_the_worst() -> None:
    # Found by scanning every split at n = 60: others split 32/27 beat all-alike by a fifth.
    n, eps0, eps = 60, 4.0, 0.05
    alike = math.exp(shuffle_histogram.alike_log_delta(n, eps0, eps))
    p, q = binary_histogram(n, eps0, n - 1)
    assert alike == pytest.approx(hockey(p, q, eps), rel=1e-9)
    p, q = binary_histogram(n, eps0, 32)
    assert hockey(p, q, eps) > 1.2 * alike


def three_rr_histogram(n: int, eps0: float, others: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Law of (N₁, N₂) for 3-RR (N₃ = n − N₁ − N₂ adds nothing), target 1 vs 2."""
    r = 1.0 / (math.exp(eps0) + 2.0)
    keep = math.exp(eps0) * r

    def report(value: int) -> np.ndarray:  # mass on (+1 to N₁), (+1 to N₂), (neither)
        m = np.zeros((2, 2))
        m[1, 0] = keep if value == 1 else r
        m[0, 1] = keep if value == 2 else r
        m[0, 0] = 1.0 - m[1, 0] - m[0, 1]
        return m

    def conv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.zeros((a.shape[0] + 1, a.shape[1] + 1))
        for (i, j), w in np.ndenumerate(b):
            out[i : i + a.shape[0], j : j + a.shape[1]] += w * a
        return out

    law = np.ones((1, 1))
    for value in others:
        law = conv(law, report(value))
    return conv(law, report(1)).ravel(), conv(law, report(2)).ravel()


@pytest.mark.parametrize("eps0", [1.0, 3.0])
def test_three_rr_datasets_are_below_the_stated_bound(eps0: float) -> None:
    n = 24
    pair = shuffle.clone_pair(n, eps0, 3)
    datasets = {
        "all third": [3] * (n - 1),
        "all x": [1] * (n - 1),
        "half x half x'": [1, 2] * ((n - 1) // 2) + [1],
        "x and third": [1, 3] * ((n - 1) // 2) + [3],
        "mixed": [1, 2, 3] * ((n - 1) // 3) + [3, 3],
    }
    for eps in (0.1, 0.4, 0.8 * eps0):
        bound = math.exp(pair_log_delta(pair, eps))
        for name, others in datasets.items():
            p, q = three_rr_histogram(n, eps0, others)
            assert hockey(p, q, eps) <= bound * (1 + 1e-9) + 1e-15, (eps, name)


def mp_alike_delta(n: int, eps0: float, eps: float) -> mpmath.mpf:
    mpmath.mp.dps = 60
    q = 1 / (mpmath.exp(mpmath.mpf(eps0)) + 1)
    g = mpmath.exp(mpmath.mpf(eps))
    x = [mpmath.binomial(n - 1, k) * q**k * (1 - q) ** (n - 1 - k) for k in range(n)] + [0]
    best = mpmath.mpf(0)
    for t1 in (q, 1 - q):
        t2 = 1 - t1
        s = mpmath.mpf(0)
        for k in range(n + 1):
            prev = x[k - 1] if k else 0
            d = (1 - t1) * x[k] + t1 * prev - g * ((1 - t2) * x[k] + t2 * prev)
            s += d if d > 0 else 0
        best = max(best, s)
    return best


def test_alike_lower_bound_matches_mpmath_at_n_2000() -> None:
    n, eps0 = 2000, math.log(3)
    for eps in (0.05, 0.2, 0.5, 0.9):
        exact = mp_alike_delta(n, eps0, eps)
        ours = shuffle_histogram.alike_log_delta(n, eps0, eps)
        assert ours == pytest.approx(float(mpmath.log(exact)), abs=1e-6)
    # It sits below the stated ε (sound: the stated one covers every dataset).
    for delta in (1e-6, 1e-50):
        low = shuffle_histogram.alike_epsilon(n, eps0, delta)
        assert low < shuffle.shuffled_guarantee(n, eps0, delta, 2).epsilon


def test_three_rr_pair_is_not_tight_against_all_others_on_a_third_value() -> None:
    # Why k ≥ 3 is not called exact (docs/formulas.md#shuffling): the natural worst dataset for
    # 3-RR, every other respondent on a third value, sits far below the clone pair's δ.
    n, eps0 = 40, 1.0
    pair = shuffle.clone_pair(n, eps0, 3)
    p, q = three_rr_histogram(n, eps0, [3] * (n - 1))
    assert math.exp(pair_log_delta(pair, 0.1, exact=True)) > 1.15 * hockey(p, q, 0.1)
    assert math.exp(pair_log_delta(pair, 0.6, exact=True)) > 20 * hockey(p, q, 0.6)
