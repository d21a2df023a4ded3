"""Issue 13 item 6 — sampler throughput, ours vs OpenDP's batched samplers.

``python -m bench.sampler_vs_opendp [--opendp-python PATH]``

Ours: ``dpcore.central.noise.sample_discrete_laplace_many(t, n)`` /
``sample_discrete_gaussian_many(σ², n)`` (exact, CKS 2020, CSPRNG bits from ``secrets``).
OpenDP: ``make_laplace`` / ``make_gaussian`` on a ``vector_domain(atom_domain(T=int))`` of n
zeros — one FFI call per batch — run in a separate interpreter that has OpenDP
(``.venv-bench`` by default; OpenDP is never installed in the app venv). The two are timed
alternately, 5 rounds, median samples/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from dpcore.central import noise

BATCH = 20_000
SCALES = (1, 10, 100, 1000)
ROUNDS = 5

OPENDP_SNIPPET = """
import json, sys, time
import opendp.prelude as dp
dp.enable_features("contrib")
mech, scale, batch = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
make = dp.m.make_laplace if mech == "laplace" else dp.m.make_gaussian
metric = dp.l1_distance(T=int) if mech == "laplace" else dp.l2_distance(T=int)
vec = make(dp.vector_domain(dp.atom_domain(T=int)), metric, scale=scale)
zeros = [0] * batch
vec(zeros)
t = time.perf_counter(); vec(zeros); dt = time.perf_counter() - t
print(json.dumps(batch / dt))
"""


def ours_rate(mechanism: str, scale: int) -> float:
    start = time.perf_counter()
    if mechanism == "laplace":
        noise.sample_discrete_laplace_many(scale, BATCH)
    else:
        noise.sample_discrete_gaussian_many(scale * scale, BATCH)
    return BATCH / (time.perf_counter() - start)


def opendp_rate(python: str, mechanism: str, scale: int) -> float:
    out = subprocess.run(
        [python, "-c", OPENDP_SNIPPET, mechanism, str(scale), str(BATCH)],
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opendp-python", default=str(Path(".venv-bench/bin/python")))
    args = parser.parse_args()
    print("| mechanism | scale | ours /s | OpenDP batch /s | ours ÷ OpenDP |")
    print("|---|---|---|---|---|")
    for mechanism in ("laplace", "gaussian"):
        for scale in SCALES:
            ours, theirs = [], []
            for _ in range(ROUNDS):
                ours.append(ours_rate(mechanism, scale))
                theirs.append(opendp_rate(args.opendp_python, mechanism, scale))
            a, b = statistics.median(ours), statistics.median(theirs)
            label = f"t={scale}" if mechanism == "laplace" else f"σ={scale}"
            print(f"| {mechanism} | {label} | {a:,.0f} | {b:,.0f} | {a / b:.2f}× |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
