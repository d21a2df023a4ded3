"""The default install (``make run``): SQLite file, tasks in-process, ``runserver`` threads.

Issue 11, item 4: with deferred SQLite transactions, concurrent submissions made releases stick
in pending/running forever with their budget charged ("database is locked" on the lock
upgrade; the eager retry's ``Retry`` swallowed by ``release_enqueue``; no sweeper), and capped
surveys answered a misleading 503. Here a real ``manage.py runserver`` (threaded, eager Celery,
a file database — exactly the embedded set-up) is hammered by threads; every release must end
``done`` or ``failed`` with its charge refunded, and a capped survey answers each respondent 201
or 409 ``response_cap_reached``, never 5xx.

No DATABASE_URL/REDIS_URL is passed to the server: it runs the embedded defaults whatever
backend the rest of the suite uses.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from testsupport.processes import free_port

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv" / "bin" / "python"

SETUP = """
from django.contrib.auth import get_user_model
from accounts.services import api_token_create
from surveys import inputs, services
user = get_user_model().objects.create_user("embedded", password="embedded-password-123")
def make(title, cap=None, extra=()):
    data = {
        "title": title, "access": "open", "budget": {"epsilon": 100.0, "delta": 1e-6},
        "questions": [
            {"key": "q1", "text": "Yes?", "kind": "yes_no",
             "design": {"name": "warner", "p": 0.75}},
            {"key": "n1", "text": "How many?", "kind": "number", "min": 0, "max": 10},
            *extra,
        ],
    }
    if cap is not None:
        data["response_cap"] = cap
    survey = services.survey_create(owner=user, **inputs.survey_spec(data).kwargs())
    services.survey_open(survey=survey)
    return survey.slug
color = {"key": "c1", "text": "Colour", "kind": "category", "options": ["red", "blue"]}
print(json.dumps({"token": api_token_create(user=user, name="embedded").key,
                  "open": make("open"), "capped": make("capped", cap=12),
                  "selection": make("selection", extra=[color])}))
