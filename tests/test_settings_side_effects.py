"""Importing any settings module creates nothing; ``manage.py`` creates the var directory."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "DENIABLE_"))}
    env.update(
        PYTHONPATH=str(ROOT),
        PYTHONDONTWRITEBYTECODE="1",
        DENIABLE_VAR_DIR=str(tmp_path / "var"),
        DJANGO_SECRET_KEY=secrets.token_urlsafe(32),
    )
    env.pop("DATABASE_URL", None)  # the embedded default: SQLite under DENIABLE_VAR_DIR
    return env


@pytest.mark.parametrize("module", ["base", "test", "prod"])
def test_importing_settings_in_an_empty_directory_creates_no_files(tmp_path, module):
    workdir = tmp_path / "cwd"
    workdir.mkdir()
    code = f"import importlib; importlib.import_module('deniable.settings.{module}')"
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=workdir,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cwd"]
    assert list(workdir.iterdir()) == []


def test_manage_py_creates_the_var_directory(tmp_path):
    result = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "check"],
        cwd=tmp_path,
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "var" / "static").is_dir()
