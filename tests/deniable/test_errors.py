"""The error codes (deniable/errors.py ``ErrorCode``): one enum, the JSON body unchanged, the pages'
generated copy current, and no code written as a bare string where an error is raised."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from deniable.errors import Conflict, ErrorCode, NotFound, error_codes_js

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "surveys", "privacy", "deniable")


def test_a_code_is_its_string_in_the_json_body():
    body = Conflict("The survey is closed.", code=ErrorCode.SURVEY_CLOSED).as_body()
    assert json.dumps(body) == '{"error": "survey_closed", "detail": "The survey is closed."}'
    assert NotFound().as_body()["error"] == "not_found"


def test_the_pages_generated_copy_is_current():
    generated = (ROOT / "static/js/lib/error_codes.js").read_text(encoding="utf-8")
    assert generated == error_codes_js(), (
        "run: python -m deniable.errors > static/js/lib/error_codes.js"
    )


def test_every_code_is_documented():
    docs = (ROOT / "docs/api.md").read_text(encoding="utf-8")
    undocumented = [code.value for code in ErrorCode if f"`{code.value}`" not in docs]
    assert not undocumented, undocumented


def _bare_codes(path: Path) -> list[str]:
    """``code="…"`` keywords and ``{"error": "…"}`` bodies written with a string literal."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.keyword) and node.arg == "code":
            value = node.value
        elif isinstance(node, ast.Dict):
            value = next(
                (
                    v
                    for k, v in zip(node.keys, node.values)
                    if isinstance(k, ast.Constant) and k.value == "error"
                ),
                None,
            )
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            found.append(f"{path.relative_to(ROOT)}:{value.lineno}: {value.value!r}")
    return found


def test_errors_are_raised_with_the_enum_not_a_bare_string():
    bare = [
        hit
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts
        for hit in _bare_codes(path)
        # DRF's own ErrorDetail codes inside a 400's field errors never reach the body
        if "'invalid'" not in hit or "privacy/inputs.py" not in hit
    ]
    assert not bare, bare
