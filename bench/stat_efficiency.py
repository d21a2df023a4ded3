"""Item 4 — statistical efficiency of the randomized-response estimators, by Monte Carlo.

``python -m bench.stat_efficiency [--quick]``

What it checks (docs/formulas.md#local):

1. **Variance vs the ε-LDP limit.** For the coin design and for the optimal forced-response design
   at several ε, the empirical variance of the unbiased π̂ over R replications, divided by the
   Kairouz–Oh–Viswanath bound [π(1−π) + e^ε/(e^ε−1)²]/n. Goal: 1.00 within Monte Carlo error.
   A deliberately asymmetric design is included as a control: its ratio must be 1/efficiency > 1.
2. **k-RR.** Empirical variance of each option's unbiased proportion vs the exact per-frequency
   formula (goal 1), vs Wang et al.'s frequency-free approximation, and vs the binary bound (which
   k-RR attains only at k = 2, where it *is* symmetric RR).
3. **Coverage** of the Wilson-transformed 95 % interval over a π grid, simulated, next to the
   exact coverage from ``dpcore.local.exact_coverage``. Goal: in [0.935, 0.965].

Every estimate goes through ``dpcore.local``: the estimate and interval for each possible count
y = 0..n are computed once by ``rr.estimate_binary`` (the scalar path the API uses) and the
simulated counts index that table — exact, and vectorised. Counts are binomial/multinomial draws
from a *seeded* numpy Generator: this is simulation, never privacy noise
(docs/privacy-model.md#mechanisms).

Monte Carlo SE of a variance ratio: ratio·√(2/(R−1)) (the sample variance of a near-normal
statistic); of a coverage: √(p(1−p)/R).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

from bench.common import main_for, markdown_table
from bench.rr_simulation import (
    CONFIDENCE,
    COVERAGE_GOAL,
    binary_variance,
    coverage,
    eps_label,
    krr_variance,
    ratio_se,
)

NAME = "stat_efficiency"
DESCRIPTION = "RR estimator variance vs the ε-LDP bound, k-RR variance, interval coverage"

SEED = 20240605  # fixed: the figures in RESULTS.md are reproducible bit for bit
#: "Within sampling error": no |z| = |ratio − expected|/SE beyond the Bonferroni bound for a 1 %
#: family-wise false alarm over the m comparisons made (m ≈ 24 binary → 3.53; ≈ 90 k-RR → 3.87).
#: A fixed 2- or 3-SE rule would flag a correct estimator by chance on most full runs.
FAMILY_ALPHA = 0.01


@dataclass(frozen=True)
class Config:
    replications: int
    n_variance: int
    variance_pis: tuple[float, ...]
    epsilons: tuple[float, ...]
    krr_ks: tuple[int, ...]
    krr_epsilons: tuple[float, ...]
    coverage_ns: tuple[int, ...]
    coverage_epsilons: tuple[float, ...]
    coverage_pis: tuple[float, ...]
    fine_grid: int


FULL = Config(
    replications=100_000,
    n_variance=1_000,
    variance_pis=(0.05, 0.25, 0.5),
    epsilons=(0.25, 0.5, 1.0, math.log(3.0), 2.0, 4.0),
    krr_ks=(2, 3, 5, 10),
    krr_epsilons=(0.5, 1.0, 2.0, 4.0),
    coverage_ns=(50, 200, 1_000),
    coverage_epsilons=(0.5, 1.0, math.log(3.0), 2.0, math.log(19.0)),
    coverage_pis=(0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99),
    fine_grid=999,
)
QUICK = Config(
    replications=2_000,
    n_variance=500,
    variance_pis=(0.1, 0.5),
    epsilons=(0.5, math.log(3.0), 2.0),
    krr_ks=(2, 5),
    krr_epsilons=(1.0, 2.0),
    coverage_ns=(50, 500),
    coverage_epsilons=(math.log(3.0), math.log(19.0)),
    coverage_pis=(0.05, 0.5, 0.95),
    fine_grid=99,
)


def _z_limit(comparisons: int) -> float:
    return NormalDist().inv_cdf(1.0 - FAMILY_ALPHA / (2.0 * comparisons))


def _z_summary(zs: list[float]) -> dict[str, float | bool]:
    """Max |z| against its Bonferroni limit, and mean z² (≈ 1 ± √(2/m) if the SEs are right)."""
    limit = _z_limit(len(zs))
    worst = max(abs(z) for z in zs)
    return {
        "comparisons": len(zs),
        "max_abs_z": worst,
        "z_limit": limit,
        "within_mc_error": worst <= limit,
        "mean_z2": sum(z * z for z in zs) / len(zs),
    }


# --------------------------------------------------------------------------- report


def _pm(x: float, se: float) -> str:
    return f"{x:.3f} ± {se:.3f}"


def run(quick: bool) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    rng = np.random.default_rng(SEED)
    lo, hi = COVERAGE_GOAL

    binary = binary_variance(cfg, rng)
    print(
        f"### Binary designs: Var(π̂) / ε-LDP bound (n = {cfg.n_variance}, "
        f"R = {cfg.replications}, ± = 1 MC SE)\n"
    )
    print(
        markdown_table(
            ["design", "ε", "π", "Var/bound", "expected", "z", "Var/formula"],
            [
                (
                    r["design"],
                    f"{r['epsilon']:.4g}",
                    r["pi"],
                    _pm(r["var_over_bound"], r["var_over_bound_se"]),
                    f"{r['expected_var_over_bound']:.3f}",
                    f"{r['z']:+.2f}",
                    _pm(r["var_over_formula"], r["var_over_formula_se"]),
                )
                for r in binary
            ],
        )
    )
    binary_z = _z_summary([r["z"] for r in binary])

    krr = krr_variance(cfg, rng)
    print(
        f"\n### k-RR: per-option Var(ĉ_v/n) (n = {cfg.n_variance}, R = {cfg.replications}; "
        "Zipf truth; worst option per row)\n"
    )
    krr_rows = []
    groups: dict[tuple[int, float], list[dict[str, Any]]] = {}
    for r in krr:
        groups.setdefault((r["k"], r["epsilon"]), []).append(r)
    for (k, eps), opts in groups.items():
        worst = max(opts, key=lambda r: abs(r["z_exact"]))
        krr_rows.append(
            (
                k,
                f"{eps:g}",
                f"{min(r['var_over_exact'] for r in opts):.3f}–"
                f"{max(r['var_over_exact'] for r in opts):.3f}",
                f"{worst['z_exact']:+.2f} (v={worst['option']})",
                f"{min(r['var_over_approx'] for r in opts):.3f}–"
                f"{max(r['var_over_approx'] for r in opts):.3f}",
                f"{min(r['var_over_bound'] for r in opts):.3f}–"
                f"{max(r['var_over_bound'] for r in opts):.3f}",
            )
        )
    print(
        markdown_table(
            ["k", "ε", "Var/exact (range over v)", "worst z", "Var/approx", "Var/binary bound"],
            krr_rows,
        )
    )
    krr_z = _z_summary([r["z_exact"] for r in krr])
    k2 = [r for r in krr if r["k"] == 2]
    if k2:
        print(
            "\nk = 2 (k-RR = symmetric RR) Var/bound: "
            + ", ".join(
                f"ε={r['epsilon']:g}: "
                + _pm(r["var_over_bound"], ratio_se(r["var_over_bound"], r["replications"]))
                for r in k2
                if r["option"] == 0  # with k = 2 both options' estimates are ±mirrors
            )
        )

    cov = coverage(cfg, rng)
    print(
        f"\n### Coverage of the Wilson-transformed {CONFIDENCE:.0%} interval, optimal FR "
        f"(R = {cfg.replications}; π grid {list(cfg.coverage_pis)})\n"
    )
    print(
        markdown_table(
            [
                "ε",
                "n",
                "simulated min–max",
                "exact on grid min–max (in goal)",
                f"exact, {cfg.fine_grid} π in (0,1): min (at π)",
                "max",
                f"share in [{lo}, {hi}]",
            ],
            [
                (
                    eps_label(r["epsilon"]),
                    r["n"],
                    f"{r['simulated_min']:.4f}–{r['simulated_max']:.4f}",
                    f"{r['exact_grid_min']:.4f}–{r['exact_grid_max']:.4f} "
                    f"({'yes' if r['exact_grid_in_goal'] else 'NO'})",
                    f"{r['exact_fine_min']:.4f} ({r['exact_fine_min_at']:.3f})",
                    f"{r['exact_fine_max']:.4f}",
                    f"{r['exact_fine_share_in_goal']:.1%}",
                )
                for r in cov
            ],
        )
    )
    sim_min = min(r["simulated_min"] for r in cov)
    sim_max = max(r["simulated_max"] for r in cov)
    # The goal is judged on the *exact* coverage at the grid points (no Monte Carlo noise); the
    # simulation is there to show that simulated and exact agree (max |z| below).
    coverage_ok = all(r["exact_grid_in_goal"] for r in cov)
    coverage_ok_by_n = {
        n: all(r["exact_grid_in_goal"] for r in cov if r["n"] == n) for n in cfg.coverage_ns
    }
    agree = max(r["sim_minus_exact_max_z"] for r in cov)

    summary = {
        "binary_var_over_bound": binary_z,
        "krr_var_over_exact": krr_z,
        "coverage_simulated_min": sim_min,
        "coverage_simulated_max": sim_max,
        "coverage_exact_grid_min": min(r["exact_grid_min"] for r in cov),
        "coverage_exact_grid_max": max(r["exact_grid_max"] for r in cov),
        "coverage_exact_fine_min": min(r["exact_fine_min"] for r in cov),
        "coverage_exact_fine_max": max(r["exact_fine_max"] for r in cov),
        "coverage_in_goal_on_grid": coverage_ok,
        "coverage_in_goal_on_grid_by_n": coverage_ok_by_n,
        "coverage_sim_vs_exact_max_z": agree,
    }
    print(
        f"\nsummary: binary Var/bound vs expected: max |z| {binary_z['max_abs_z']:.2f} "
        f"(limit {binary_z['z_limit']:.2f}, mean z² {binary_z['mean_z2']:.2f}, "
        f"m = {binary_z['comparisons']}) → within MC error: {binary_z['within_mc_error']}; "
        f"k-RR Var/exact: max |z| {krr_z['max_abs_z']:.2f} (limit {krr_z['z_limit']:.2f}, "
        f"mean z² {krr_z['mean_z2']:.2f}, m = {krr_z['comparisons']}) → "
        f"{krr_z['within_mc_error']}; coverage on grid simulated "
        f"{sim_min:.4f}–{sim_max:.4f}, exact {summary['coverage_exact_grid_min']:.4f}–"
        f"{summary['coverage_exact_grid_max']:.4f} (goal {lo}–{hi} by n: {coverage_ok_by_n}); "
        f"exact over the fine grid {summary['coverage_exact_fine_min']:.4f}–"
        f"{summary['coverage_exact_fine_max']:.4f}; simulated vs exact max |z| {agree:.2f}"
    )
    return {
        "seed": SEED,
        "config": cfg.__dict__,
        "summary": summary,
        "binary": binary,
        "krr": krr,
        "coverage": cov,
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
