"""The smoke run: the product the way a new user meets it (issue 10).

The ``server`` fixture clones this repository's HEAD (committed work only) into a temporary
directory, runs the README's first command there exactly as the README writes it (``make run``,
with ``PORT`` set as the README documents) in a process group of its own and with a new user's
environment (no ``DATABASE_URL``, ``REDIS_URL``, settings module or virtualenv inherited from CI),
waits for ``/s/demo/`` to answer 200, and at the end stops the whole group. So the clone's
``.venv`` is created from scratch with the runtime requirements only, the database is the
embedded SQLite, tasks run in-process and ``DJANGO_DEBUG`` is on: the configuration `make run`
gives users, which the rest of the suite does not run.

The smoke tests are selected only on purpose (``make smoke``, ``pytest -m smoke`` or a path under
tests/smoke): a plain ``pytest`` / ``make test`` deselects them, since they clone, install and
serve for a minute or more. CI runs ``make smoke`` (.ci/run) with ``CI=true``, where nothing in
here may skip. Outside CI, ``DENIABLE_SMOKE_URL=http://127.0.0.1:PORT`` points the tests at a
server you already run (seeded with ``seed_demo``) instead of a fresh clone.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.smoke.server import ROOT, TIMINGS, Server, http_status
from testsupport.browser import CHROMIUM, PageMaker, chromium
from testsupport.processes import free_port
from testsupport.services import require_service, services_required
from testsupport.smoke_env import NOT_INHERITED

START_TIMEOUT = 900  # seconds: a from-scratch pip install on a slow mirror, migrate, seed


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the smoke tests unless they were asked for (see the module docstring)."""
    wanted = "smoke" in (config.getoption("markexpr") or "") or any(
        "tests/smoke" in str(arg) for arg in config.args
    )
    if wanted:
        return
    keep, drop = [], []
    for item in items:
        (drop if item.get_closest_marker("smoke") else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TIMINGS:
        terminalreporter.section("smoke timings")
        for name, seconds in TIMINGS.items():
            terminalreporter.write_line(f"{name}: {seconds:.1f} s")


def readme_first_command() -> str:
    """The first line of the README's first ```bash block, without its comment."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no ```bash block"
    first = block.group(1).splitlines()[0]
    return first.split("#", 1)[0].strip()


def _clean_env(port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not NOT_INHERITED.match(k)}
    env["PORT"] = str(port)
    return env


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the whole process group (make, manage.py runserver and its autoreload child),
    then SIGKILL whatever is left after 15 s."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=15)
    except ProcessLookupError:
        pass


# Session scope: one clone, one install and one server for every smoke module.
@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    reuse = os.environ.get("DENIABLE_SMOKE_URL", "").rstrip("/")
    if reuse and not services_required():
        yield Server(base=reuse)
        return
    require_service(shutil.which("git") is not None, "git")
    require_service(shutil.which("make") is not None, "make")
    clone = tmp_path_factory.mktemp("fresh") / "deniable"
    started = time.monotonic()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    head = subprocess.run(
        ["git", "-C", str(clone), "rev-parse", "--short", "HEAD"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    TIMINGS[f"git clone (HEAD {head})"] = time.monotonic() - started
    command = readme_first_command()
    assert command == "make run", f"the README's first command is now {command!r}"
    port = free_port()
    log = clone / "make-run.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            ["bash", "-c", command], cwd=clone, env=_clean_env(port),
            stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    srv = Server(base=f"http://127.0.0.1:{port}", log=log)
    try:
        started = time.monotonic()
        installed_at = None
        while True:
            if installed_at is None and "manage.py migrate" in log.read_text(errors="replace"):
                installed_at = time.monotonic()
                TIMINGS["make run: fresh .venv (runtime requirements)"] = installed_at - started
            if http_status(f"{srv.base}/s/demo/") == 200:
                break
            code = proc.poll()
            assert code is None, f"`{command}` exited ({code}) before serving:\n{srv.log_tail()}"
            assert time.monotonic() - started < START_TIMEOUT, (
                f"/s/demo/ did not answer 200 within {START_TIMEOUT} s:\n{srv.log_tail()}"
            )
            time.sleep(0.5)
        TIMINGS["make run: fresh clone to first 200 on /s/demo/"] = time.monotonic() - started
        yield srv
    finally:
        _stop(proc)
    # The stopped server must really be gone (no orphaned runserver child on the port).
    assert http_status(f"{srv.base}/s/demo/") == 0, "the server still answers after stopping"


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    require_service(CHROMIUM.exists(), "chromium (/usr/bin/chromium)")
    with chromium() as browser:
        yield browser


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    """``page, problems = new_page(**context_options)``; contexts are closed after.

    A step may wait up to 30 s, like the e2e suite's: CI runs this job beside the SQLite pass and
    the short benchmarks (.ci/run), on two cores. Nothing waits for a timeout on purpose."""
    make = PageMaker(browser, timeout_ms=30_000)
    yield make
    make.close_all()
