"""``privacy.rr`` is pure: importing it pulls in neither Django nor scipy."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import sys
import privacy.rr
import privacy.rr_intervals
leaked = sorted(name for name in ("django", "scipy") if name in sys.modules)
print(",".join(leaked) or "clean")
coin = privacy.rr.forced_response(0.5, 0.25, 0.25)
print(privacy.rr.estimate_binary(coin, n=10, reported_yes=5).estimate)
"""


def test_rr_imports_without_django_settings() -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    completed = subprocess.run(
        [sys.executable, "-c", CHECK],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() == ["clean", "0.5"]
