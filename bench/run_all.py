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

# name → module. The items 1, 2, 3 and 6 (submission throughput, estimates latency,
# release latency, memory) plug in here once the API lands; give them an ``unavailable()`` so they
# skip where PostgreSQL/Redis/a worker is missing instead of failing.
BENCHMARKS: dict[str, str] = {
    "stat_efficiency": "bench.stat_efficiency",  # item 4
    "noise_accounting": "bench.noise_accounting",  # item 5
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs (CI keeps them working)")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(BENCHMARKS), metavar="NAME", help="run only these"
    )
    args = parser.parse_args(argv)
    names = args.only or list(BENCHMARKS)
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
