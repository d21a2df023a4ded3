"""Issue 13 — the PLD accountant: tightness, σ calibration and charge time.

``python -m bench.pld_accounting [--quick]``

1. **Tightness** (δ = 1e-5): for each history of the issue, the exact ε (direct lattice
   convolution, :mod:`testsupport.exact_lattice`), and ours
   (``dpcore.central.accounting``, the ``pld`` method), RDP (``rdp_epsilon``) and dp-accounting's
   PLD (its own discrete Laplace / discrete Gaussian mechanisms, pessimistic, interval 1e-4) each
   divided by it.
2. **σ calibration** for an (ε, δ) Gaussian request: ours (``gaussian_sigma_for_budget`` with the
   release's contributions) ÷ the tight σ (bisection on the exact profile), next to the old RDP σ.
3. **Charge time vs history length**: ``can_afford`` on a survey with n earlier releases of mixed
   kinds (laplace and gaussian, with and without a number question, ε and σ drawn from a few
   typical values and also all distinct), cold (caches cleared) and warm (the "before" composition
   cached, as in a sequence of charges in one worker). Median of 5.
"""

from __future__ import annotations

import math
import random  # noqa: TID251 - seeded workload generator for a benchmark, never noise
import statistics
import sys
import time
from typing import Any

from bench.common import main_for, markdown_table
from dpcore.central import accounting, pld
from dpcore.central.pld import DiscreteGaussianPair as DG
from dpcore.central.pld import DiscreteLaplacePair as DL

NAME = "pld_accounting"
DESCRIPTION = "PLD accountant: tightness vs exact, σ calibration, charge time vs history length"
DELTA = 1e-5

HISTORIES: dict[str, dict[pld.Pair, int]] = {
    "1 × DG σ=1": {DG(1.0): 1},
    "10 × DG σ=1": {DG(1.0): 10},
    "100 × DG σ=1": {DG(1.0): 100},
    "1000 × DG σ=1": {DG(1.0): 1000},
    "50 × DL 0.1 + 5 × DG 1": {DL(0.1): 50, DG(1.0): 5},
    "10 × DL 0.5 + 10 × DG 3": {DL(0.5): 10, DG(3.0): 10},
    "20 × DL 0.25 + 5 sums K=11 + 8 × DG 3.74": {DL(0.25): 20, DL(0.25, 11): 5, DG(3.7405): 8},
    "3 × DL 1 + 3 × DG 2": {DL(1.0): 3, DG(2.0): 3},
    "200 × DL 0.05 + 3 × DG 10": {DL(0.05): 200, DG(10.0): 3},
    "4 × DL 0.3 + 2 × DG 1.5 + DG sum K=11": {DL(0.3): 4, DG(1.5): 2, DG(44.0, 11): 1},
    "pure {0.1:62, 0.2:62, 0.3:62}": {DL(0.1): 62, DL(0.2): 62, DL(0.3): 62},
    "pure {0.1:61, 0.2:62, 0.3:63}": {DL(0.1): 61, DL(0.2): 62, DL(0.3): 63},
    "10 counts + 10 sums K=11 (DL 0.5)": {DL(0.5): 10, DL(0.5, 11): 10},
    "20 counts + 20 sums K=1001 (DL 0.2)": {DL(0.2): 20, DL(0.2, 1001): 20},
    "5 sums K=101 (DL 1)": {DL(1.0, 101): 5},
}


def _events(groups: dict[pld.Pair, int]) -> list[accounting.Event]:
    out: list[accounting.Event] = []
    for pair, k in groups.items():
        if isinstance(pair, DL):
            laplace: accounting.Event = (
                accounting.DiscreteLaplaceEvent(pair.epsilon)
                if pair.shift == 1
                else accounting.ShiftedDiscreteLaplaceEvent(pair.epsilon, pair.shift)
            )
            out += [laplace] * k
        else:
            out += [accounting.DiscreteGaussianEvent(pair.sigma, float(pair.shift))] * k
    return out


