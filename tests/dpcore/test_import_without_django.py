"""The whole ``dpcore`` package is pure: importing every module of it pulls in neither Django,
scipy, the apps nor the task queue."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

CHECK = """
import importlib
import pkgutil
import sys
import dpcore
import dpcore.local
modules = [m.name for m in pkgutil.walk_packages(dpcore.__path__, "dpcore.")]
assert "dpcore.local.designs" in modules and "dpcore.central.accounting" in modules, modules
for name in modules:
    importlib.import_module(name)
banned = ("django", "scipy", "rest_framework", "celery", "surveys", "privacy", "deniable")
leaked = sorted(name for name in banned if name in sys.modules)
print(",".join(leaked) or "clean")
coin = dpcore.local.forced_response(0.5, 0.25, 0.25)
print(dpcore.local.estimate_binary(coin, n=10, reported_yes=5).estimate)
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
