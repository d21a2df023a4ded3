"""Issue 23's measure, as a ratchet: the quoted name of each question kind and design appears in
few non-test source files (ideally 3: its kind or design module, its JS module, the registry).

A file counts when it holds the name between quotes (``"warner"`` or ``'warner'``) anywhere:
Python, JavaScript and templates of the apps, ``static/`` and ``templates/``, but not tests,
benchmarks, migrations, test support or docs (the same files as the issue's ``git grep``). Some
counts include words that merely coincide with a kind's name (``type="number"`` on an input, a
JSON schema's ``"number"``, a pandas dtype); the ceiling is what the code has today, so a new
copy of a name fails here. When a count drops, lower its ceiling.

What is left above 3, and why (issue 23's ratchet pass, branch plugin-ratchet):
- ``number`` (11): ``type="number"`` on the inputs of five templates, a JSON schema's type
  (dpcore/local/designs/_registry.py), ``jsonb_typeof`` values (surveys/analysis/
  regression_rows.py), pandas' dtype in the export's reading recipe (surveys/analysis/export.py),
  and ``Question.Kind`` (surveys/models.py, the stored enum its migrations record).
- ``crosswise`` (4): a design that is also a question kind, so its own files are four: the design
  module (dpcore/local/designs/crosswise.py), the kind module (surveys/kinds/crosswise.py), the
  kind's page module (static/js/respond/kinds/crosswise.js) and the kind's partial
  (templates/respond/kinds/crosswise.html, whose ``data-role``/class name it). No file outside
  them names it: the builder's crosswise helpers read what a design takes and whether it is
  ``paired`` (branch design-plugins; they made it 5, and 6 before).

The one-report designs (``forced_response``, ``warner``, ``unrelated_question``,
``two_probability``, ``k_rr``) are at 2: their design module and their page module
(static/js/rr/designs/<name>.js, loaded from the registry's list: branch design-plugins, which
took them out of static/js/rr/randomizer.js and the builder's card, templates/surveys/builder.html
and static/js/builder/crosswise.js).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".html"}
# Excluded wherever they sit (the issue's `:!tests :!bench :!**/migrations/** :!testsupport
# :!docs`), with what is never a tracked source (environments, caches, installed packages).
EXCLUDED_DIRS = {
    "tests",
    "bench",
    "migrations",
    "testsupport",
    "docs",
    ".git",
    ".venv",
    "node_modules",
    "__pycache__",
    "var",
    "staticfiles",
    "htmlcov",
}

#: The most non-test source files each name may appear in, quoted. Lower only.
CEILINGS = {
    "crosswise": 4,
    "multi": 3,
    "cheater_detection": 3,
    "yes_no": 3,
    "choice": 3,
    "category": 3,
    "number": 11,
    "forced_response": 2,
    "warner": 2,
    "unrelated_question": 2,
    "unrelated_question_unknown": 2,
    "two_probability": 2,
    "k_rr": 2,
    "oue": 2,
    "each_option": 1,
}


def _source_files() -> list[Path]:
    files: list[Path] = []
    for folder, dirs, names in os.walk(ROOT):
        # Pruned in place, so environments and installed packages are never walked.
        dirs[:] = [d for d in dirs if d not in EXCLUDED_DIRS and not d.startswith(".")]
        for name in names:
            if Path(name).suffix in SOURCE_SUFFIXES:
                files.append((Path(folder) / name).relative_to(ROOT))
    return sorted(files)


def files_quoting(name: str, files: list[Path]) -> list[str]:
    """The files (relative paths) holding ``name`` between single or double quotes."""
    pattern = re.compile(rf"[\"']{re.escape(name)}[\"']")
    return [
        str(rel)
        for rel in files
        if pattern.search((ROOT / rel).read_text(encoding="utf-8", errors="replace"))
    ]


@pytest.fixture(scope="module")
def sources() -> list[Path]:
    return _source_files()


def test_the_walk_finds_the_apps_sources(sources: list[Path]) -> None:
    # A walk that found nothing would pass every ceiling.
    found = {str(p) for p in sources}
    assert "surveys/kinds/registry.py" in found
    assert "static/js/rr/randomizer.js" in found
    assert "templates/surveys/builder.html" in found
    assert not any(p.parts[0] in ("tests", "docs", "bench") for p in sources)


@pytest.mark.parametrize("name", sorted(CEILINGS))
def test_quoted_name_stays_under_its_ceiling(name: str, sources: list[Path]) -> None:
    files = files_quoting(name, sources)
    assert len(files) <= CEILINGS[name], (
        f"{name!r} is quoted in {len(files)} non-test source files (ceiling {CEILINGS[name]}): "
        f"{', '.join(files)}. Ask the registry (kinds: surveys/kinds/registry.py, designs: "
        "dpcore/local/designs/_registry.py) instead of writing the name again "
        "(docs/architecture.md, 'How to add a question kind')."
    )


def test_the_measure_sees_a_quoted_name() -> None:
    # The pattern itself: quoted either way counts, a bare identifier or a longer word does not.
    sample = Path("sample.py")
    text = "a = 'warner'\nb = \"warner\"\nwarner(0.75)\nc = 'warner_truth'\n"
    pattern = re.compile(r"[\"']warner[\"']")
    assert len(pattern.findall(text)) == 2
    assert sample.suffix in SOURCE_SUFFIXES
