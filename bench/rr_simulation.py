"""The simulations of benchmark item 4 (``bench/stat_efficiency.py``): binary-design estimator
variance against the ε-LDP bound, k-RR variance and interval coverage, drawn from a *seeded* numpy
Generator (simulation, never privacy noise)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from dpcore import local as rr

if TYPE_CHECKING:
    from bench.stat_efficiency import Config

CONFIDENCE = 0.95
COVERAGE_GOAL = (0.935, 0.965)

FloatArray = npt.NDArray[np.float64]


def eps_label(eps: float) -> str:
    for name, value in (("ln 3", math.log(3.0)), ("ln 19", math.log(19.0))):
        if math.isclose(eps, value):
            return name
    return f"{eps:g}"


def ratio_se(ratio: float, replications: int) -> float:
    return ratio * math.sqrt(2.0 / (replications - 1))


def outcome_table(design: rr.BinaryDesign | rr.KRRDesign, n: int) -> dict[str, FloatArray]:
    """Unclipped estimate and Wilson interval for every count y = 0..n, through ``dpcore.local``.

    Binary designs: ``rr.estimate_binary`` per outcome (the scalar path the API serves). k-RR:
    one option's figures depend only on its own count, so ``rr.estimate_krr`` on the count vector
    ``(y, n − y, 0, …)`` gives option-0 figures for count y. Cross-checked against the vectorised
    ``rr.binary_interval_table`` so the two paths cannot drift apart unnoticed.
    """
    unclipped = np.empty(n + 1)
    low = np.empty(n + 1)
    high = np.empty(n + 1)
    for y in range(n + 1):
        if isinstance(design, rr.KRRDesign):
            counts = [y, n - y] + [0] * (design.k - 2)
            opt = rr.estimate_krr(design, counts=counts, confidence=CONFIDENCE).options[0]
            unclipped[y], low[y], high[y] = opt.estimate_unclipped, opt.ci_low, opt.ci_high
        else:
            est = rr.estimate_binary(design, n=n, reported_yes=y, confidence=CONFIDENCE)
            unclipped[y], low[y], high[y] = est.estimate_unclipped, est.ci_low, est.ci_high
    _, table_low, table_high = rr.binary_interval_table(design, n=n, confidence=CONFIDENCE)
    if not (np.array_equal(low, table_low) and np.array_equal(high, table_high)):
        raise AssertionError("rr.binary_interval_table disagrees with the scalar estimator")
    return {"unclipped": unclipped, "low": low, "high": high}


# --------------------------------------------------------------------------- 1. binary variance


def binary_variance(cfg: Config, rng: np.random.Generator) -> list[dict[str, Any]]:
    n, reps = cfg.n_variance, cfg.replications
    designs: list[tuple[str, rr.BinaryDesign]] = [
        ("coin (½, ¼, ¼)", rr.design_from_spec(rr.DEFAULT_YES_NO_SPEC))
    ]
    designs += [
        (f"optimal FR ε={eps_label(e)}", rr.optimal_forced_response(e)) for e in cfg.epsilons
    ]
    # Control: a valid but non-optimal design; its ratio must come out as 1/efficiency, not 1.
    designs.append(("control FR (0.6, 0.3, 0.1)", rr.forced_response(0.6, 0.3, 0.1)))
    rows: list[dict[str, Any]] = []
    for label, design in designs:
        table = outcome_table(design, n)
        for pi in cfg.variance_pis:
            counts = rng.binomial(n, design.report_probability(pi), size=reps)
            estimates = table["unclipped"][counts]
            var = float(np.var(estimates, ddof=1))
            bound = rr.variance_bound(design.epsilon, pi, n)
            formula = rr.estimator_variance(design, pi, n)
            ratio_bound = var / bound
            ratio_formula = var / formula
            expected = 1.0 / rr.efficiency(design, pi, n)
            se = ratio_se(ratio_bound, reps)
            rows.append(
                {
                    "design": label,
                    "epsilon": design.epsilon,
                    "pi": pi,
                    "n": n,
                    "replications": reps,
                    "mean_estimate": float(np.mean(estimates)),
                    "var_over_bound": ratio_bound,
                    "var_over_bound_se": se,
                    "expected_var_over_bound": expected,
                    "z": (ratio_bound - expected) / se,
                    "var_over_formula": ratio_formula,
                    "var_over_formula_se": ratio_se(ratio_formula, reps),
                }
            )
    return rows


# --------------------------------------------------------------------------- 2. k-RR variance


def _frequencies(k: int) -> FloatArray:
    """A skewed truth (Zipf, f_v ∝ 1/(v+1)) so both common and rare options are exercised."""
    weights = 1.0 / np.arange(1, k + 1)
    return weights / weights.sum()


def krr_variance(cfg: Config, rng: np.random.Generator) -> list[dict[str, Any]]:
    n, reps = cfg.n_variance, cfg.replications
    rows: list[dict[str, Any]] = []
    for k in cfg.krr_ks:
        freqs = _frequencies(k)
        for eps in cfg.krr_epsilons:
            design = rr.k_rr(k, eps)
            table = outcome_table(design, n)
            report_probs = design.d + design.c * freqs
            counts = rng.multinomial(n, report_probs, size=reps)  # (reps, k)
            # Spot-check the table lookup against rr.estimate_krr on whole count vectors.
            for row in counts[:20]:
                got = rr.estimate_krr(design, counts=[int(c) for c in row], confidence=CONFIDENCE)
                want = table["unclipped"][row]
                have = np.array([o.estimate_unclipped for o in got.options])
                if not np.allclose(have, want, rtol=0, atol=1e-12):
                    raise AssertionError("k-RR table lookup disagrees with rr.estimate_krr")
            estimates = table["unclipped"][counts]
            var = estimates.var(axis=0, ddof=1)
            approx = rr.krr_proportion_variance(design, n)
            for v in range(k):
                exact = rr.krr_proportion_variance(design, n, frequency=float(freqs[v]))
                bound = rr.variance_bound(eps, float(freqs[v]), n)
                ratio_exact = float(var[v] / exact)
                rows.append(
                    {
                        "k": k,
                        "epsilon": eps,
                        "option": v,
                        "frequency": float(freqs[v]),
                        "n": n,
                        "replications": reps,
                        "var_over_exact": ratio_exact,
                        "var_over_exact_se": ratio_se(ratio_exact, reps),
                        "z_exact": (ratio_exact - 1.0) / ratio_se(ratio_exact, reps),
                        "var_over_approx": float(var[v] / approx),
                        "var_over_bound": float(var[v] / bound),
                        "expected_var_over_bound": exact / bound,
                    }
                )
    return rows


# --------------------------------------------------------------------------- 3. coverage


def coverage(cfg: Config, rng: np.random.Generator) -> list[dict[str, Any]]:
    reps = cfg.replications
    fine = np.linspace(0.0, 1.0, cfg.fine_grid + 2)[1:-1]  # interior: see the note on π ∈ {0, 1}
    rows: list[dict[str, Any]] = []
    for eps in cfg.coverage_epsilons:
        design = rr.optimal_forced_response(eps)
        for n in cfg.coverage_ns:
            table = outcome_table(design, n)
            exact_grid = rr.exact_coverage(design, n=n, pis=cfg.coverage_pis, confidence=CONFIDENCE)
            exact_fine = rr.exact_coverage(design, n=n, pis=fine, confidence=CONFIDENCE)
            simulated = []
            for pi in cfg.coverage_pis:
                counts = rng.binomial(n, design.report_probability(pi), size=reps)
                hit = (table["low"][counts] <= pi) & (pi <= table["high"][counts])
                simulated.append(float(hit.mean()))
            sim = np.array(simulated)
            worst = int(np.argmin(exact_fine))
            rows.append(
                {
                    "epsilon": eps,
                    "n": n,
                    "replications": reps,
                    "pis": list(cfg.coverage_pis),
                    "simulated": simulated,
                    "simulated_se": [math.sqrt(p * (1 - p) / reps) for p in simulated],
                    "exact": [float(x) for x in exact_grid],
                    "sim_minus_exact_max_z": float(
                        np.max(np.abs(sim - exact_grid) / np.sqrt(exact_grid * (1 - exact_grid)))
                        * math.sqrt(reps)
                    ),
                    "simulated_min": float(sim.min()),
                    "simulated_max": float(sim.max()),
                    "exact_grid_min": float(exact_grid.min()),
                    "exact_grid_max": float(exact_grid.max()),
                    "exact_fine_min": float(exact_fine.min()),
                    "exact_fine_min_at": float(fine[worst]),
                    "exact_fine_max": float(exact_fine.max()),
                    "exact_grid_in_goal": bool(
                        np.all((exact_grid >= COVERAGE_GOAL[0]) & (exact_grid <= COVERAGE_GOAL[1]))
                    ),
                    "exact_fine_share_in_goal": float(
                        np.mean((exact_fine >= COVERAGE_GOAL[0]) & (exact_fine <= COVERAGE_GOAL[1]))
                    ),
                }
            )
    return rows
