"""The README's snippets run as written against the smoke run's `make run` server (issue 10).

A fenced ```bash or ```python block preceded by the line ``<!-- smoke: run -->`` is run here; the
only change made to it is the server address: ``http://127.0.0.1:8000`` (make run's default port)
becomes the smoke server's. Bash blocks run under ``bash -euo pipefail``; Python blocks run in a
Python that has what the README's snippet needs (pandas): the test environment when it has it
(requirements-dev pins it), else a throwaway venv made here from tests/smoke/readme-requirements.txt
(never the app's .venv). Every marked block must exit 0 and
print no API error body. Blocks run from the repository root the server runs from (the README's
`.venv/bin/python manage.py …` commands included), with the environment `make run` gets.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.smoke.server import ROOT, TIMINGS, Server
from testsupport.smoke_env import NOT_INHERITED

pytestmark = pytest.mark.smoke

MARK = "<!-- smoke: run -->"
DEFAULT_BASE = "http://127.0.0.1:8000"
BLOCK = re.compile(r"^" + re.escape(MARK) + r"\n```(bash|python)\n(.*?)^```", re.M | re.S)


def marked_blocks(text: str) -> list[tuple[str, str, int]]:
    """(language, code, line number) of every marked block."""
    return [
        (m.group(1), m.group(2), text.count("\n", 0, m.start()) + 2) for m in BLOCK.finditer(text)
    ]


README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = marked_blocks(README)


def test_the_readme_marks_its_runnable_snippets():
    # Every mark sits right above a bash or python fence (a mark above anything else would
    # silently test nothing), and the API tour and the pandas example are among them.
    assert README.count(MARK) == len(BLOCKS) >= 3
    # The manage.py commands of the README's command table are among them (issue 22 item 14).
    marked = "".join(code for _, code, _ in BLOCKS)
    for command in ("createresearcher", "inviteresearcher", "rebuild_tallies"):
        assert f".venv/bin/python manage.py {command}" in marked, command
    assert {language for language, _, _ in BLOCKS} == {"bash", "python"}
    assert "<slug>" not in "".join(code for _, code, _ in BLOCKS)


@pytest.fixture(scope="module")
def snippet_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    probe = subprocess.run([sys.executable, "-c", "import pandas"], check=False)
    if probe.returncode == 0:
        yield sys.executable
        return
    venv = tmp_path_factory.mktemp("readme") / "venv"
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    requirements = Path(__file__).with_name("readme-requirements.txt")
    subprocess.run([*pip, "-r", str(requirements), "-c", str(ROOT / "constraints.txt")], check=True)
    TIMINGS["README snippets: throwaway venv with pandas"] = time.monotonic() - started
    yield str(venv / "bin" / "python")


def _run(args: list[str], code: str, server: Server, tmp_path: Path) -> str:
    code = code.replace(DEFAULT_BASE, server.base)
    # As a reader pastes them: from the repository root the server runs from (the fresh clone's,
    # where `make run` made .venv; the working tree when reusing a server), so the README's
    # `.venv/bin/python manage.py …` lines reach the same database, with none of the test
    # run's own settings (DJANGO_*, DATABASE_URL, …: the make run environment's filter).
    cwd = server.log.parent if server.log is not None else ROOT
    env = {k: v for k, v in os.environ.items() if not NOT_INHERITED.match(k)}
    # The README's export snippets read the token from DENIABLE_TOKEN ("make run prints the
    # demo's"): set it as a reader would, from the demo login. DENIABLE_URL/SURVEY keep defaults.
    if not server.token:
        server.api("GET", "/surveys/")  # logs in once and keeps the token
    env["DENIABLE_TOKEN"] = server.token
    done = subprocess.run(
        [*args, code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120,
        check=False,
    )  # fmt: skip
    report = f"exit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"
    assert done.returncode == 0, report
    # The API answers errors as JSON {"error": …} or {"errors": …}; curl -s would not fail on one.
    assert not re.search(r'"errors?"\s*:', done.stdout), report
    return done.stdout


@pytest.mark.parametrize(
    ("language", "code", "line"), BLOCKS, ids=[f"README.md:{line}" for _, _, line in BLOCKS]
)
def test_readme_snippet_runs_as_written(
    language: str, code: str, line: int, server: Server, request: pytest.FixtureRequest,
    tmp_path: Path,
) -> None:  # fmt: skip
    if language == "bash":
        out = _run(["bash", "-euo", "pipefail", "-c"], code, server, tmp_path)
    else:
        python = request.getfixturevalue("snippet_python")
        out = _run([python, "-c"], code, server, tmp_path)
    assert out.strip(), f"README.md:{line} printed nothing"
