"""No API path is written by hand in app code, templates or scripts: Python builds URLs with
``reverse()``, templates with ``{% url %}``, and scripts read them from the page (JSON data or
``data-*`` attributes rendered by the server). Docstrings and comments may still name paths."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APP_DIRS = ("deniable", "accounts", "surveys", "privacy", "audit")
API_PATH = re.compile(r"/api/v\d+")


def _python_strings(path: Path) -> list[tuple[int, str]]:
    """String literals (f-string parts included) that are not docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def _strip(text: str, *patterns: str) -> str:
    for pattern in patterns:
        text = re.sub(pattern, "", text, flags=re.DOTALL)
    return text


def _offenders() -> list[str]:
    found = []
    for directory in APP_DIRS:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            found += [
                f"{path.relative_to(ROOT)}:{line}: {value!r}"
                for line, value in _python_strings(path)
                if API_PATH.search(value)
            ]
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = _strip(path.read_text(encoding="utf-8"), r"\{#.*?#\}", r"<!--.*?-->")
        found += [f"{path.relative_to(ROOT)}" for _ in API_PATH.findall(text)]
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        text = _strip(path.read_text(encoding="utf-8"), r"/\*.*?\*/", r"(?m)^\s*//.*$")
        found += [f"{path.relative_to(ROOT)}" for _ in API_PATH.findall(text)]
    return found


def test_no_hard_coded_api_paths():
    assert _offenders() == []


def test_the_check_finds_a_hard_coded_path(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text('"""Docs may say /api/v1/x/."""\nURL = f"/api/v1/surveys/{1}/"\n')
    assert [value for _, value in _python_strings(sample) if API_PATH.search(value)] == [
        "/api/v1/surveys/"
    ]
