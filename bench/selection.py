"""Issue 30 — releases by selection: sampling time, accuracy, and OpenDP's output distribution.

``python -m bench.selection [--quick]``

1. **Sampling time** of one exact exponential-mechanism draw
   (:func:`dpcore.central.selection.select`) on a 10⁴-point grid (lo 0, hi 100, step 0.01:
   10 001 points), for several data sets, ε and q; the grid's scoring
   (:func:`~dpcore.central.selection.quantile_candidates`) timed apart. Target ≤ 10 ms per draw.
2. **Accuracy**: |released median − true median| and the rank error |#{x < g} − n/2|/n, mean over
   R draws, vs ε and n, on the app's own grid for [0, 100] (step 0.1, 1001 points), data
   Normal(50, 15) clamped to [0, 100].
3. **OpenDP**: ``make_private_quantile`` (OpenDP 0.16.0) on the same data and candidates, with
   the zCDP output measure (report-noisy-max with Gumbel noise: the exponential mechanism) at
   the scale whose privacy map gives our ε (scale = Δ∞/ε: OpenDP's ``map(1)`` is Δ∞/scale;
   the same score |(1 − q)·#lt − q·#gt|·b). Its empirical
   distribution and ours are compared with the exact pmf (total variation, χ² p-value). With the
   pure-DP measure OpenDP draws exponential noise (permute-and-flip); its mean error is shown
   beside ours for comparison.

OpenDP is never installed in the app venv: this bench runs it in a subprocess with
``PYTHONPATH=/tmp/odp``, installed by
``.venv/bin/python -m pip install --target /tmp/odp opendp==0.16.0`` (the version pinned in
bench/requirements.txt); ``--opendp-path`` names another directory. Without it part 3 is skipped.
Data are generated with numpy's seeded generator (test data, not privacy noise).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats  # type: ignore[import-untyped]

from bench.common import main_for
from dpcore.central import selection
from dpcore.central.sensitivity import number_grid

NAME = "selection"
DESCRIPTION = "exact exponential mechanism: time on a 10⁴-point grid, accuracy, vs OpenDP"
OPENDP_PATH = os.environ.get("OPENDP_PATH", "/tmp/odp")
SEED = 20261127

OPENDP_SNIPPET = """
import json, sys
import opendp.prelude as dp
dp.enable_features("contrib")
data, candidates, alpha, scale, draws = json.load(sys.stdin)
out = {}
for name, measure in (("gumbel", dp.zero_concentrated_divergence()),
                      ("exponential", dp.max_divergence())):
    m = dp.m.make_private_quantile(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance(), measure,
        candidates=candidates, alpha=alpha, scale=scale)
    out[name] = [m(data) for _ in range(draws)]
