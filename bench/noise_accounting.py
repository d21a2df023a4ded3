"""Item 5 — noise samplers, accountant and calibration, side by side with OpenDP / dp-accounting.

``python -m bench.noise_accounting [--quick]``

1. **Samplers.** Samples/s of ``dpcore.central.noise.sample_discrete_laplace_many`` (scale t) and
   ``sample_discrete_gaussian_many`` (parameter σ², passed as an exact int) next to OpenDP's
   ``make_laplace`` / ``make_gaussian`` on integers (``vector_domain(atom_domain(T=int))`` — one
   FFI call for the whole batch, the fair comparison with our ``*_many``) and on a scalar
   ``atom_domain(T=int)`` called once per sample (what per-cell use from Python costs). Timings
   are interleaved round-robin and the median is reported. The sample variance of every sampler
   is checked against the exact variance, so the comparison is known to be like for like
   (OpenDP's ``scale`` is t for Laplace and σ — not σ² — for Gaussian).
   OpenDP lives only in the bench venv (``make bench`` builds ``.venv-bench``); without it the
   OpenDP columns say "not installed".
2. **Accounting.** ε at δ = 1e-5 and wall time for the reference workloads of
   docs/formulas.md#reference-values (k Gaussians at σ = 1; k Laplace at ε₀ = 0.1):
   ``dpcore.central.accounting`` next to dp-accounting's ``RdpAccountant`` and ``PLDAccountant``
   (default settings).
3. **Calibration.** σ at δ = 1e-5 from the analytic Gaussian (Balle & Wang), the classical
   √(2 ln(1.25/δ))/ε, ``gaussian_sigma_for_budget`` (what a release actually uses for the
   discrete Gaussian: charged through RDP/zCDP) and dp-accounting's RDP calibration.

Part 2 (and the shared δ) lives in ``bench/accountant_comparison.py``.
"""

from __future__ import annotations

import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bench.accountant_comparison import (
    DELTA,
    accountant,
    dp_accounting_api,
    reference_text,
    time_value,
)
from bench.common import interleaved_medians, main_for, markdown_table
from dpcore.central import accounting, noise
from dpcore.central import calibration as calibrate

NAME = "noise_accounting"
DESCRIPTION = "discrete samplers vs OpenDP; accountant ε and time vs dp-accounting; σ calibration"

REFERENCE_SIGMA = {0.1: (30.75, 48.45), 1.0: (3.731, 4.845)}  # (analytic, classical)


@dataclass(frozen=True)
class Config:
    scales: tuple[int, ...]
    batch: int
    scalar_batch: int
    sampler_repeats: int
    gaussian_ks: tuple[int, ...]
    laplace_ks: tuple[int, ...]
    accountant_repeats: int
    pld_repeat_budget_s: float  # repeat a PLD run only while one run is cheaper than this
    calibration_epsilons: tuple[float, ...]


FULL = Config(
    scales=(1, 10, 100, 1000),
    batch=20_000,
    scalar_batch=2_000,
    sampler_repeats=5,
    gaussian_ks=(1, 10, 100, 1000),
    laplace_ks=(10, 100, 1000),
    accountant_repeats=5,
    pld_repeat_budget_s=5.0,
    calibration_epsilons=(0.1, 0.5, 1.0, 2.0),
)
QUICK = Config(
    scales=(1, 100),
    batch=1_000,
    scalar_batch=200,
    sampler_repeats=3,
    gaussian_ks=(1, 10),
    laplace_ks=(10, 100),
    accountant_repeats=3,
    pld_repeat_budget_s=0.0,
    calibration_epsilons=(0.1, 1.0),
)


def _load_opendp() -> Any | None:
    try:
        import opendp.prelude as dp
    except ImportError:
        return None
    dp.enable_features("contrib")  # the integer samplers are "contrib" features in OpenDP
    return dp


def _variance(xs: list[int]) -> float:
    return statistics.fvariance(xs) if hasattr(statistics, "fvariance") else statistics.variance(xs)


# --------------------------------------------------------------------------- 1. samplers