def _dp_accounting(groups: dict[pld.Pair, int]) -> float:
    from dp_accounting.pld import privacy_loss_distribution as dpa

    total = None
    for pair, k in groups.items():
        if isinstance(pair, DL):
            one = dpa.from_discrete_laplace_mechanism(pair.epsilon / pair.shift, pair.shift)
        else:
            one = dpa.from_discrete_gaussian_mechanism(pair.sigma, pair.shift)
        part = one.self_compose(k)
        total = part if total is None else total.compose(part)
    assert total is not None
    return float(total.get_epsilon_for_delta(DELTA))


def tightness(quick: bool) -> list[dict[str, Any]]:
    from testsupport.exact_lattice import exact_epsilon

    rows = []
    for name, groups in HISTORIES.items():
        if quick and sum(groups.values()) > 200:
            continue
        exact = exact_epsilon(groups, DELTA)
        events = _events(groups)
        t = time.perf_counter()
        ours = accounting.epsilon_spent(events, DELTA)
        ms = (time.perf_counter() - t) * 1e3
        rdp = accounting.rdp_epsilon(events, DELTA)
        try:
            dpa = _dp_accounting(groups)
        except Exception as exc:  # noqa: BLE001 - report, do not stop the bench
            print(f"dp-accounting failed on {name}: {exc}", file=sys.stderr)
            dpa = math.nan
        rows.append(
            {
                "history": name,
                "exact": exact,
                "ours": ours.epsilon,
                "method": ours.method,
                "ms": ms,
                "ours_ratio": ours.epsilon / exact,
                "rdp_ratio": rdp / exact,
                "dpa_ratio": dpa / exact,
            }
        )
    return rows


def calibration(quick: bool) -> list[dict[str, Any]]:
    from testsupport.exact_lattice import exact_epsilon

    rows = []
    cases = [(1.0, 1), (0.5, 1), (2.0, 1), (1.0, 4), (0.1, 1)]
    for eps, m in cases[:3] if quick else cases:
        t = time.perf_counter()
        ours = accounting.gaussian_sigma_for_budget(eps, DELTA, math.sqrt(m), sensitivities=[1] * m)
        ms = (time.perf_counter() - t) * 1e3
        lo, hi = 0.05, 1000.0
        while hi - lo > 1e-7 * hi:
            mid = math.sqrt(lo * hi)
            lo, hi = (mid, hi) if exact_epsilon({DG(mid): m}, DELTA) > eps else (lo, mid)
        old = accounting.gaussian_sigma_for_budget(eps, DELTA, math.sqrt(m) + 1e-12)  # RDP path
        rows.append({"epsilon": eps, "m": m, "ours": ours, "tight": hi, "rdp": old, "ms": ms})
    return rows


def _history(n: int, rng: random.Random, distinct: bool) -> list[list[accounting.Event]]:
    """n releases: alternately laplace and gaussian over 1–4 contributions, a number question
    (grid sum, K = 1001 for laplace and 11 for gaussian) in every other one."""
    releases = []
    for r in range(n):
        m = rng.randint(1, 4)
        with_sum = r % 4 < 2
        if r % 2 == 0:
            eps = (0.05 + rng.random()) if distinct else rng.choice([0.1, 0.25, 0.5, 1.0])
            each = math.nextafter(eps / m, math.inf)
            evs: list[accounting.Event] = [accounting.DiscreteLaplaceEvent(each)] * m
            if with_sum:
                evs[-1] = accounting.ShiftedDiscreteLaplaceEvent(each, 1001)
        else:
            sigma = (2.0 + 8 * rng.random()) if distinct else rng.choice([2.0, 3.7405, 5.0, 10.0])
            sens = [1] * m + ([11] if with_sum else [])
            evs = accounting.discrete_gaussian_events(sigma, sens)
        releases.append(evs)
    return releases


