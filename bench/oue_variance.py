"""Issue 26.1: OUE's per-option variance against its formula — ``python -m bench.oue_variance
[--quick]``.

For k ∈ {5, 20, 100} options and ε ∈ {0.5, 1, 2, 4}: n = 1,000 respondents with fixed true answers
spread evenly over the options (f_v = 1/k), R replications of the OUE reports (each bit a
Bernoulli draw: ½ for the true option, q = 1/(e^ε + 1) for the others; numpy, seeded — a
simulation, never the page's randomizer). Given the truth the k bit counts are independent, so
each cell pools k·R estimates ``f̂_v = (C_v/n − d)/c`` with the design's own c and d
(``dpcore.local.oue``); the first 200 replications are also run through ``estimate_oue`` and must
agree to 1e-12. Reported: Var(f̂)/formula with its Monte-Carlo SE (ratio·√(2/(kR − 1))), z, and
the formula's ratio of k-RR's variance to OUE's (the chooser's reason, dpcore.local.recommend).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bench.common import main_for, markdown_table

NAME = "oue_variance"
DESCRIPTION = "OUE per-option variance / Wang et al.'s formula, k ∈ {5, 20, 100}, ε ∈ {0.5…4}"
SEED = 20170816
KS = (5, 20, 100)
EPSILONS = (0.5, 1.0, 2.0, 4.0)
N = 1000


def _cell(rng: np.random.Generator, k: int, eps: float, reps: int, checked: int) -> dict[str, Any]:
    from dpcore.local.designs import design_from_spec
    from dpcore.local.oue import estimate_oue, oue
    from dpcore.local.recommend import option_variance

    design = oue(k, eps)
    truth = np.full(k, N // k)
    truth[: N - truth.sum()] += 1  # n = 1000 over k options (5, 20: even; 100: 10 each)
    p, q = design.keep_probability, design.other_probability
    counts = rng.binomial(truth, p, size=(reps, k)) + rng.binomial(N - truth, q, size=(reps, k))
    est = (counts / N - design.d) / design.c
    # The app's estimator on the first `checked` draws (its interval work dominates the time).
    for row, values in zip(counts[:checked], est[:checked], strict=True):
        got = [o.estimate_unclipped for o in estimate_oue(design, n=N, counts=list(row)).options]
        assert np.allclose(got, values, rtol=0, atol=1e-12)
    formula = np.array([design.proportion_variance(N, t / N) for t in truth])
    # Pool: each option's squared deviation from its own mean, over its own formula.
    centred = est - est.mean(axis=0)
    ratio = float((centred**2).sum(axis=0).mean() / (reps - 1) / formula.mean())
    samples = k * reps
    se = ratio * math.sqrt(2 / (samples - 1))
    bias = float(np.abs(est.mean(axis=0) - truth / N).max() / math.sqrt(formula.max() / reps))
    krr = design_from_spec({"name": "k_rr", "epsilon": eps}, k=k)
    krr_var = option_variance(krr.c, krr.d, N, 1 / k)
    return {
        "k": k,
        "epsilon": eps,
        "reps": reps,
        "formula_var": float(formula.mean()),
        "ratio": ratio,
        "se": se,
        "z": (ratio - 1) / se,
        "max_bias_in_se": bias,
        "krr_over_oue": krr_var / float(formula.mean()),
    }


def run(quick: bool) -> dict[str, Any]:
    rng = np.random.default_rng(SEED)
    reps = 2_000 if quick else 20_000
    checked = 20 if quick else 200  # quick: CI keeps it working; the figures are the full run's
    cells = [_cell(rng, k, eps, reps, checked) for k in KS for eps in EPSILONS]
    rows = [
        [
            c["k"],
            c["epsilon"],
            f"{c['formula_var'] * N:.4f}",
            f"{c['ratio']:.4f} ± {c['se']:.4f}",
            f"{c['z']:+.2f}",
            f"{c['max_bias_in_se']:.2f}",
            f"{c['krr_over_oue']:.2f}",
        ]
        for c in cells
    ]
    headers = ["k", "ε", "n·Var (formula)", "Var/formula", "z", "max |bias|/SE", "k-RR/OUE"]
    print(markdown_table(headers, rows))
    worst = max(abs(c["z"]) for c in cells)
    print(f"\nlargest |z| = {worst:.2f} over {len(cells)} cells (R = {reps}, n = {N})")
    return {"seed": SEED, "n": N, "reps": reps, "cells": cells, "max_abs_z": worst}


if __name__ == "__main__":
    import sys

    raise SystemExit(main_for(sys.modules[__name__]))
