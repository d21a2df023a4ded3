"""Issue 27 — the shuffled file of several sections: the sections' privacy profiles composed
(:mod:`dpcore.central.shuffle_compose`) against the basic sum stated before, and against the
file's true ε where it can be enumerated.

``python -m bench.shuffle_composition [--quick]``

*True* (small n): every split of the others' answers in every section and both directions per
section, the product mechanism's exact ε (its loss is the sum of the sections'); at n ≥ 100 only
the splits 0–3, m − 3 … m and m/4, m/2, 3m/4 (where the worst ones were found at n ≤ 30), so
that column is a certified *lower* bound on the truth and stated ÷ it is an upper bound on
stated ÷ true. *Basic*: Σ of each section's stated ε at δ/d (what was stated before).
*Grid*: the composed ε with 256 grid points per profile instead of 64 (its convergence).
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from bench.common import main_for, markdown_table
from dpcore.central import shuffle
from dpcore.central.shuffle_compose import Section, composed_epsilon

NAME = "shuffle_composition"
DESCRIPTION = "Shuffled file of d sections: profiles composed vs the basic sum vs the true ε"

SMALL = ((12, 2, 1e-3), (30, 2, 1e-3), (8, 3, 1e-3), (100, 2, 1e-3), (200, 2, 1e-6))
LARGE_N = (10**3, 10**4, 10**5, 10**6)
LARGE_D = (2, 5, 10)
EPS0 = (1.0, math.log(3), 2.0)


def bisect(above: Callable[[float], bool], hi: float) -> float:
    """Upper end (to 1e-9) of the ε where ``above`` turns false."""
    lo = 0.0
    while hi - lo > 1e-9:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return hi


def binary_laws(n: int, eps0: float, ones: int) -> tuple[np.ndarray, np.ndarray]:
    """The count of yes-reports when ``ones`` of the n − 1 others answer yes: the respondent
    answering yes, then no."""
    q = 1.0 / (math.exp(eps0) + 1.0)
    law = np.array([1.0])
    for i in range(n - 1):
        yes = 1.0 - q if i < ones else q
        law = np.convolve(law, [1.0 - yes, yes])
    return np.convolve(law, [q, 1.0 - q]), np.convolve(law, [1.0 - q, q])


def true_file_epsilon(
    n: int, eps0: float, d: int, delta: float, splits: Iterable[int] | None = None
) -> float:
    """Max over the splits (every one by default) of the others in each of d yes/no sections and
    both directions per section of the product mechanism's exact ε."""
    losses = []
    for ones in range(n) if splits is None else splits:
        p, q = binary_laws(n, eps0, ones)
        losses += [(np.log(p) - np.log(q), p), (np.log(q) - np.log(p), q)]
    best = 0.0
    for choice in itertools.combinations_with_replacement(losses, d):  # the order is immaterial
        total, weight = np.zeros(1), np.ones(1)
        for loss, mass in choice:
            total = (total[:, None] + loss[None, :]).ravel()
            weight = (weight[:, None] * mass[None, :]).ravel()

        def above(eps: float, t: np.ndarray = total, w: np.ndarray = weight) -> bool:
            return float(np.sum(w * np.maximum(0.0, -np.expm1(eps - t)))) > delta

        if above(best):
            best = bisect(above, d * eps0)
    return best


def _basic(n: int, eps0: float, d: int, delta: float) -> float:
    return d * shuffle.shuffled_guarantee(n, eps0, delta / d, 2).epsilon


def _small(quick: bool) -> list[list[Any]]:
    rows = []
    for n, d, delta in SMALL[:3] if quick else SMALL:
        m = n - 1
        splits = None if n <= 30 else sorted({0, 1, 2, 3, m - 3, m - 2, m - 1, m, m // 4, m // 2})
        for eps0 in EPS0[1:2] if quick else EPS0:  # quick: CI keeps it working
            true = true_file_epsilon(n, eps0, d, delta, splits)
            stated = composed_epsilon([Section(n, eps0, 2)] * d, delta) or math.nan
            basic = _basic(n, eps0, d, delta)
            rows.append(
                [
                    n,
                    d,
                    f"{eps0:.3f}",
                    f"{delta:g}",
                    f"{true:.5f}" + ("" if splits is None else " (lower)"),
                    f"{stated:.5f}",
                    f"{stated / true:.4f}",
                    f"{basic:.5f}",
                    f"{basic / true:.3f}",
                ]
            )
            print(f"small n={n} d={d} ε₀={eps0:.3f}: done", flush=True)
    return rows


def _large(quick: bool) -> list[list[Any]]:
    rows = []
    eps0, delta = math.log(3), 1e-6
    for n in LARGE_N[:2] if quick else LARGE_N:
        for d in LARGE_D[:1] if quick else LARGE_D:
            start = time.process_time()
            stated = composed_epsilon([Section(n, eps0, 2)] * d, delta) or math.nan
            seconds = time.process_time() - start
            fine = composed_epsilon([Section(n, eps0, 2)] * d, delta, points=256) or math.nan
            basic = _basic(n, eps0, d, delta)
            rows.append(
                [
                    f"{n:.0e}",
                    d,
                    f"{stated:.5f}",
                    f"{basic:.5f}",
                    f"{stated / basic:.3f}",
                    f"{fine:.5f}",
                    f"{stated / fine:.4f}",
                    f"{seconds:.2f}",
                ]
            )
            print(f"large n={n} d={d}: done", flush=True)
    return rows


def run(quick: bool) -> dict[str, Any]:
    small = _small(quick)
    print("\n### Against the file's true ε (yes/no sections)\n")
    print(
        markdown_table(
            ["n", "d", "ε₀", "δ", "true ε", "stated", "÷ true", "basic (before)", "÷ true"], small
        )
    )
    large = _large(quick)
    print("\n### Large n (yes/no sections, ε₀ = ln 3, δ = 1e-6)\n")
    print(
        markdown_table(
            ["n", "d", "stated", "basic (before)", "÷ basic", "256 points", "÷ it", "CPU s"],
            large,
        )
    )
    return {"small": small, "large": large}


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