def samplers(cfg: Config) -> list[dict[str, Any]]:
    dp = _load_opendp()
    rows: list[dict[str, Any]] = []
    for mechanism in ("laplace", "gaussian"):
        for scale in cfg.scales:
            last: dict[str, list[int]] = {}
            fns: dict[str, Callable[[], object]] = {}
            if mechanism == "laplace":
                exact_var = calibrate.discrete_laplace_variance(scale)

                def ours(scale: int = scale, last: dict[str, list[int]] = last) -> None:
                    last["ours"] = noise.sample_discrete_laplace_many(scale, cfg.batch)
            else:
                exact_var = calibrate.discrete_gaussian_variance(scale)

                # σ² as an exact int: σ = scale.
                def ours(scale: int = scale, last: dict[str, list[int]] = last) -> None:
                    last["ours"] = noise.sample_discrete_gaussian_many(scale * scale, cfg.batch)

            fns["ours"] = ours
            if dp is not None:
                make = dp.m.make_laplace if mechanism == "laplace" else dp.m.make_gaussian
                vec_metric = (
                    dp.l1_distance(T=int) if mechanism == "laplace" else dp.l2_distance(T=int)
                )
                vec = make(dp.vector_domain(dp.atom_domain(T=int)), vec_metric, scale=float(scale))
                one = make(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=float(scale))
                zeros = [0] * cfg.batch

                def opendp_batch(
                    vec: Any = vec, zeros: list[int] = zeros, last: dict[str, list[int]] = last
                ) -> None:
                    last["opendp_batch"] = vec(zeros)

                def opendp_scalar(one: Any = one, last: dict[str, list[int]] = last) -> None:
                    last["opendp_scalar"] = [one(0) for _ in range(cfg.scalar_batch)]

                fns["opendp_batch"] = opendp_batch
                fns["opendp_scalar"] = opendp_scalar
            timed = interleaved_medians(fns, cfg.sampler_repeats)
            sizes = {
                "ours": cfg.batch,
                "opendp_batch": cfg.batch,
                "opendp_scalar": cfg.scalar_batch,
            }
            row: dict[str, Any] = {
                "mechanism": mechanism,
                "scale": scale,
                "scale_meaning": "t (ε = 1/t at Δ₁ = 1)" if mechanism == "laplace" else "σ",
                "repeats": cfg.sampler_repeats,
                "exact_variance": exact_var,
            }
            for key, (median, all_times) in timed.items():
                row[f"{key}_per_s"] = sizes[key] / median
                row[f"{key}_times_s"] = all_times
                row[f"{key}_var_ratio"] = _variance(last[key]) / exact_var
            if dp is not None:
                row["ours_over_opendp_batch"] = row["ours_per_s"] / row["opendp_batch_per_s"]
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- 3. calibration


def calibration(cfg: Config) -> list[dict[str, Any]]:
    import dp_accounting

    _, rdp_acc, _ = dp_accounting_api()
    from dp_accounting import dp_event

    rows: list[dict[str, Any]] = []
    for eps in cfg.calibration_epsilons:
        analytic, t_analytic, _ = time_value(
            lambda e=eps: calibrate.analytic_gaussian_sigma(e, DELTA), cfg.accountant_repeats
        )
        classical = calibrate.classical_gaussian_sigma(eps, DELTA)
        budget, t_budget, runs = time_value(
            lambda e=eps: accounting.gaussian_sigma_for_budget(e, DELTA), cfg.accountant_repeats
        )
        budget_cont = accounting.gaussian_sigma_for_budget(eps, DELTA, discrete=False)
        charged = accounting.epsilon_spent([accounting.DiscreteGaussianEvent(budget, 1.0)], DELTA)
        dpa_rdp_sigma, t_dpa, _ = time_value(
            lambda e=eps: float(
                dp_accounting.calibrate_dp_mechanism(
                    rdp_acc, dp_event.GaussianDpEvent, e, DELTA, tol=1e-9
                )
            ),
            cfg.accountant_repeats,
        )
        rows.append(
            {
                "epsilon": eps,
                "analytic": analytic,
                "classical": classical,
                "classical_over_analytic": classical / analytic,
                "for_budget_discrete": budget,
                "for_budget_discrete_over_analytic": budget / analytic,
                "for_budget_discrete_charged_epsilon": charged.epsilon,
                "for_budget_discrete_charged_method": charged.method,
                "for_budget_continuous": budget_cont,
                "dpa_rdp_calibrated": dpa_rdp_sigma,
                "reference": REFERENCE_SIGMA.get(eps),
                "t_analytic_s": t_analytic,
                "t_for_budget_s": t_budget,
                "t_dpa_rdp_calibrate_s": t_dpa,
                "runs": runs,
            }
        )
    return rows


# --------------------------------------------------------------------------- report


def _rate(x: float | None) -> str:
    return "not installed" if x is None else f"{x:,.0f}"


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    if ms < 1:
        return f"{ms:.3f}"
    return f"{ms:,.1f}" if ms < 10_000 else f"{ms:,.0f}"