"""

CHECK = """
from privacy.models import LedgerEntry, Release
rows = [
    {"status": r.status, "refunded": r.ledger_entry.refunded}
    for r in Release.objects.select_related("ledger_entry")
]
print(json.dumps(rows))
"""


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(
        DENIABLE_MAX_BUDGET_EPSILON="100",  # room for the loop of ε = 1 releases
        DJANGO_SETTINGS_MODULE="deniable.settings.base",
        DATABASE_URL=f"sqlite:///{db}",
        DJANGO_DEBUG="true",
        DENIABLE_VAR_DIR=str(db.parent),
        # Estimates batching is not what this test is about; batches of 1 publish at once.
        DENIABLE_ESTIMATE_BATCH="1",
    )
    return env


def _manage(env: dict[str, str], *args: str, stdin: str | None = None) -> str:
    out = subprocess.run(
        [str(PYTHON), "manage.py", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return out.stdout


def _shell(env: dict[str, str], code: str) -> object:
    out = _manage(env, "shell", "-c", "import json\n" + code)
    return json.loads(out.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def embedded_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """A migrated database with SETUP's user, token and surveys, made once for the module (two
    subprocesses: ~10 s of CPU on a slow machine); each test runs on its own copy of it."""
    var = tmp_path_factory.mktemp("embedded-template")
    env = _env(var / "db.sqlite3")
    _manage(env, "migrate", "--noinput")
    info = _shell(env, SETUP)
    return var, info  # type: ignore[return-value]


@pytest.fixture
def embedded_server(
    embedded_template: tuple[Path, dict], tmp_path: Path
) -> Iterator[tuple[str, dict, dict[str, str]]]:
    template, info = embedded_template
    # The whole var directory: the database (its processes have exited, so SQLite has folded
    # its WAL back into the file) and whatever else the app keeps there.
    shutil.copytree(template, tmp_path, dirs_exist_ok=True)
    db = tmp_path / "db.sqlite3"
    env = _env(db)
    port = free_port()
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [str(PYTHON), "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=1)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError((tmp_path / "server.log").read_text()) from None
                time.sleep(0.2)
        yield base, info, env  # type: ignore[misc]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _post(url: str, body: dict, token: str | None = None) -> int:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    for attempt in range(5):
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status
        except urllib.error.HTTPError as exc:
            return exc.code
        except (ConnectionResetError, urllib.error.URLError):
            # runserver's listen backlog is 10: a burst of 30 connects can be reset before any
            # request is read. The body (and its submission_id) is resent as a client would.
            if attempt == 4:
                raise
            time.sleep(0.2 * (attempt + 1))
    raise AssertionError("unreachable")


def _respond(base: str, slug: str, i: int) -> int:
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": {"q1": i % 2 == 0, "n1": i % 11},
    }
    return _post(f"{base}/api/v1/surveys/{slug}/responses/", body)


def test_releases_during_concurrent_submissions_all_finish_or_refund(embedded_server) -> None:
    base, info, env = embedded_server
    statuses: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def submitter(offset: int) -> None:
        i = offset
        while not stop.is_set():
            code = _respond(base, info["open"], i)
            with lock:
                statuses.append(code)
            i += 16

    threads = [threading.Thread(target=submitter, args=(k,)) for k in range(16)]
    for t in threads:
        t.start()
    try:
        time.sleep(1.0)
        release_codes = []
        for _ in range(10):
            release_codes.append(
                _post(
                    f"{base}/api/v1/surveys/{info['open']}/releases/",
                    {"mechanism": "laplace", "epsilon": 1.0},
                    token=info["token"],
                )
            )
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=60)
    assert release_codes == [202] * 10, release_codes
    assert statuses and all(code == 201 for code in statuses), sorted(set(statuses))
    releases = _shell(env, CHECK)
    assert len(releases) == 10
    # Eager tasks run inside the request: when it answered, the release had ended.
    for r in releases:
        assert r["status"] in ("done", "failed"), releases
        if r["status"] == "failed":
            assert r["refunded"], releases
    assert sum(r["status"] == "done" for r in releases) >= 1, releases


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def test_selection_releases_run_in_process(embedded_server) -> None:
    """Issue 30: median, quantile and mode end done in the embedded mode (eager tasks)."""
    base, info, _ = embedded_server
    slug = info["selection"]
    for i in range(12):
        body = {
            "submission_id": str(uuid.uuid4()),
            "randomizer": "browser",
            "answers": {"q1": i % 2 == 0, "n1": i % 11, "c1": "red" if i % 3 else "blue"},
        }
        assert _post(f"{base}/api/v1/surveys/{slug}/responses/", body) == 201
    bodies = [
        {"mechanism": "exponential", "epsilon": 1.0, "statistic": "median"},
        {"mechanism": "exponential", "epsilon": 1.0, "statistic": "quantile", "q": 0.9},
        {"mechanism": "exponential", "epsilon": 1.0, "statistic": "mode"},
    ]
    for body in bodies:
        code = _post(f"{base}/api/v1/surveys/{slug}/releases/", body, token=info["token"])
        assert code == 202, (body, code)
    listed = _get(f"{base}/api/v1/surveys/{slug}/releases/", info["token"])
    assert sorted(r["statistic"] for r in listed) == ["median", "mode", "quantile"]
    for summary in listed:
        detail = _get(
            base + summary["url"] if summary["url"].startswith("/") else summary["url"],
            info["token"],
        )
        assert detail["status"] == "done", detail
        (entry,) = detail["results"]["questions"]
        if entry["statistic"] == "mode":
            assert entry["option"] in ("red", "blue")
        else:
            assert 0.0 <= entry["value"] <= 10.0


def test_capped_survey_answers_201_or_409_never_503(embedded_server) -> None:
    base, info, _ = embedded_server
    results: list[int] = []
    lock = threading.Lock()
    barrier = threading.Barrier(30)

    def one(i: int) -> None:
        barrier.wait()
        code = _respond(base, info["capped"], i)
        with lock:
            results.append(code)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(30)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(results) == 30
    # The cap is 12: exactly 12 accepted, the others told the survey is full.
    assert sorted(results) == [201] * 12 + [409] * 18, sorted(results)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
