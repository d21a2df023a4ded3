"""Docstrings and comments cite files in the repository (docs/*.md and their anchors), never the
design document the project started from, which lives outside the repository: a reader of the
code cannot open it. Checked in the apps, the core, templates, static files, tests and bench, and
in the root's Python and build files."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DIRS = (
    "deniable",
    "accounts",
    "surveys",
    "privacy",
    "dpcore",
    "templates",
    "static",
    "tests",
    "bench",
)
ROOT_FILES = ("manage.py", "gunicorn.conf.py", "pyproject.toml", "Makefile")
SUFFIXES = {".py", ".js", ".mjs", ".html", ".css", ".toml"}
# Spelled in two parts so that this file does not cite it itself.
OUTSIDE_DOC = "DESIGN" + ".md"
# A citation of docs: docs/<name>.md, optionally with #anchor.
DOCS_CITATION = re.compile(r"docs/([a-z0-9-]+\.md)(?:#([a-z0-9-]+))?")


def _sources() -> list[Path]:
    files = [ROOT / name for name in ROOT_FILES if (ROOT / name).exists()]
    for top in DIRS:
        files += [
            p
            for p in sorted((ROOT / top).rglob("*"))
            if p.is_file() and p.suffix in SUFFIXES and "migrations" not in p.parts
        ]
    return files


def _citing() -> set[str]:
    return {
        str(p.relative_to(ROOT))
        for p in _sources()
        if OUTSIDE_DOC in p.read_text(encoding="utf-8", errors="replace")
    }


def test_no_file_cites_the_design_document_outside_the_repository() -> None:
    offenders = sorted(_citing())
    assert not offenders, f"cite docs/*.md instead of {OUTSIDE_DOC} in: {offenders}"


def test_cited_docs_and_anchors_exist() -> None:
    """Every ``docs/<name>.md#<anchor>`` cited in code names a file in docs/ and an anchor in it."""
    anchors: dict[str, set[str]] = {
        p.name: set(re.findall(r'id="([^"]+)"', p.read_text(encoding="utf-8")))
        | {
            re.sub(r"[^a-z0-9 -]", "", h.lower()).replace(" ", "-")
            for h in re.findall(r"^#+ (.+)$", p.read_text(encoding="utf-8"), re.M)
        }
        for p in (ROOT / "docs").glob("*.md")
    }
    broken = []
    for path in _sources():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            for name, anchor in DOCS_CITATION.findall(line):
                if name not in anchors or (anchor and anchor not in anchors[name]):
                    broken.append(f"{path.relative_to(ROOT)}:{number}: docs/{name}#{anchor}")
    assert not broken, broken
