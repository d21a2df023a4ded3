"""Exact coverage of the 95 % intervals: the default "unified" one vs the clipped Wilson one.

``python -m bench.coverage_table`` prints the Markdown tables kept in bench/RESULTS.md
("Coverage of the unified interval"). Exact (binomial pmf sums via ``dpcore.local.exact_coverage``),
not simulated; the goals are those of issue 14.
"""

from __future__ import annotations

import math

import numpy as np

from dpcore.local import (
    binary_interval_table,
    exact_coverage,
    forced_response,
    optimal_forced_response,
)
from dpcore.local.intervals import binomial_pmf_table

COIN = forced_response(0.5, 0.25, 0.25)
GRID = np.round(np.arange(201) * 0.005, 10)
KINDS = ("unified", "wilson")
SHOWN = (0.0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5)


def zero_width_share(n: int, pi: float, interval: str) -> float:
    """P_π(the interval has zero width)."""
    _, low, high = binary_interval_table(COIN, n=n, interval=interval)
    pmf = binomial_pmf_table(n, [COIN.c * pi + COIN.d])[0]
    return float(pmf[(high - low) == 0.0].sum())


def main() -> None:
    print(
        "| n | interval | min 0<π<1 | max 0<π<1 | π = 0 | "
        + " | ".join(f"π={p}" for p in SHOWN[1:])
        + " |"
    )
    print("|---" * (5 + len(SHOWN) - 1) + "|")
    for n in (100, 200, 1000):
        for interval in ("unified", "wilson"):
            cov = exact_coverage(COIN, n=n, pis=GRID, interval=interval)
            shown = exact_coverage(COIN, n=n, pis=SHOWN, interval=interval)
            cells = " | ".join(f"{c:.4f}" for c in shown[1:])
            inside = f"{cov[1:-1].min():.4f} | {cov[1:-1].max():.4f}"
            print(f"| {n} | {interval} | {inside} | {shown[0]:.4f} | {cells} |")
    print()
    print("| design | n | π | unified | wilson |")
    print("|---|---|---|---|---|")
    design = optimal_forced_response(math.log(19))
    for pi in (0.02, 0.05):
        u, w = (
            exact_coverage(design, n=50, pis=[pi], interval=k)[0] for k in ("unified", "wilson")
        )
        print(f"| optimal FR ε = ln 19 | 50 | {pi} | {u:.4f} | {w:.4f} |")
    print()
    print("| n | π | P(zero width), unified | P(zero width), wilson |")
    print("|---|---|---|---|")
    for pi in (0.0, 0.01):
        u, w = (zero_width_share(200, pi, k) for k in KINDS)
        print(f"| 200 | {pi} | {u:.4f} | {w:.4f} |")


if __name__ == "__main__":
    main()
