"""Issue 27 — shuffled accounting at the exact limit: what each bound gives, and how long it takes.

``python -m bench.shuffle_accounting [--quick]``

For n ∈ {10³, 10⁴, 10⁵, 10⁶}, ε₀ ∈ {0.5, ln 3, 2, 4} and δ ∈ {1e-6, 1e-10, 1e-50, 1e-100},
the ε of the shuffled file of one binary randomized-response column:

- **alike** — the exact ε of the shuffled histogram when all the others answer alike
  (:mod:`dpcore.central.shuffle_histogram`): a *lower* bound on the true worst case;
- **splits lower** — a *certified lower* bound on the true worst case: the largest ε at which
  some grid split of all n − 1 others (:mod:`dpcore.central.shuffle_splits` with
  ``keep_all=True``) already has δ(ε) > δ (from the lower ends of its pmf bounds);
- **stated** — :func:`dpcore.central.shuffle.shuffled_guarantee` (k = 2), now
  ``histogram-splits``, and stated ÷ splits lower (≥ stated ÷ true; the goal ≤ 1.01);
- **2023 exact** — the exact ε of the stronger clone pair (what was stated before), certified
  from below, and its ratio to the stated value;
- **2021** — :func:`dpcore.central.shuffle.shuffled_epsilon`, the bound for any randomizer;
- seconds for ``shuffled_guarantee`` with every cache cleared.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from bench.common import main_for, markdown_table
from dpcore.central import shuffle, shuffle_histogram, shuffle_pair, shuffle_splits
from dpcore.central.shuffle_pair import ClonePair, pair_log_delta

NAME = "shuffle_accounting"
DESCRIPTION = "Shuffled ε: all-alike histogram vs exact 2023 pair vs stated vs 2021, and time"

NS = (1_000, 10_000, 100_000, 1_000_000)
EPS0 = (0.5, math.log(3), 2.0, 4.0)
DELTAS = (1e-6, 1e-10, 1e-50, 1e-100)


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


def _splits_lower(n: int, eps0: float, delta: float) -> float:
    """A certified lower end for the true worst-case ε: the grid splits of all n − 1 others."""
    bound = shuffle_splits.splits_bound(n, eps0, delta, None, True)
    target = math.log(delta)

    def above(eps: float) -> bool:
        return bool(shuffle_splits.splits_log_delta(bound, eps, lower=True).max() > target)

    if not above(0.0):
        return 0.0
    lo, hi = 0.0, eps0
    while hi - lo > 1e-10 + 1e-5 * hi:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    return lo


def _clear() -> None:
    shuffle.shuffled_guarantee.cache_clear()
    shuffle.shuffled_epsilon.cache_clear()
    shuffle_pair.binomial_blocks.cache_clear()  # cold timings


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else math.inf


def run(quick: bool) -> dict[str, Any]:
    ns = (1_000, 100_000) if quick else NS
    deltas = (1e-6,) if quick else DELTAS
    eps0s = EPS0[1::2] if quick else EPS0  # quick: CI keeps it working, two ε₀ suffice
    rows: list[dict[str, Any]] = []
    for n in ns:
        for eps0 in eps0s:
            for delta in deltas:
                _clear()
                start = time.perf_counter()
                stated = shuffle.shuffled_guarantee(n, eps0, delta, 2)
                seconds = time.perf_counter() - start
                exact23 = _exact_from_below(shuffle.clone_pair(n, eps0, 2), eps0, delta)
                e21 = shuffle.shuffled_epsilon(n, eps0, delta)
                lower = _splits_lower(n, eps0, delta)
                alike = shuffle_histogram.alike_epsilon(n, eps0, delta)
                rows.append(
                    {
                        "n": n,
                        "eps0": eps0,
                        "delta": delta,
                        "alike": alike,
                        "splits_lower": lower,
                        "stated": stated.epsilon,
                        "method": stated.method,
                        "stated_over_lower": _ratio(stated.epsilon, lower),
                        "exact_2023": exact23,
                        "exact_2023_over_stated": _ratio(exact23, stated.epsilon),
                        "clones_2021": e21,
                        "clones_2021_over_stated": _ratio(e21, stated.epsilon),
                        "seconds": seconds,
                    }
                )
                print(f"n={n} ε₀={eps0:.3f} δ={delta:g}: {seconds:.2f} s", flush=True)
    table = [
        [
            f"{r['n']:.0e}",
            f"{r['eps0']:.3f}",
            f"{r['delta']:.0e}",
            f"{r['alike']:.5f}",
            f"{r['splits_lower']:.5f}",
            f"{r['stated']:.5f}",
            r["method"],
            f"{r['stated_over_lower']:.4f}",
            f"{r['exact_2023']:.5f}",
            f"{r['exact_2023_over_stated']:.2f}",
            f"{r['clones_2021']:.5f}",
            f"{r['clones_2021_over_stated']:.2f}",
            f"{r['seconds']:.2f}",
        ]
        for r in rows
    ]
    headers = [
        "n",
        "ε₀",
        "δ",
        "alike",
        "splits lower (≤ true)",
        "stated",
        "method",
        "stated ÷ lower",
        "2023 exact",
        "2023 ÷ stated",
        "2021",
        "2021 ÷ stated",
        "s",
    ]
    print(markdown_table(headers, table))
    amplifying = [r for r in rows if r["splits_lower"] < r["eps0"] * 0.999]
    worst = max(r["stated_over_lower"] for r in amplifying) if amplifying else math.nan
    never_below = all(r["stated"] >= r["splits_lower"] for r in rows)
    slowest = max(r["seconds"] for r in rows)
    slowest_1e6 = max((r["seconds"] for r in rows if r["n"] == 1_000_000), default=math.nan)
    print(
        f"\nstated ÷ certified lower bound where it amplifies: max {worst:.4f} "
        f"(never below: {never_below}); slowest shuffled_guarantee: {slowest:.2f} s "
        f"(n = 10⁶: {slowest_1e6:.2f} s)"
    )
    return {
        "rows": rows,
        "max_stated_over_lower": worst,
        "stated_never_below_lower": never_below,
        "slowest_seconds": slowest,
        "slowest_seconds_1e6": slowest_1e6,
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
