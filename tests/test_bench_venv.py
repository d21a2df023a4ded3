"""The benchmarks' venv (Makefile, ``make bench-venv``): OpenDP is installed into it alone, the app
and its dev set are seen through a ``.pth`` naming ``.venv``'s site-packages, and nothing of it
reaches the app's venv. Built here into a temporary directory with the Makefile's own recipe
(OpenDP from pip's cache or PyPI: seconds)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP_PYTHON = ROOT / ".venv" / "bin" / "python"


def _run(*args: str | os.PathLike[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def _where(python: Path, module: str) -> str:
    probe = _run(python, "-c", f"import {module}; print({module}.__file__)")
    assert probe.returncode == 0, probe.stderr
    return probe.stdout.strip()


@pytest.mark.skipif(
    Path(sys.prefix).resolve() != (ROOT / ".venv").resolve(),
    reason="runs under the project's .venv (make test), whose site-packages the bench venv layers",
)
def test_the_bench_venv_holds_opendp_alone_and_sees_the_app_venv(tmp_path: Path) -> None:
    bench = tmp_path / "bench-venv"
    made = _run("make", "--no-print-directory", "bench-venv", f"BENCH_VENV={bench}")
    assert made.returncode == 0, made.stdout + made.stderr

    # OpenDP lives in the bench venv; the dev set (Django, scipy, pytest) comes from .venv.
    assert Path(_where(bench / "bin" / "python", "opendp")).is_relative_to(bench)
    for module in ("django", "scipy", "pytest"):
        assert Path(_where(bench / "bin" / "python", module)).is_relative_to(ROOT / ".venv")
    # Only OpenDP (and what it needs) was installed: no second copy of the dev set.
    site = next((bench / "lib").glob("python3*/site-packages"))
    own = {p.name.split("-")[0].lower() for p in site.glob("*.dist-info")}
    assert "opendp" in own
    assert not own & {"django", "numpy", "scipy", "pytest", "djangorestframework"}, own
    # And the app's venv cannot import it.
    leak = _run(APP_PYTHON, "-c", "import opendp")
    assert leak.returncode != 0 and "No module named 'opendp'" in leak.stderr
