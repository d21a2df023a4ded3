"""``deniable/__init__.py``: every entry point imports the package first, and it gives numpy's
BLAS one thread per process unless the operator chose otherwise (a fit took 100–200 ms with
OpenBLAS's default threads on a busy 2-core machine against 2 ms with one: bench/RESULTS.md §8)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import deniable, numpy, os\n"
    "print(os.environ['OPENBLAS_NUM_THREADS'], os.environ['OMP_NUM_THREADS'])\n"
)


def _run(**env: str) -> str:
    base = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_one_blas_thread_by_default() -> None:
    assert _run() == "1 1"


def test_an_operator_s_setting_wins() -> None:
    assert _run(OPENBLAS_NUM_THREADS="4") == "4 1"
