"""The harness every benchmark plugs into.

A benchmark is a module ``bench.<name>`` that defines

* ``NAME: str`` — the file stem of its JSON (``bench/out/<NAME>.json``);
* ``DESCRIPTION: str`` — one line;
* ``run(quick: bool) -> dict`` — measures, prints its tables (Markdown, so they can be pasted into
  RESULTS.md) and returns JSON-serialisable results;
* optionally ``unavailable() -> str | None`` — a reason to skip (e.g. "needs PostgreSQL"), so
  the later HTTP/database benchmarks can be registered now and skip cleanly where their services
  are missing.

and ends with ``if __name__ == "__main__": raise SystemExit(main_for(sys.modules[__name__]))`` so
``python -m bench.<name> [--quick]`` works alone. :func:`execute` adds the machine block, the wall
time and writes the JSON; ``bench.run_all`` calls it for every registered module.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from bench.machine import format_machine, machine_info

OUT_DIR = Path(__file__).resolve().parent / "out"


def _jsonable(value: Any) -> Any:
    """JSON has no NaN/∞; store them as strings so the files stay strictly valid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item") and callable(value.item):  # numpy scalars
        return _jsonable(value.item())
    return value


def execute(module: ModuleType, *, quick: bool) -> dict[str, Any]:
    """Run one benchmark module: print the machine, run it, write ``bench/out/<NAME>.json``."""
    name: str = module.NAME
    info = machine_info()
    print(f"\n## {name}{' (quick)' if quick else ''} — {module.DESCRIPTION}")
    print(f"machine: {format_machine(info)}\n")
    unavailable: Callable[[], str | None] | None = getattr(module, "unavailable", None)
    reason = unavailable() if unavailable else None
    record: dict[str, Any] = {"name": name, "quick": quick, "machine": info}
    if reason:
        print(f"skipped: {reason}")
        record.update(status="skipped", reason=reason)
    else:
        start = time.perf_counter()
        results = module.run(quick)
        elapsed = time.perf_counter() - start
        print(f"\n{name}: done in {elapsed:.1f} s")
        record.update(status="ok", wall_seconds=round(elapsed, 3), results=results)
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"{name}.json"
    path.write_text(json.dumps(_jsonable(record), indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {path.relative_to(OUT_DIR.parent.parent)}")
    return record


def parse_args(argv: Sequence[str] | None, description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="a short run (seconds) to keep the benchmark working"
    )
    return parser.parse_args(argv)


def main_for(module: ModuleType, argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv, module.DESCRIPTION)
    execute(module, quick=args.quick)
    return 0


# --------------------------------------------------------------------------- timing helpers


def median_seconds(fn: Callable[[], object], repeats: int) -> tuple[float, list[float]]:
    """Median wall time of ``repeats`` calls (and all of them). Medians, because these shared
    machines have neighbours: one slow outlier must not move the figure."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def interleaved_medians(
    fns: dict[str, Callable[[], object]], repeats: int
) -> dict[str, tuple[float, list[float]]]:
    """Time several candidates round-robin (A, B, A, B, …) so machine noise hits them alike;
    side-by-side ratios from one run are what the benchmarks report."""
    times: dict[str, list[float]] = {key: [] for key in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[key].append(time.perf_counter() - start)
    return {key: (statistics.median(ts), ts) for key, ts in times.items()}


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub Markdown table (what the benchmarks print and RESULTS.md holds)."""
    lines = [
        "| " + " | ".join(headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)
