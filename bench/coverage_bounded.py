"""Exact coverage of the cheating-detection and Likert mean-score intervals (issue 22 item 16).

``python -m bench.coverage_bounded [--quick]`` prints the Markdown tables kept in bench/RESULTS.md
("Coverage of the cheating-detection and mean-score intervals"). Exact: every outcome is
enumerated (two binomials for cheating detection, a multinomial for the mean score), its interval
computed by the app's own code (``dpcore.local.cheater``, ``dpcore.local.ordinal``), and the
outcome's probability summed where the interval covers the truth. Not simulated. "before" is the
clipped Wald interval the app used until this change (``clip(u ± z·SE)``, widened to contain the
point), computed here from the same estimates.
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Iterator

import numpy as np

from dpcore.local import cheater
from dpcore.local.designs import KRRDesign
from dpcore.local.intervals import binomial_pmf_table
from dpcore.local.ordinal import estimate_mean_score
from dpcore.stats import z_value

Z = z_value(0.95)
BRIBE = cheater.design_from_spec(
    {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
    }
)  # the demo's design (seed_demo.BRIBE_GROUPS)
# (π, γ): at the boundary (π = 0 or γ = 0), near it, and away from it (π, γ, β ≥ 0.1).
CDM_TRUTHS = [(0.0, 0.0), (0.0, 0.2), (0.2, 0.0), (0.05, 0.05), (0.2, 0.1), (0.3, 0.2), (0.5, 0.1)]


def _clipped_wald(point: float, u: float, se: float, lo: float, hi: float) -> tuple[float, float]:
    low, high = min(max(u - Z * se, lo), hi), min(max(u + Z * se, lo), hi)
    return min(low, point), max(high, point)


def cdm_table(n: int) -> list[tuple[str, float, float, float, float, float, float]]:
    """Per truth: coverage of π and γ after/before, and P(zero width) of π or γ after/before."""
    outcomes = list(itertools.product(range(n + 1), repeat=2))
    after: dict[tuple[int, int], tuple[tuple[float, float], tuple[float, float]]] = {}
    before: dict[tuple[int, int], tuple[tuple[float, float], tuple[float, float]]] = {}
    for y in outcomes:
        est = cheater.estimate_cheater_detection(BRIBE, n=[n, n], reported_yes=list(y))
        parts = (est.honest_yes, est.cheaters)
        after[y] = tuple((p.ci_low, p.ci_high) for p in parts)  # type: ignore[assignment]
        before[y] = tuple(  # type: ignore[assignment]
            _clipped_wald(p.estimate, p.estimate_unclipped, p.std_error, 0.0, 1.0) for p in parts
        )
    rows = []
    for pi, gamma in CDM_TRUTHS:
        lam = BRIBE.report_probabilities(pi, gamma)
        pmf = [binomial_pmf_table(n, [lam[i]])[0] for i in range(2)]
        cov_a = [0.0, 0.0]
        cov_b = [0.0, 0.0]
        zero_a = zero_b = 0.0
        for y in outcomes:
            p = float(pmf[0][y[0]] * pmf[1][y[1]])
            for j, truth in enumerate((pi, gamma)):
                cov_a[j] += p * (after[y][j][0] <= truth <= after[y][j][1])
                cov_b[j] += p * (before[y][j][0] <= truth <= before[y][j][1])
            zero_a += p * any(hi <= lo for lo, hi in after[y])
            zero_b += p * any(hi <= lo for lo, hi in before[y])
        rows.append((f"π={pi}, γ={gamma}", cov_a[0], cov_b[0], cov_a[1], cov_b[1], zero_a, zero_b))
    return rows


def _compositions(n: int, k: int) -> Iterator[tuple[int, ...]]:
    if k == 1:
        yield (n,)
        return
    for first in range(n + 1):
        for rest in _compositions(n - first, k - 1):
            yield (first, *rest)


def likert_table(k: int, epsilon: float, n: int, truths: list[tuple[float, ...]]) -> list[tuple]:
    """Per true distribution: coverage after/before and P(zero width) after/before."""
    design = KRRDesign(k, epsilon)
    counts = np.array(list(_compositions(n, k)), dtype=np.int64)
    scores = np.arange(1, k + 1)
    # The interval depends on the counts only through (Σ s·count, Σ s²·count): compute it once
    # per distinct pair.
    keys = np.stack([counts @ scores, counts @ (scores * scores)], axis=1)
    unique, index = np.unique(keys, axis=0, return_inverse=True)
    first = {int(i): j for j, i in reversed(list(enumerate(index.ravel())))}
    a_low, a_high, b_low, b_high = (np.empty(len(unique)) for _ in range(4))
    for u in range(len(unique)):
        est = estimate_mean_score(design, counts=[int(c) for c in counts[first[u]]])
        a_low[u], a_high[u] = est.ci_low, est.ci_high
        b_low[u], b_high[u] = _clipped_wald(
            est.estimate, est.estimate_unclipped, est.std_error, 1.0, float(k)
        )
    index = index.ravel()
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1)))))
    log_coef = log_fact[n] - log_fact[counts].sum(axis=1)
    rows = []
    for truth in truths:
        lam = design.c * np.array(truth) + design.d
        with np.errstate(divide="ignore"):
            log_p = log_coef + (counts * np.log(lam)).sum(axis=1)
        p = np.exp(log_p)
        mean = float(np.dot(scores, truth))
        cover_a = (a_low[index] <= mean + 1e-12) & (mean - 1e-12 <= a_high[index])
        cover_b = (b_low[index] <= mean + 1e-12) & (mean - 1e-12 <= b_high[index])
        rows.append(
            (
                "(" + ", ".join(f"{t:g}" for t in truth) + ")",
                mean,
                float(p[cover_a].sum()),
                float(p[cover_b].sum()),
                float(p[(a_high <= a_low)[index]].sum()),
                float(p[(b_high <= b_low)[index]].sum()),
            )
        )
    return rows


K3_TRUTHS = [(1, 0, 0), (0.9, 0.1, 0), (0.8, 0.1, 0.1), (1 / 3, 1 / 3, 1 / 3), (0.2, 0.3, 0.5)]
K5_TRUTHS = [
    (1, 0, 0, 0, 0),
    (0.9, 0.1, 0, 0, 0),
    (0.1, 0.2, 0.35, 0.25, 0.1),  # the demo's Likert shares
    (0, 0, 0, 0, 1),
]


def main(quick: bool = False) -> None:
    print("Cheating detection (the demo's design, n per group), 95 %:")
    print()
    print("| n per group | truth | π after | π before | γ after | γ before |", end="")
    print(" P(zero width) after | before |")
    print("|---|---|---|---|---|---|---|---|")
    for n in (20, 50) if quick else (20, 50, 100):
        for row in cdm_table(n):
            name, *values = row
            print(f"| {n} | {name} | " + " | ".join(f"{v:.4f}" for v in values) + " |")
    print()
    print("Likert mean score (k-RR: ε = ln 3 at k = 3; the demo's ε = ln 4 at k = 5), 95 %:")
    print()
    print("| k | ε | n | true shares | mean | after | before | P(zero width) after | before |")
    print("|---|---|---|---|---|---|---|---|---|")
    cases = [(3, math.log(3), n, K3_TRUTHS) for n in ((20, 100) if quick else (20, 100, 200))]
    cases += [(5, math.log(4), n, K5_TRUTHS) for n in ((20,) if quick else (20, 50))]
    for k, eps, n, truths in cases:
        for name, mean, *values in likert_table(k, eps, n, truths):
            cells = " | ".join(f"{v:.4f}" for v in values)
            print(f"| {k} | {eps:.4f} | {n} | {name} | {mean:.2f} | {cells} |")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv)