print(json.dumps(out))
"""


def _timing(quick: bool) -> list[dict[str, Any]]:
    rng = np.random.default_rng(SEED)
    datasets = {
        "normal n=1000": rng.normal(50, 10, 1000),
        "normal n=100000": rng.normal(50, 10, 100_000),
        "two values n=10000": np.repeat([50.0, 50.5], 5000),
        "uniform n=10000": rng.uniform(0, 100, 10_000),
    }
    lo, hi, step = Fraction(0), Fraction(100), Fraction(1, 100)
    repeats = 20 if quick else 200
    rows = []
    print("| data | q | ε | grid points | groups | scoring (ms) | draw: median (ms) | p95 (ms) |")
    print("|---|---|---|---|---|---|---|---|")
    for label, values in datasets.items():
        for q in (0.5, 0.9):
            start = time.perf_counter()
            qc = selection.quantile_candidates(values.tolist(), lo=lo, hi=hi, step=step, q=q)
            scoring = time.perf_counter() - start
            for eps in (Fraction(1, 10), Fraction(1), Fraction(10)):
                times = []
                for _ in range(repeats):
                    t0 = time.perf_counter()
                    selection.select(qc.candidates, eps)
                    times.append(time.perf_counter() - t0)
                times.sort()
                row = {
                    "data": label,
                    "q": q,
                    "epsilon": float(eps),
                    "points": qc.size,
                    "groups": len(qc.candidates.scores),
                    "scoring_ms": 1e3 * scoring,
                    "median_ms": 1e3 * statistics.median(times),
                    "p95_ms": 1e3 * times[int(0.95 * (len(times) - 1))],
                }
                rows.append(row)
                print(
                    f"| {label} | {q} | {float(eps):g} | {qc.size} | {row['groups']} | "
                    f"{row['scoring_ms']:.1f} | {row['median_ms']:.2f} | {row['p95_ms']:.2f} |"
                )
    return rows


def _app_grid() -> tuple[Fraction, Fraction, Fraction]:
    grid = number_grid(0.0, 100.0)
    return Fraction(0), Fraction(100), grid.step


def _accuracy(quick: bool) -> list[dict[str, Any]]:
    rng = np.random.default_rng(SEED + 1)
    lo, hi, step = _app_grid()
    draws = 30 if quick else 300
    rows = []
    print(f"\nGrid step {float(step):g} over [0, 100]; {draws} draws per cell.\n")
    print("| n | ε | mean abs error (value) | mean rank error (share of n) | bound (ranks, 95 %) |")
    print("|---|---|---|---|---|")
    for n in (100, 1000, 10_000):
        values = np.clip(rng.normal(50, 15, n), 0, 100)
        true = float(np.median(values))
        qc = selection.quantile_candidates(values.tolist(), lo=lo, hi=hi, step=step, q=0.5)
        data = np.sort(values)
        for eps in (0.1, 0.5, 1.0, 2.0):
            errors, ranks = [], []
            for _ in range(draws):
                g = float(qc.value(*selection.select(qc.candidates, Fraction(eps))))
                errors.append(abs(g - true))
                ranks.append(abs(int(np.searchsorted(data, g, side="left")) - n / 2) / n)
            bound = selection.rank_error_bound(members=qc.size, epsilon=eps, q=0.5, beta=0.05)
            row = {
                "n": n,
                "epsilon": eps,
                "mean_abs_error": statistics.fmean(errors),
                "mean_rank_error": statistics.fmean(ranks),
                "rank_bound": bound,
            }
            rows.append(row)
            print(
                f"| {n} | {eps:g} | {row['mean_abs_error']:.3f} | {row['mean_rank_error']:.4f} "
                f"| {bound:.1f} |"
            )
    return rows


def _tv(counts: dict[float, int], pmf: dict[float, float]) -> float:
    total = sum(counts.values())
    keys = set(counts) | set(pmf)
    return 0.5 * sum(abs(counts.get(k, 0) / total - pmf.get(k, 0.0)) for k in keys)


def _chi2_p(counts: dict[float, int], pmf: dict[float, float]) -> float:
    total = sum(counts.values())
    obs: list[float] = []
    exp: list[float] = []
    rest_o, rest_e = 0.0, 0.0
    for k, p in pmf.items():
        if p * total >= 5:
            obs.append(counts.get(k, 0))
            exp.append(p * total)
        else:
            rest_o += counts.get(k, 0)
            rest_e += p * total
    obs.append(rest_o)
    exp.append(rest_e)
    o, e = np.asarray(obs, dtype=float), np.asarray(exp, dtype=float)
    keep = e > 0
    stat = float(((o[keep] - e[keep]) ** 2 / e[keep]).sum())
    return float(stats.chi2.sf(stat, int(keep.sum()) - 1))


def _opendp(quick: bool) -> dict[str, Any]:
    if not (Path(OPENDP_PATH) / "opendp").is_dir():
        print(f"\nOpenDP comparison skipped: no OpenDP under {OPENDP_PATH} (module notes).")
        return {"skipped": True}
    rng = np.random.default_rng(SEED + 2)
    values = np.round(rng.normal(50, 15, 101).clip(0, 100), 2).tolist()
    lo, hi, step = Fraction(0), Fraction(100), Fraction(1)  # 101 candidates: a well-filled pmf
    draws = 4000 if quick else 40_000
    eps = Fraction(1)
    qc = selection.quantile_candidates(values, lo=lo, hi=hi, step=step, q=0.5)
    candidates = [float(qc.point(i)) for i in range(qc.size)]
    # OpenDP's privacy map is ε = Δ∞/scale for d_in = 1 (Δ∞ = max(a, b − a) = 1 at q = ½: its
    # `map(1)`), i.e. P ∝ e^{−d/(2·scale)}: the same law as ours at scale = R/(2ε) = Δ∞/ε.
    scale = float(qc.candidates.range_sensitivity / (2 * eps))
    group_pmf = selection.exact_pmf(qc.candidates, eps)
    pmf: dict[float, float] = {}
    for j, p in enumerate(group_pmf):
        for m in range(qc.candidates.sizes[j]):
            pmf[float(qc.value(j, m))] = p / qc.candidates.sizes[j]
    env = {**os.environ, "PYTHONPATH": OPENDP_PATH}
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", OPENDP_SNIPPET],
        input=json.dumps([values, candidates, 0.5, scale, draws]),
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    opendp_seconds = time.perf_counter() - start
    theirs = json.loads(out.stdout.strip().splitlines()[-1])
    start = time.perf_counter()
    ours = [float(qc.value(*selection.select(qc.candidates, eps))) for _ in range(draws)]
    ours_seconds = time.perf_counter() - start
    true = float(np.median(values))
    result: dict[str, Any] = {"draws": draws, "epsilon": 1.0, "scale": scale}
    print(f"\nn = 101 values, 101 candidates 0…100, ε = 1 (scale {scale:g}), {draws} draws each.\n")
    print(
        "| sampler | TV to exact pmf | χ² p-value vs exact pmf | mean abs error | time per draw |"
    )
    print("|---|---|---|---|---|")
    for label, draws_of, seconds in (
        ("ours (exact EM)", ours, ours_seconds),
        ("OpenDP zCDP (Gumbel = EM)", theirs["gumbel"], opendp_seconds / 2),
        ("OpenDP pure (exponential noise = PF)", theirs["exponential"], opendp_seconds / 2),
    ):
        counts: dict[float, int] = {}
        for g in draws_of:
            counts[float(g)] = counts.get(float(g), 0) + 1
        row = {
            "tv": _tv(counts, pmf),
            "chi2_p": _chi2_p(counts, pmf),
            "mean_abs_error": statistics.fmean(abs(float(g) - true) for g in draws_of),
            "us_per_draw": 1e6 * seconds / draws,
        }
        result[label] = row
        print(
            f"| {label} | {row['tv']:.4f} | {row['chi2_p']:.3g} | {row['mean_abs_error']:.3f} "
            f"| {row['us_per_draw']:.0f} µs |"
        )
    # E TV of N exact draws to the pmf ≈ ½·Σ E|p̂ − p| ≈ ½·√(2/π)·Σ√(p(1 − p)/N).
    noise_floor = (
        0.5 * math.sqrt(2 / math.pi) * sum(math.sqrt(p * (1 - p) / draws) for p in pmf.values())
    )
    result["tv_sampling_floor"] = noise_floor
    print(f"\nExpected TV of {draws} exact draws from sampling alone: ≈ {noise_floor:.4f}.")
    return result


def run(quick: bool) -> dict[str, Any]:
    print("### Sampling time, 10⁴-point grid\n")
    timing = _timing(quick)
    print("\n### Median accuracy vs ε and n")
    accuracy = _accuracy(quick)
    print("\n### OpenDP make_private_quantile, same data and candidates")
    opendp = _opendp(quick)
    return {"timing": timing, "accuracy": accuracy, "opendp": opendp}


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