def run(quick: bool) -> dict[str, Any]:
    cfg = QUICK if quick else FULL
    sampler_rows = samplers(cfg)
    print(
        f"### Samplers: samples/s, median of {cfg.sampler_repeats} interleaved runs "
        f"(batch {cfg.batch:,}; OpenDP per-call {cfg.scalar_batch:,}); Var ratio = sample/exact\n"
    )
    print(
        markdown_table(
            [
                "mechanism",
                "scale",
                "ours /s",
                "OpenDP batch /s",
                "OpenDP per call /s",
                "ours ÷ OpenDP batch",
                "Var ratio ours / OpenDP",
            ],
            [
                (
                    r["mechanism"],
                    f"{r['scale_meaning'].split()[0]}={r['scale']}",
                    _rate(r["ours_per_s"]),
                    _rate(r.get("opendp_batch_per_s")),
                    _rate(r.get("opendp_scalar_per_s")),
                    f"{r['ours_over_opendp_batch']:.2f}×" if "ours_over_opendp_batch" in r else "–",
                    f"{r['ours_var_ratio']:.3f} / {r.get('opendp_batch_var_ratio', math.nan):.3f}",
                )
                for r in sampler_rows
            ],
        )
    )

    acc = accountant(cfg)
    print(
        f"\n### Accounting, k Gaussians at σ = 1, δ = {DELTA:g} (ε; time in ms, median of "
        f"{cfg.accountant_repeats}; PLD runs as noted)\n"
    )
    print(
        markdown_table(
            [
                "k",
                "ours charged (method)",
                "ours GDP (continuous)",
                "dp-acc RDP",
                "dp-acc PLD",
                "ref exact / RDP / zCDP",
                "t ours epsilon_spent",
                "t ours GDP",
                "t dp-acc RDP",
                "t dp-acc PLD (runs)",
            ],
            [
                (
                    r["k"],
                    f"{r['ours_charged']:.3f} ({r['ours_charged_method']})",
                    f"{r['ours_gdp_continuous']:.3f}",
                    f"{r['dpa_rdp']:.3f}",
                    f"{r['dpa_pld']:.3f}",
                    reference_text(r["reference"]),
                    _ms(r["t_ours_epsilon_spent_s"]),
                    _ms(r["t_ours_gdp_s"]),
                    _ms(r["t_dpa_rdp_s"]),
                    f"{_ms(r['t_dpa_pld_s'])} ({r['runs_pld']})",
                )
                for r in acc["gaussian"]
            ],
        )
    )
    print(f"\n### Accounting, k Laplace at ε₀ = 0.1, δ = {DELTA:g}\n")
    print(
        markdown_table(
            [
                "k",
                "ours charged, discrete (method)",
                "ours RDP continuous",
                "dp-acc RDP continuous",
                "dp-acc PLD continuous",
                "dp-acc PLD discrete",
                "ref PLD / RDP",
                "t ours epsilon_spent",
                "t ours RDP cont.",
                "t dp-acc RDP",
                "t dp-acc PLD cont. / discrete (runs)",
            ],
            [
                (
                    r["k"],
                    f"{r['ours_charged']:.3f} ({r['ours_charged_method']})",
                    f"{r['ours_rdp_continuous']:.3f}",
                    f"{r['dpa_rdp_continuous']:.3f}",
                    f"{r['dpa_pld_continuous']:.3f}",
                    f"{r['dpa_pld_discrete']:.3f}",
                    reference_text(r["reference"]),
                    _ms(r["t_ours_epsilon_spent_s"]),
                    _ms(r["t_ours_rdp_continuous_s"]),
                    _ms(r["t_dpa_rdp_s"]),
                    f"{_ms(r['t_dpa_pld_continuous_s'])} / {_ms(r['t_dpa_pld_discrete_s'])} "
                    f"({r['runs_pld']})",
                )
                for r in acc["laplace"]
            ],
        )
    )

    cal = calibration(cfg)
    print(
        f"\n### σ calibration at δ = {DELTA:g}, Δ₂ = 1 (time in ms, median of "
        f"{cfg.accountant_repeats})\n"
    )
    print(
        markdown_table(
            [
                "ε",
                "analytic",
                "classical (×analytic)",
                "for_budget discrete (×analytic; charged ε, method)",
                "for_budget continuous",
                "dp-acc RDP-calibrated",
                "ref analytic / classical",
                "t analytic",
                "t for_budget",
                "t dp-acc calibrate",
            ],
            [
                (
                    f"{r['epsilon']:g}",
                    f"{r['analytic']:.3f}",
                    f"{r['classical']:.3f} ({r['classical_over_analytic']:.3f}×)",
                    f"{r['for_budget_discrete']:.3f} "
                    f"({r['for_budget_discrete_over_analytic']:.3f}×; "
                    f"{r['for_budget_discrete_charged_epsilon']:.4f}, "
                    f"{r['for_budget_discrete_charged_method']})",
                    f"{r['for_budget_continuous']:.3f}",
                    f"{r['dpa_rdp_calibrated']:.3f}",
                    " / ".join(f"{v:g}" for v in r["reference"]) if r["reference"] else "–",
                    _ms(r["t_analytic_s"]),
                    _ms(r["t_for_budget_s"]),
                    _ms(r["t_dpa_rdp_calibrate_s"]),
                )
                for r in cal
            ],
        )
    )
    return {
        "config": cfg.__dict__,
        "delta": DELTA,
        "samplers": sampler_rows,
        **acc,
        "calibration": cal,
    }


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
