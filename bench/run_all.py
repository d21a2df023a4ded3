"""Run every registered benchmark: ``python -m bench.run_all [--quick] [--only NAME ...]``.

Each writes ``bench/out/<name>.json``. A benchmark that raises does not stop the others; the exit
status is non-zero if any failed (CI runs ``make bench-quick`` to keep them all working).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import traceback
from collections.abc import Sequence

from bench.common import execute

# name → module. The service-backed ones (items 1, 2, 3, 6) have an ``unavailable()`` so they skip
# where PostgreSQL/Redis/wrk/pgbench are missing instead of failing (see bench/stack.py).
BENCHMARKS: dict[str, str] = {
    "stat_efficiency": "bench.stat_efficiency",  # item 4
    "noise_accounting": "bench.noise_accounting",  # item 5
    "pld_accounting": "bench.pld_accounting",  # issue 13: PLD tightness, σ, charge time
    "shuffle_accounting": "bench.shuffle_accounting",  # issue 27: shuffled ε, exact vs bounds
    "shuffle_worst_case": "bench.shuffle_worst_case",  # issue 27: stated vs the enumerated worst
    "shuffle_composition": "bench.shuffle_composition",  # issue 27: a file of several sections
    "shuffle_blanket": "bench.shuffle_blanket",  # issue 27: k-RR sections, the privacy blanket
    "shuffle_kary_tightness": "bench.shuffle_kary_tightness",  # issue 27: k-RR, stated vs exact
    "http_throughput": "bench.http_throughput",  # item 1 (+ 6: web worker RSS)
    "multi_node": "bench.multi_node",  # issue 24 goal 3: two gunicorn nodes, one PG + Redis
    "db_statements": "bench.db_statements",  # issue 24 goal 1: the app's SQL in pgbench vs insert
    "estimates_latency": "bench.estimates_latency",  # item 2
    "release_latency": "bench.release_latency",  # item 3 (+ 6: Celery worker RSS)
    "ingest_flat": "bench.ingest_flat",  # issue 29: flat ingestion (opt-in, see OPT_IN)
    "faults": "bench.faults",  # issue 6: load and faults (opt-in, see OPT_IN)
    "xlsform_import": "bench.xlsform_import",  # issue 25: a 500-question XLSForm in ≤ 2 s
    "charge_lock": "bench.charge_lock",  # issue 21 item 11 / 24 goal 2 (opt-in: old path, minutes)
    "export_labelled": "bench.export_labelled",  # issue 25 item 3: 10⁵ rows to .dta ≤ 5 s
    "selection": "bench.selection",  # issue 30: exact exponential mechanism ≤ 10 ms on 10⁴ points
    "shuffled_file": "bench.shuffled_file",  # issue 27: the shuffled file of 10⁵ respondents
    "regression_speed": "bench.regression_speed",  # issue 14: logistic ≤ 1 s at 10⁵, ≤ 10 s at 10⁶
    "linear_regression_speed": "bench.linear_regression_speed",  # issue 26 item 2: ≤ 1 s at 10⁵
    "oue_variance": "bench.oue_variance",  # issue 26.1: OUE's variance / its formula
}
# Run only when named with --only: ``faults`` builds a private PostgreSQL cluster, Redis, gunicorn
# and a worker and restarts/kills them (~3.5 min; CI runs its fast version in
# tests/integration/test_faults.py instead). ``python -m bench.run_all --only faults``.
# ``ingest_flat`` migrates two databases and bulk-loads 10⁶ rows into each (CI's time budget; its
# claim is held in CI by tests/surveys/test_query_plans.py instead).
OPT_IN: frozenset[str] = frozenset({"faults", "ingest_flat", "charge_lock"})


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (CI keeps them working)")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(BENCHMARKS), metavar="NAME", help="run only these"
    )
    args = parser.parse_args(argv)
    names = args.only or [name for name in BENCHMARKS if name not in OPT_IN]
    failed: list[str] = []
    start = time.perf_counter()
    for name in names:
        try:
            execute(importlib.import_module(BENCHMARKS[name]), quick=args.quick)
        except Exception:  # noqa: BLE001 - report and go on: one broken benchmark must not hide the rest
            traceback.print_exc()
            print(f"\n{name}: FAILED")
            failed.append(name)
    total = time.perf_counter() - start
    print(f"\nbench: {len(names) - len(failed)} ran, {len(failed)} failed in {total:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