def charge_times(quick: bool) -> list[dict[str, Any]]:
    rows = []
    for distinct in (False, True):
        for n in (10, 30, 100) if quick else (10, 30, 100, 300):
            rng = random.Random(13 + n)
            rel = _history(n + 1, rng, distinct)
            before = [e for r in rel[:-1] for e in r]
            new = rel[-1]
            cold, warm = [], []
            for _ in range(3 if quick else 5):
                accounting._candidates.cache_clear()
                pld._prepared.cache_clear()
                t = time.perf_counter()
                accounting.can_afford(before, new, 1e6, DELTA)
                cold.append(time.perf_counter() - t)
                accounting._candidates.cache_clear()
                accounting.epsilon_spent(before, DELTA)  # the previous charge's "after"
                t = time.perf_counter()
                accounting.can_afford(before, new, 1e6, DELTA)
                warm.append(time.perf_counter() - t)
            spent = accounting.epsilon_spent([*before, *new], DELTA)
            distinct_events = len(set(before) | set(new))
            rows.append(
                {
                    "releases": n,
                    "parameters": "all distinct" if distinct else "typical values",
                    "events": len(before) + len(new),
                    "distinct_events": distinct_events,
                    "cold_ms": statistics.median(cold) * 1e3,
                    "warm_ms": statistics.median(warm) * 1e3,
                    "epsilon": spent.epsilon,
                    "method": spent.method,
                    "rdp": spent.candidates["rdp"],
                }
            )
    return rows


def run(quick: bool) -> dict[str, Any]:
    tight = tightness(quick)
    print("### Tightness at δ = 1e-5 (ratio to the exact ε by direct lattice convolution)\n")
    print(
        markdown_table(
            [
                "history",
                "exact ε",
                "ours (method)",
                "ours ÷ exact",
                "RDP ÷ exact",
                "dp-acc PLD ÷ exact",
                "ours ms",
            ],
            [
                [
                    r["history"],
                    f"{r['exact']:.5f}",
                    f"{r['ours']:.5f} ({r['method']})",
                    f"{r['ours_ratio']:.5f}",
                    f"{r['rdp_ratio']:.4f}",
                    f"{r['dpa_ratio']:.5f}",
                    f"{r['ms']:.1f}",
                ]
                for r in tight
            ],
        )
    )
    cal = calibration(quick)
    print("\n### σ for an (ε, δ = 1e-5) discrete-Gaussian request over m contributions\n")
    print(
        markdown_table(
            ["ε", "m", "ours σ", "tight σ", "ours ÷ tight", "old RDP σ ÷ tight", "ms"],
            [
                [
                    r["epsilon"],
                    r["m"],
                    f"{r['ours']:.5f}",
                    f"{r['tight']:.5f}",
                    f"{r['ours'] / r['tight']:.6f}",
                    f"{r['rdp'] / r['tight']:.4f}",
                    f"{r['ms']:.0f}",
                ]
                for r in cal
            ],
        )
    )
    times = charge_times(quick)
    print("\n### Charge time (can_afford) vs history length, δ = 1e-5 (median of 5)\n")
    print(
        markdown_table(
            [
                "releases before",
                "parameters",
                "events",
                "distinct",
                "cold ms",
                "warm ms",
                "ε (method)",
                "RDP ε",
            ],
            [
                [
                    r["releases"],
                    r["parameters"],
                    r["events"],
                    r["distinct_events"],
                    f"{r['cold_ms']:.1f}",
                    f"{r['warm_ms']:.1f}",
                    f"{r['epsilon']:.4f} ({r['method']})",
                    f"{r['rdp']:.4f}",
                ]
                for r in times
            ],
        )
    )
    return {"tightness": tight, "calibration": cal, "charge_times": times}


if __name__ == "__main__":
    sys.exit(main_for(sys.modules[__name__]))
