"""Issue 27 — shuffled accounting at the exact limit: what each bound gives, and how long it takes.

``python -m bench.shuffle_accounting [--quick]``

For n ∈ {10³, 10⁴, 10⁵, 10⁶}, ε₀ ∈ {0.5, ln 3, 2, 4} and δ ∈ {1e-6, 1e-10, 1e-50}, the ε of
the shuffled file of one binary randomized-response column:

- **alike** — the exact ε of the shuffled histogram when all the others answer alike
  (:mod:`dpcore.central.shuffle_histogram`): a *lower* bound on the true worst case (a mixed
  dataset can be worse), never stated;
- **2023 exact** — the exact ε of the stronger clone pair (k = 2), certified from below by the
  blocks' lower ends (:func:`dpcore.central.shuffle_pair.pair_log_delta` with ``lower=True``);
- **stated** — :func:`dpcore.central.shuffle.shuffled_guarantee` (k = 2): the upper end, and
  stated ÷ 2023 exact (the goal: ≤ 1.01, never < 1);
- **2021** — :func:`dpcore.central.shuffle.shuffled_epsilon`, the bound for any randomizer
  (stated for files of several columns), and its own ratio to its exact pair;
- seconds for ``shuffled_guarantee`` with every cache cleared (it computes both pairs).
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from bench.common import main_for, markdown_table
from dpcore.central import shuffle, shuffle_histogram, shuffle_pair
from dpcore.central.shuffle_pair import ClonePair, pair_log_delta

NAME = "shuffle_accounting"
DESCRIPTION = "Shuffled ε: all-alike histogram vs exact 2023 pair vs stated vs 2021, and time"

NS = (1_000, 10_000, 100_000, 1_000_000)
EPS0 = (0.5, math.log(3), 2.0, 4.0)
DELTAS = (1e-6, 1e-10, 1e-50)


def _exact_from_below(pair: ClonePair, eps0: float, delta: float) -> float:
    """A lower end for the pair's exact ε: below it the blocks' lower δ is already > δ."""
    target = math.log(delta)
    if pair_log_delta(pair, 0.0, lower=True) <= target:
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > 1e-10 + 1e-5 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if pair_log_delta(pair, mid, lower=True) > target else (lo, mid)
    return lo


def _clear() -> None:
    shuffle.shuffled_guarantee.cache_clear()
    shuffle.shuffled_epsilon.cache_clear()
    shuffle_pair._blocks.cache_clear()  # cold timings


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else math.inf


def run(quick: bool) -> dict[str, Any]:
    ns = (1_000, 100_000) if quick else NS
    deltas = (1e-6,) if quick else DELTAS
    rows: list[dict[str, Any]] = []
    for n in ns:
        for eps0 in EPS0:
            for delta in deltas:
                _clear()
                start = time.perf_counter()
                stated = shuffle.shuffled_guarantee(n, eps0, delta, 2)
                seconds = time.perf_counter() - start
                exact23 = _exact_from_below(shuffle.clone_pair(n, eps0, 2), eps0, delta)
                e21 = shuffle.shuffled_epsilon(n, eps0, delta)
                exact21 = _exact_from_below(shuffle.clone_pair(n, eps0), eps0, delta)
                alike = shuffle_histogram.alike_epsilon(n, eps0, delta)
                rows.append(
                    {
                        "n": n,
                        "eps0": eps0,
                        "delta": delta,
                        "alike": alike,
                        "exact_2023": exact23,
                        "stated": stated.epsilon,
                        "method": stated.method,
                        "stated_over_exact": _ratio(stated.epsilon, exact23),
                        "clones_2021": e21,
                        "clones_2021_over_its_exact": _ratio(e21, exact21),
                        "clones_2021_over_stated": _ratio(e21, stated.epsilon),
                        "stated_over_alike": _ratio(stated.epsilon, alike),
                        "seconds": seconds,
                    }
                )
    table = [
        [
            f"{r['n']:.0e}",
            f"{r['eps0']:.3f}",
            f"{r['delta']:.0e}",
            f"{r['alike']:.5f}",
            f"{r['exact_2023']:.5f}",
            f"{r['stated']:.5f}",
            f"{r['stated_over_exact']:.4f}",
            f"{r['clones_2021']:.5f}",
            f"{r['clones_2021_over_stated']:.2f}",
            f"{r['stated_over_alike']:.2f}",
            f"{r['seconds']:.2f}",
        ]
        for r in rows
    ]
    headers = [
        "n",
        "ε₀",
        "δ",
        "alike (lower bound)",
        "2023 exact",
        "stated",
        "stated ÷ exact",
        "2021",
        "2021 ÷ stated",
        "stated ÷ alike",
        "s",
    ]
    print(markdown_table(headers, table))
    amplifying = [r for r in rows if r["exact_2023"] < r["eps0"]]
    worst = max(r["stated_over_exact"] for r in amplifying) if amplifying else math.nan
    never_below = all(r["stated"] >= r["exact_2023"] for r in rows)
    worst_21 = max(r["clones_2021_over_its_exact"] for r in rows if r["clones_2021"] < r["eps0"])
    slowest = max(r["seconds"] for r in rows)
    print(
        f"\nstated ÷ exact: max {worst:.4f} (never below: {never_below}); "
        f"2021 ÷ its exact: max {worst_21:.4f}; slowest shuffled_guarantee: {slowest:.2f} s"
    )
    return {
        "rows": rows,
        "max_stated_over_exact": worst,
        "stated_never_below_exact": never_below,
        "max_2021_over_its_exact": worst_21,
        "slowest_seconds": slowest,
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
