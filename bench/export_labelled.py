"""Issue 25 item 3: the labelled export of 10⁵ respondents to Stata (.dta) and SPSS (.sav).

The 10-question bench survey is bulk-loaded by :mod:`bench.bulkload` (reused between runs), then
the product's own :func:`surveys.analysis.export_labelled.export_labelled` — what
``GET …/responses/export/?format=dta`` runs — writes the file; it is read back with pyreadstat to
check its rows. Timed: the whole export (database read, cells, codes, file write), median of a
few runs. Goal: ≤ 5 s for 10⁵ rows to .dta. Quick: 10⁴ rows, one run.

``python -m bench.export_labelled [--quick]``
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "export_labelled"
DESCRIPTION = "Labelled export (.dta, .sav) of 10⁵ respondents (PostgreSQL)"
GOAL_SECONDS = 5.0


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _export(survey: Any, fmt: str) -> tuple[float, float, int]:
    """Wall seconds to write the file, this process's CPU seconds for it (less sensitive to a
    loaded machine; PostgreSQL's own work is not in it), and its size in bytes."""
    from surveys.analysis.export_labelled import export_labelled

    start, cpu = time.perf_counter(), time.process_time()
    with export_labelled(survey, fmt) as handle:
        size = len(handle.read())
    return time.perf_counter() - start, time.process_time() - cpu, size


def _rows(survey: Any, fmt: str) -> int:
    import tempfile

    import pyreadstat

    from surveys.analysis.export_labelled import export_labelled

    with export_labelled(survey, fmt) as handle, tempfile.NamedTemporaryFile(suffix="." + fmt) as f:
        f.write(handle.read())
        f.flush()
        reader = pyreadstat.read_dta if fmt == "dta" else pyreadstat.read_sav
        frame, _meta = reader(f.name)
    return len(frame)


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from bench.bulkload import survey_with

    n = 10_000 if quick else 100_000
    repeats = 1 if quick else 5
    survey, check = survey_with(n)
    load = stack.loadavg()
    results: dict[str, Any] = {"respondents": n, "check": check, "load_before": load}
    rows = []
    for fmt in ("dta", "sav"):
        times, cpus, size = [], [], 0
        for _ in range(repeats):
            seconds, cpu, size = _export(survey, fmt)
            times.append(seconds)
            cpus.append(cpu)
        read_back = _rows(survey, fmt)
        if read_back != n:
            raise AssertionError(f"{fmt}: {read_back} rows read back, {n} expected")
        median = statistics.median(times)
        cpu_median = statistics.median(cpus)
        results[fmt] = {
            "seconds": times,
            "median": median,
            "cpu_seconds": cpus,
            "cpu_median": cpu_median,
            "bytes": size,
            "rows": read_back,
        }
        rows.append(
            [
                fmt,
                f"{n:,}",
                f"{median:.2f}",
                f"{min(times):.2f}",
                f"{cpu_median:.2f}",
                f"{size / 1e6:.1f}",
            ]
        )
    print(markdown_table(["format", "rows", "median s", "min s", "CPU s (median)", "MB"], rows))
    results["load_after"] = stack.loadavg()
    results["goal"] = {"dta_median_s": results["dta"]["median"], "limit_s": GOAL_SECONDS}
    results["goal"]["met"] = results["dta"]["median"] <= GOAL_SECONDS
    print(f"\nmedian of {repeats}; goal (.dta ≤ {GOAL_SECONDS} s at 10⁵): {results['goal']}")
    return results


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
