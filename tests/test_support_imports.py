"""The test code's own import rules (issue 12 §5), checked on the source text:

* nothing imports a ``conftest`` module (fixtures reach tests through pytest, helpers live in
  ``testsupport`` or a support module beside the tests);
* ``bench`` never imports ``tests``, and ``testsupport`` imports neither;
* ``tests`` imports ``bench`` only where it tests bench code itself (the fault checks).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The only test modules that may import bench code: they test it.
MAY_IMPORT_BENCH = {
    "tests/integration/test_faults.py",
    # Holds bench/coverage_bounded.py's exact coverage enumeration (the figures in RESULTS.md §9)
    # to the goal at one small case, so the bench's own computation is tested too.
    "tests/dpcore/local/test_bounded_interval.py",
    # Holds the composed shuffled ε to bench/shuffle_composition.py's enumeration of the file's
    # true ε (the figures in RESULTS.md §14), so the bench's own enumeration is tested too.
    "tests/dpcore/central/test_shuffle_compose.py",
}


def imported_modules(path: Path) -> tuple[str, ...]:
    """Every module an ``import`` / ``from … import`` names, relative ones resolved (each file
    parsed once for the three tests)."""
    return _imported_modules(path)


@functools.cache
def _imported_modules(path: Path) -> tuple[str, ...]:
    return tuple(_walk_imports(path))


def _walk_imports(path: Path) -> Iterator[str]:
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            yield module
            yield from (f"{module}.{alias.name}" for alias in node.names)


def sources(*folders: str) -> Iterator[tuple[str, Path]]:
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def top(module: str) -> str:
    return module.split(".")[0]


def test_nothing_imports_a_conftest() -> None:
    offenders = [
        f"{name}: {module}"
        for name, path in sources("tests", "bench", "testsupport")
        for module in imported_modules(path)
        if module.split(".")[-1] == "conftest" or ".conftest." in module
    ]
    assert offenders == []


def test_bench_and_testsupport_never_import_tests() -> None:
    offenders = [
        f"{name}: {module}"
        for name, path in sources("bench", "testsupport")
        for module in imported_modules(path)
        if top(module) == "tests" or (name.startswith("testsupport/") and top(module) == "bench")
    ]
    assert offenders == []


def test_tests_import_bench_only_to_test_it() -> None:
    offenders = [
        f"{name}: {module}"
        for name, path in sources("tests")
        for module in imported_modules(path)
        if top(module) == "bench" and name not in MAY_IMPORT_BENCH
    ]
    assert offenders == []
