"""Issue 27 — one k-ary randomized-response section (k ≥ 3): the exact privacy blanket
(:mod:`dpcore.central.shuffle_blanket`, stated now) against the 2023 clone pair (stated before)
and against the worst dataset of the others that could be found.

``python -m bench.shuffle_blanket [--quick]``

*Worst found*: the largest exact ε over datasets of the others — for k = 3 every split (a on x,
b on x′, the rest on the third value; this is every dataset, up to order) at n ≤ 40, a grid of
splits at n = 100; for k = 4 every multiset at n = 10 — each from the exact law of the whole
histogram (n-dimensional convolution of the reports' laws), both directions. It is a *lower*
bound on the true worst-case ε (exact at n ≤ 40 for k = 3), so stated ÷ it bounds stated ÷ true
from above.
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from typing import Any

import numpy as np

from bench.common import main_for, markdown_table
from bench.shuffle_composition import bisect
from dpcore.central import shuffle
from dpcore.central.shuffle_blanket import blanket_epsilon

NAME = "shuffle_blanket"
DESCRIPTION = "k-RR sections (k ≥ 3): privacy blanket vs clones-2023 vs the worst dataset found"

SMALL = ((16, 3), (40, 3), (100, 3), (10, 4))
EPS0 = (1.0, math.log(3), 3.0)
DELTAS = (1e-3, 1e-6)
LARGE_N = (10**3, 10**4, 10**5, 10**6)
LARGE_K = (3, 5, 20)


def histogram_law(k: int, eps0: float, values: list[int]) -> np.ndarray:
    """Exact law of the counts of values 0 … k − 2 (the last is implied) of k-RR reports."""
    e0 = math.exp(eps0)
    r = 1.0 / (e0 + k - 1.0)
    law = np.zeros((len(values) + 1,) * (k - 1))
    law[(0,) * (k - 1)] = 1.0
    for value in values:
        new = law * (e0 * r if value == k - 1 else r)  # the report lands on the implied value
        for v in range(k - 1):
            shifted = np.roll(law, 1, axis=v)  # the top slice is empty: the roll is a shift
            new += shifted * (e0 * r if value == v else r)
        law = new
    return law


def dataset_epsilon(n: int, k: int, eps0: float, delta: float, others: list[int]) -> float:
    """Exact ε at δ of the shuffled histogram, target x = 0 against x′ = 1, both directions."""
    p = histogram_law(k, eps0, [*others, 0]).ravel()
    q = histogram_law(k, eps0, [*others, 1]).ravel()
    keep = (p > 0) | (q > 0)
    p, q = p[keep], q[keep]

    def above(eps: float) -> bool:
        g = math.exp(eps)
        return bool(max(np.maximum(p - g * q, 0).sum(), np.maximum(q - g * p, 0).sum()) > delta)

    return bisect(above, eps0) if above(0.0) else 0.0


def datasets(n: int, k: int) -> list[list[int]]:
    m = n - 1
    if k == 3:
        if n <= 40:
            splits = [(a, b) for a in range(m + 1) for b in range(m + 1 - a)]
        else:
            marks = sorted({0, 1, 2, 3, m // 8, m // 4, m // 3, m // 2})
            splits = [(a, b) for a in marks for b in marks if a + b <= m]
        return [[0] * a + [1] * b + [2] * (m - a - b) for a, b in splits]
    return [list(c) for c in itertools.combinations_with_replacement(range(k), m)]


def _small(quick: bool) -> list[list[Any]]:
    rows = []
    for n, k in SMALL[:1] if quick else SMALL:
        sets = datasets(n, k)
        for eps0 in EPS0[1:2] if quick else EPS0:  # quick: CI keeps it working
            for delta in DELTAS:
                worst = max(dataset_epsilon(n, k, eps0, delta, d) for d in sets)
                blanket = blanket_epsilon(n, eps0, delta, k)
                clones = shuffle._epsilon(shuffle.clone_pair(n, eps0, k), eps0, delta)
                exact = k == 3 and n <= 40
                rows.append(
                    [
                        n,
                        k,
                        f"{eps0:.3f}",
                        f"{delta:g}",
                        f"{worst:.5f}" + ("" if exact or k > 3 else " (grid)"),
                        f"{blanket:.5f}",
                        f"{blanket / worst:.4f}" if worst else "—",
                        f"{clones:.5f}",
                        f"{clones / worst:.3f}" if worst else "—",
                    ]
                )
                print(f"small n={n} k={k} ε₀={eps0:.3f} δ={delta:g}: done", flush=True)
    return rows


def _large(quick: bool) -> list[list[Any]]:
    rows = []
    delta = 1e-6
    for n in LARGE_N[:2] if quick else LARGE_N:
        for k in LARGE_K:
            for eps0 in EPS0[1:2] if quick else EPS0:
                blanket_epsilon.cache_clear()
                start = time.process_time()
                blanket = blanket_epsilon(n, eps0, delta, k)
                seconds = time.process_time() - start
                clones = shuffle._epsilon(shuffle.clone_pair(n, eps0, k), eps0, delta)
                rows.append(
                    [
                        f"{n:.0e}",
                        k,
                        f"{eps0:.3f}",
                        f"{blanket:.5f}",
                        f"{clones:.5f}",
                        f"{clones / blanket:.3f}",
                        f"{seconds:.2f}",
                    ]
                )
            print(f"large n={n} k={k}: done", flush=True)
    return rows


def run(quick: bool) -> dict[str, Any]:
    small = _small(quick)
    print("\n### Against the worst dataset found (exact histograms)\n")
    print(
        markdown_table(
            ["n", "k", "ε₀", "δ", "worst found", "blanket", "÷ worst", "clones-2023", "÷ worst"],
            small,
        )
    )
    large = _large(quick)
    print("\n### Large n (δ = 1e-6)\n")
    print(
        markdown_table(
            ["n", "k", "ε₀", "blanket (stated)", "clones-2023 (before)", "÷ blanket", "CPU s"],
            large,
        )
    )
    return {"small": small, "large": large}


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
