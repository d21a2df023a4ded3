"""Issue 27: producing the shuffled file of 10⁵ respondents (made once, on its first download).

The 10-question bench survey is bulk-loaded by :mod:`bench.bulkload` (reused between runs); the
product's own :func:`surveys.analysis.shuffled.build` — what the first
``GET …/responses/export/shuffled/`` runs under the survey's lock — reads the published reports,
shuffles each randomized question's section (Fisher–Yates over ``secrets.randbelow``), computes
the guarantee and writes both encodings. Timed: the whole build, median of a few runs (nothing is
stored here); and Fisher–Yates alone on 10⁶ items. Quick: 10⁴ rows, one run.

``python -m bench.shuffled_file [--quick]``
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any

from bench import stack
from bench.common import main_for, markdown_table

NAME = "shuffled_file"
DESCRIPTION = "Shuffled file (issue 27) of 10⁵ respondents: build time (PostgreSQL)"


def unavailable() -> str | None:
    return stack.need(postgres=True)


def _build(survey: Any) -> tuple[float, float, dict[str, Any]]:
    from surveys.analysis.shuffled import build

    start, cpu = time.perf_counter(), time.process_time()
    built = build(survey)
    return time.perf_counter() - start, time.process_time() - cpu, built


def _fisher_yates(n: int) -> float:
    from surveys.analysis.shuffled import fisher_yates

    items = list(range(n))
    start = time.perf_counter()
    fisher_yates(items)
    return time.perf_counter() - start


def run(quick: bool) -> dict[str, Any]:
    stack.ensure_database()
    stack.django_setup()
    from bench.bulkload import survey_with

    n = 10_000 if quick else 100_000
    repeats = 1 if quick else 3
    survey, check = survey_with(n)
    results: dict[str, Any] = {"respondents": n, "check": check, "load_before": stack.loadavg()}
    times, cpus = [], []
    built: dict[str, Any] = {}
    for _ in range(repeats):
        seconds, cpu, built = _build(survey)
        times.append(seconds)
        cpus.append(cpu)
    guarantee = built["guarantee"]
    if guarantee["n"] != n:
        raise AssertionError(f"{guarantee['n']} respondents in the file, {n} expected")
    fy = _fisher_yates(100_000 if quick else 1_000_000)
    results.update(
        seconds=times,
        median=statistics.median(times),
        cpu_median=statistics.median(cpus),
        csv_bytes=len(built["csv_text"].encode()),
        json_bytes=len(built["json_text"].encode()),
        sections=[q["key"] for q in guarantee["questions"]],
        epsilon=guarantee["epsilon"],
        local_epsilon=guarantee["local_epsilon"],
        fisher_yates_seconds=fy,
        load_after=stack.loadavg(),
    )
    print(
        markdown_table(
            ["rows", "sections", "median s", "CPU s", "CSV MB", "JSON MB", "ε (local ε)"],
            [
                [
                    f"{n:,}",
                    str(len(results["sections"])),
                    f"{results['median']:.2f}",
                    f"{results['cpu_median']:.2f}",
                    f"{results['csv_bytes'] / 1e6:.1f}",
                    f"{results['json_bytes'] / 1e6:.1f}",
                    f"{results['epsilon']:.3f} ({results['local_epsilon']:.3f})",
                ]
            ],
        )
    )
    print(f"\nFisher–Yates alone: {fy:.2f} s for {100_000 if quick else 1_000_000:,} items")
    return results


if __name__ == "__main__":
    raise SystemExit(main_for(sys.modules[__name__]))
