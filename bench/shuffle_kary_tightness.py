"""Issue 27 — how far the stated ε of one k-RR section (k ≥ 3) can be above the exact worst case.

``python -m bench.shuffle_kary_tightness [--quick]``

The exact worst case over the others' datasets is not known for k ≥ 3, so it is bracketed:
*floor* is the larger exact ε of two datasets (all others on x; all others on one third value),
each seen through the coarse view (x, x′, the rest) — a lower bound on the exact worst case
(:mod:`testsupport.kary_exact`); *stated* is what the app states
(:func:`dpcore.central.shuffle.shuffled_guarantee`, an upper bound). So the exact worst-case ε lies
in [floor, stated], and stated ÷ floor bounds stated ÷ exact from above: where it is ≤ 1.01 the
stated ε is certified within 1 % of the exact one. The 2021 and 2023 clone bounds are shown beside.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Any

from bench.common import main_for, markdown_table
from dpcore.central import shuffle
from testsupport.kary_exact import floor_epsilon

NAME = "shuffle_kary_tightness"
DESCRIPTION = "k-RR sections (k ≥ 3): the stated ε against a lower bound on the exact worst case"

NS = (16, 40, 100, 200, 400, 1_000, 10_000, 100_000, 1_000_000)
KS = (3, 5, 20)
EPS0 = (1.0, math.log(3), 3.0)
DELTAS = (1e-3, 1e-6, 1e-10)
QUICK = ((40, 3), (400, 3), (1_000, 5))


def ratio(stated: float, floor: float) -> float:
    """stated ÷ floor; both 0 means δ is met at ε = 0 by the stated bound, so exactly."""
    if floor > 0.0:
        return stated / floor
    return 1.0 if stated == 0.0 else math.inf


def point(n: int, k: int, eps0: float, delta: float) -> dict[str, Any]:
    start = time.process_time()
    floor = floor_epsilon(n, eps0, delta, k)
    floor_s = time.process_time() - start
    start = time.process_time()
    stated = shuffle.shuffled_guarantee(n, eps0, delta, k)
    stated_s = time.process_time() - start
    return {
        "n": n,
        "k": k,
        "eps0": eps0,
        "delta": delta,
        "floor": floor,
        "stated": stated.epsilon,
        "method": stated.method,
        "ratio": ratio(stated.epsilon, floor),
        "clones_2023": shuffle._epsilon(shuffle.clone_pair(n, eps0, k), eps0, delta),
        "clones_2021": shuffle.shuffled_epsilon(n, eps0, delta),
        "floor_s": floor_s,
        "stated_s": stated_s,
    }


def run(quick: bool) -> dict[str, Any]:
    cells = [(n, k) for n, k in QUICK] if quick else [(n, k) for n in NS for k in KS]
    points = []
    for n, k in cells:
        for eps0 in EPS0[1:2] if quick else EPS0:
            for delta in DELTAS[1:2] if quick else DELTAS:
                points.append(point(n, k, eps0, delta))
        print(f"n={n} k={k}: done", flush=True)
    unsound = [p for p in points if p["stated"] < p["floor"]]
    if unsound:  # an upper bound below a lower bound: one of the two is wrong
        raise SystemExit(f"stated below the floor at {unsound}")
    rows = [
        [
            f"{p['n']:,}",
            p["k"],
            f"{p['eps0']:.3f}",
            f"{p['delta']:g}",
            f"{p['floor']:.5g}",
            f"{p['stated']:.5g}",
            f"**{p['ratio']:.4f}**" if p["ratio"] > 1.01 else f"{p['ratio']:.4f}",
            f"{p['clones_2023']:.5g}",
            f"{p['clones_2021']:.5g}",
            f"{p['floor_s']:.2f} / {p['stated_s']:.2f}",
        ]
        for p in points
    ]
    print("\n### The stated ε against a floor under the exact worst case\n")
    print(
        markdown_table(
            [
                "n",
                "k",
                "ε₀",
                "δ",
                "floor (≤ exact)",
                "stated (≥ exact)",
                "stated ÷ floor",
                "clones-2023",
                "clones-2021",
                "CPU s floor / stated",
            ],
            rows,
        )
    )
    summary = []
    for n in sorted({p["n"] for p in points}):
        here = [p for p in points if p["n"] == n]
        worst = max(here, key=lambda p: p["ratio"])
        summary.append(
            [
                f"{n:,}",
                len(here),
                sum(p["ratio"] <= 1.01 for p in here),
                f"{worst['ratio']:.4f} (k = {worst['k']}, ε₀ = {worst['eps0']:.3f}, "
                f"δ = {worst['delta']:g})",
                f"{max(p['clones_2023'] / p['floor'] for p in here if p['floor'] > 0):.3f}",
            ]
        )
    print("\n### By n: where the stated ε is certified within 1 % of the exact worst case\n")
    print(
        markdown_table(
            ["n", "points", "≤ 1.01", "largest stated ÷ floor", "largest 2023 ÷ floor"],
            summary,
        )
    )
    return {"points": points}


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
