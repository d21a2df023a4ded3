"""Load and faults (issue 6): submissions under load, with Redis and PostgreSQL failing under them.

``python -m bench.faults [--quick]`` builds a PRIVATE stack — a PostgreSQL 15 cluster initdb'd into
a temp dir, a redis-server on a free port, gunicorn (2 workers × 4 threads, ``gunicorn.conf.py``)
and a ``celery worker`` — migrates it, and runs:

1. ``knee``: a concurrency ramp (1, 2, 4, 8, 16) finds the throughput knee, then 60 s at the
   knee: zero 5xx, every 2xx submission stored (rows == 2xx), p99 reported.
2. ``redis``: Redis SIGSTOPped, then SIGKILLed, then restarted, under load, with the per-survey
   limiter ON (it must fail open fast): no 5xx, bounded latency; a release requested during the
   outage stays pending and completes after the restart (the sweeper re-enqueues it).
3. ``postgres``: ``pg_ctl restart -m fast`` under load while a release is mid-computation: errors
   only inside the restart window and only 503 (never 500), all 2xx again within seconds, no
   half-written submission (10 answers each; tallies == a recount from the answers) and no
   half-written release (done, or failed and refunded — never running with a charge).
4. Worker killed mid-release: covered by
   ``tests/integration/test_releases_integration.py::test_sigkill_mid_task_gives_exactly_one_result_and_one_charge``.

Nothing touches the machine's shared PostgreSQL or Redis: every service here is private to the run
and removed at exit (try/finally + atexit). initdb refuses to run as root, so as root the cluster
is created and run as the ``postgres`` OS user through ``runuser``; as any other user it runs as
that user. ``tests/integration/test_faults.py`` runs the same scenarios for a few seconds each in
CI. The functions here are the shared implementation.
"""

from __future__ import annotations

import atexit
import contextlib
import http.client
import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import execute, markdown_table, parse_args
from bench.loadgen import LoadResult, json_body, resend, run_load
from testsupport.processes import PrivateRedis, free_port, wait_until

NAME = "faults"
DESCRIPTION = "load at the knee; Redis paused/killed and PostgreSQL restarted under load"

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent  # the venv running us has gunicorn and celery too
PG_BIN = Path(os.environ.get("DENIABLE_PG_BIN", "/usr/lib/postgresql/15/bin"))
HOST = "127.0.0.1"
RAMP = (1, 2, 4, 8, 16)
GUNICORN_WORKERS = 2
GUNICORN_THREADS = 4
# Big enough to never trigger, small enough that the limiter (and so the cache) is in the path.
LIMITER_ON = 10**9
ANSWERED_QUESTIONS = 10

QUESTIONS: list[dict[str, Any]] = [
    *({"key": f"yn{i}", "text": f"Yes/no {i}?", "kind": "yes_no"} for i in range(4)),
    *(
        {"key": f"ch{i}", "text": f"Choice {i}?", "kind": "choice", "options": ["a", "b", "c"]}
        for i in range(2)
    ),
    {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south", "east"]},
    *(
        {"key": f"num{i}", "text": f"Number {i}", "kind": "number", "min": 0, "max": 100}
        for i in range(3)
    ),
]


def random_answers(rng: np.random.Generator) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for q in QUESTIONS:
        if q["kind"] == "yes_no":
            answers[q["key"]] = bool(rng.random() < 0.5)
        elif q["kind"] == "number":
            answers[q["key"]] = int(rng.integers(0, 101))
        else:
            answers[q["key"]] = q["options"][int(rng.integers(len(q["options"])))]
    return answers


def body_factory(rng: np.random.Generator) -> tuple[str, bytes]:
    sid = str(uuid.uuid4())  # a fresh uuid4 per request, as a browser makes
    return sid, json_body(sid, random_answers(rng))


# --------------------------------------------------------------------------- availability


def _pg_os_user() -> str | None:
    """initdb refuses root: as root, run PostgreSQL as ``postgres`` via runuser; else as us."""
    return "postgres" if os.geteuid() == 0 else None


def unavailable() -> str | None:
    """Why the scenarios cannot run here (a missing binary), or None."""
    needed = [PG_BIN / "initdb", PG_BIN / "pg_ctl", BIN / "gunicorn", BIN / "celery"]
    for path in needed:
        if not path.exists():
            return f"{path} is missing"
    if shutil.which("redis-server") is None:
        return "redis-server is missing"
    if _pg_os_user():
        if shutil.which("runuser") is None:
            return "runuser is missing (needed to run initdb as postgres when root)"
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "no postgres OS user (initdb refuses root)"
    return None


# --------------------------------------------------------------------------- private services


@dataclass
class PrivatePostgres:
    workdir: Path
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.workdir / "data"

    @property
    def log(self) -> Path:
        return self.workdir / "postgres.log"

    def url(self, db: str = "deniable") -> str:
        return f"postgres://postgres@{HOST}:{self.port}/{db}"

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        user = _pg_os_user()
        prefix = ["runuser", "-u", user, "--"] if user else []
        # A session of its own: a signal sent to our process group (e.g. by `timeout`) must not
        # kill pg_ctl halfway through the cleanup.
        done = subprocess.run(
            [*prefix, *args], capture_output=True, text=True, timeout=timeout,
            start_new_session=True,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{done.stdout}\n{done.stderr}")
        return done

    def init(self) -> None:
        user = _pg_os_user()
        if user:
            entry = pwd.getpwnam(user)
            os.chown(self.workdir, entry.pw_uid, entry.pw_gid)
        # --no-sync: a throwaway cluster; fsync stays ON while running (restarts are realistic).
        self._run(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
            "-E", "UTF8", "--no-sync", "--no-instructions",
        )  # fmt: skip
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write(
                f"\nlisten_addresses = '{HOST}'\nport = {self.port}\n"
                f"unix_socket_directories = '{self.workdir}'\nmax_connections = 60\n"
            )

    def pg_ctl(self, *args: str, timeout: float = 60) -> None:
        self._run(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w", "-t", "50",
            *args, timeout=timeout,
        )  # fmt: skip

    def start(self) -> None:
        self.pg_ctl("start")
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute("CREATE DATABASE deniable")

    def restart_fast(self) -> tuple[float, float]:
        """``pg_ctl restart -m fast``: returns (monotonic start, monotonic end = accepting)."""
        begin = time.monotonic()
        self.pg_ctl("restart", "-m", "fast")
        return begin, time.monotonic()

    def stop(self) -> None:
        pidfile = self.data / "postmaster.pid"
        if not pidfile.exists():
            return
        try:
            self.pg_ctl("stop", "-m", "immediate", timeout=30)
        except (RuntimeError, subprocess.SubprocessError):
            # pg_ctl failed: SIGQUIT is PostgreSQL's own "immediate shutdown".
            with contextlib.suppress(OSError, ValueError, IndexError):
                os.kill(int(pidfile.read_text().splitlines()[0]), signal.SIGQUIT)
                wait_until(lambda: not pidfile.exists(), 10)

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        import psycopg

        with psycopg.connect(self.url(), connect_timeout=5) as conn:
            return list(conn.execute(sql, params).fetchall())


def _terminate(process: subprocess.Popen[bytes] | None, grace: float = 15) -> None:
    """SIGTERM our child's process group (it was started in a session of its own), then KILL."""
    if process is None or process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)


@dataclass
class Stack:
    """Private PostgreSQL + Redis (+ gunicorn and a worker on demand) in one temp dir."""

    workdir: Path
    pg: PrivatePostgres
    redis: PrivateRedis
    gunicorn: subprocess.Popen[bytes] | None = None
    web_port: int = 0
    worker: subprocess.Popen[bytes] | None = None
    _logs: int = 0
    _closed: bool = False

    @classmethod
    def create(cls) -> Stack:
        workdir = Path(tempfile.mkdtemp(prefix="deniable-faults-"))
        # mkdtemp makes it 0700; the postgres OS user must be able to traverse into pg/.
        workdir.chmod(0o711)
        pg_dir = workdir / "pg"
        pg_dir.mkdir()
        redis_dir = workdir / "redis"
        redis_dir.mkdir()
        stack = cls(workdir, PrivatePostgres(pg_dir), PrivateRedis(free_port(), redis_dir))
        atexit.register(stack.close)
        try:
            stack.pg.init()
            stack.pg.start()
            stack.redis.start()
            stack.manage("migrate", "--noinput", "-v", "0")
        except BaseException:
            stack.close()
            raise
        return stack

    # -- environment and management commands

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "deniable.settings.base",
            "DATABASE_URL": self.pg.url(),
            "REDIS_URL": self.redis.url,
            "DENIABLE_VAR_DIR": str(self.workdir / "var"),
            "DENIABLE_SUBMISSION_RATE_LIMIT": "0",
            "DENIABLE_ESTIMATE_BATCH": str(STACK_ESTIMATE_BATCH),
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
            **extra,
        }
        env.pop("CI", None)
        return env

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=self.env(), capture_output=True, text=True, timeout=180,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stderr[-4000:]}")
        return done.stdout

    def django(self, code: str) -> Any:
        """Run Python in a Django shell on the private stack; the code prints one JSON line."""
        out = self.manage("shell", "-c", code)
        return json.loads(out.strip().splitlines()[-1])

    def survey_create(self, title: str) -> tuple[str, str]:
        """A researcher (with an API token) and an open 10-question survey: (slug, token)."""
        code = f"""
import json
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from surveys.inputs import survey_spec
from surveys.services import survey_create, survey_open
user, _ = get_user_model().objects.get_or_create(username="faults")
token, _ = Token.objects.get_or_create(user=user)
spec = survey_spec({{"title": {title!r}, "budget": {{"epsilon": 10.0,
    "delta": 1e-6}}, "questions": json.loads({json.dumps(QUESTIONS)!r})}})
survey = survey_create(owner=user, **spec.kwargs())
survey = survey_open(survey=survey)
print(json.dumps([survey.slug, token.key]))
"""
        slug, token = self.django(code)
        return slug, token

    def sweep(self) -> list[str]:
        """The beat sweeper's body, with 'stale' = now (what beat would do after its thresholds)."""
        return self.django(
            "import json; from privacy.services import releases_sweep; "
            "print(json.dumps(releases_sweep(pending_after_seconds=0, running_after_seconds=0)))"
        )

    def _log(self, stem: str) -> Path:
        self._logs += 1
        return self.workdir / f"{stem}-{self._logs}.log"

    # -- gunicorn and the worker

    def start_web(self, **extra_env: str) -> None:
        self.stop_web()
        self.web_port = free_port()
        env = self.env(
            GUNICORN_BIND=f"{HOST}:{self.web_port}",
            WEB_CONCURRENCY=str(GUNICORN_WORKERS),
            GUNICORN_THREADS=str(GUNICORN_THREADS),
            **extra_env,
        )
        log = self._log("gunicorn")
        self.gunicorn = subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "deniable.wsgi:application"],
            cwd=ROOT, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip

        def up() -> bool:
            if self.gunicorn is None or self.gunicorn.poll() is not None:
                raise RuntimeError(f"gunicorn exited:\n{log.read_text(errors='replace')[-4000:]}")
            return self.http("GET", "/healthz")[0] == 200

        if not wait_until(up, 60, interval=0.2):
            raise RuntimeError(f"gunicorn did not come up:\n{log.read_text(errors='replace')}")

    def stop_web(self) -> None:
        _terminate(self.gunicorn)
        self.gunicorn = None

    def start_worker(self, **extra_env: str) -> None:
        self.stop_worker()
        log = self._log("worker")
        delayed = "DENIABLE_RELEASE_STORE_DELAY" in extra_env
        app = "tests.integration.slow_store" if delayed else "deniable"
        self.worker = subprocess.Popen(
            [
                # tests/integration/slow_store.py: the store delay without a production hook.
                str(BIN / "celery"), "-A", app, "worker", "-l", "INFO", "--pool=solo",
                "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", "faults@%h",
            ],
            cwd=ROOT, env=self.env(LOG_LEVEL="INFO", **extra_env), stdout=log.open("wb"),
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        worker = self.worker

        def ready() -> bool:
            return " ready." in log.read_text(errors="replace") or worker.poll() is not None

        if not wait_until(ready, 60) or worker.poll() is not None:
            raise RuntimeError(f"celery worker did not start:\n{log.read_text(errors='replace')}")

    def stop_worker(self) -> None:
        _terminate(self.worker)
        self.worker = None

    def http(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        conn = http.client.HTTPConnection(HOST, self.web_port, timeout=30)
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Token {token}"
        try:
            conn.request(
                method, path, body=None if body is None else json.dumps(body), headers=headers
            )
            response = conn.getresponse()
            raw = response.read()
        except OSError:
            return 0, None
        finally:
            conn.close()
        try:
            return response.status, json.loads(raw or b"null")
        except ValueError:
            return response.status, raw.decode(errors="replace")

    def load(
        self,
        slug: str,
        concurrency: int,
        duration: float,
        seed: int,
        stop: threading.Event | None = None,
    ) -> LoadResult:
        return run_load(
            host=HOST, port=self.web_port, path=f"/api/v1/surveys/{slug}/responses/",
            body_factory=body_factory, concurrency=concurrency, duration=duration, seed=seed,
            stop=stop,
        )  # fmt: skip

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        # Each step on its own: one failing must not leave the others' processes running.
        for step in (self.stop_web, self.stop_worker, self.redis.stop, self.pg.stop):
            try:
                step()
            except Exception as exc:  # noqa: BLE001
                print(f"cleanup: {step.__name__} failed: {exc!r}", file=sys.stderr)
        shutil.rmtree(self.workdir, ignore_errors=True)


@contextlib.contextmanager
def private_stack() -> Iterator[Stack]:
    stack = Stack.create()
    try:
        yield stack
    finally:
        stack.close()


# --------------------------------------------------------------------------- database checks


# Submissions per published batch in the private stack (its servers' environment sets it).
STACK_ESTIMATE_BATCH = 10


def stored_ids(stack: Stack, slug: str) -> set[str]:
    rows = stack.pg.query(
        "SELECT s.id::text FROM surveys_submission s JOIN surveys_survey v ON v.id = s.survey_id "
        "WHERE v.slug = %s",
        (slug,),
    )
    return {r[0] for r in rows}


def integrity(stack: Stack, slug: str) -> dict[str, int]:
    """Half-written submissions: each must hold all 10 answers, and the sharded tally vectors
    must equal a recount from the *published* answers (ungrouped and grouped by each category
    question). Submissions are published in batches of k (DENIABLE_ESTIMATE_BATCH, 10 in the
    stack's settings): the unpublished tail must hold fewer than k, or a batch was not published
    (counted as a mismatch)."""
    (survey_id,) = stack.pg.query("SELECT id FROM surveys_survey WHERE slug = %s", (slug,))[0]
    rows = stack.pg.query(
        "SELECT answers, sealed FROM surveys_submission WHERE survey_id = %s", (survey_id,)
    )
    all_answers = [a for a, _ in rows]
    submissions = [a for a, sealed in rows if sealed]
    unpublished = len(rows) - len(submissions)
    questions = stack.pg.query(
        "SELECT key, kind, options FROM surveys_question WHERE survey_id = %s "
        "ORDER BY position, id",
        (survey_id,),
    )
    # The slot layout re-derived here from the documentation of surveys.tally_layout (not
    # imported), so this check does not share a bug with the code it checks.
    slots: dict[tuple[str, str], int] = {}
    next_slot = 1
    for key, kind, options in questions:
        values = ["yes", "no"] if kind == "yes_no" else [""] if kind == "number" else options
        for value in values:
            slots[(key, value)] = next_slot
            next_slot += 3 if kind == "number" else 1
    kinds = {key: kind for key, kind, _ in questions}
    expected: dict[tuple[str, str], list[float]] = {}
    for answers in submissions:
        vector = [0.0] * next_slot
        vector[0] = 1.0
        for key, value in answers.items():
            if kinds[key] == "number":
                slot = slots[(key, "")]
                vector[slot : slot + 3] = [1.0, value, value * value]
            else:
                value = ("yes" if value else "no") if kinds[key] == "yes_no" else value
                vector[slots[(key, value)]] = 1.0
        groups = [("", "")] + [(k, answers[k]) for k in answers if kinds[k] == "category"]
        for group in groups:
            total = expected.setdefault(group, [0.0] * next_slot)
            for i, x in enumerate(vector):
                total[i] += x
    actual: dict[tuple[str, str], list[float]] = {}
    for gk, gv, sums in stack.pg.query(
        "SELECT group_key, group_value, sums FROM surveys_tally WHERE survey_id = %s",
        (survey_id,),
    ):
        total = actual.setdefault((gk, gv), [0.0] * next_slot)
        for i, x in enumerate(sums):
            total[i] += x
    zeros = [0.0] * next_slot
    mismatched = sum(
        1
        for group in expected.keys() | actual.keys()
        for e, a in zip(expected.get(group, zeros), actual.get(group, zeros), strict=True)
        if abs(e - a) > 1e-6 * (1 + abs(e))
    )
    mismatched += int(unpublished >= STACK_ESTIMATE_BATCH)
    incomplete = sum(1 for answers in all_answers if len(answers) != ANSWERED_QUESTIONS)
    return {
        "submissions": len(all_answers),
        "unpublished_tail": unpublished,
        "submissions_without_10_answers": incomplete,
        "tally_slices": len(actual),
        "tally_cells_mismatched": mismatched,
    }


def release_state(stack: Stack, release_id: str) -> dict[str, Any]:
    rows = stack.pg.query(
        "SELECT status, attempts, results IS NOT NULL FROM privacy_release WHERE id = %s",
        (release_id,),
    )
    status, attempts, has_results = rows[0]
    charges = stack.pg.query(
        "SELECT refunded FROM privacy_ledgerentry WHERE release_id = %s", (release_id,)
    )
    return {
        "status": status,
        "attempts": attempts,
        "has_results": bool(has_results),
        "charges": len(charges),
        "unrefunded_charges": sum(1 for (refunded,) in charges if not refunded),
    }


def release_consistent(state: dict[str, Any]) -> bool:
    """Done with a result and one charge, or failed with every charge refunded."""
    if state["status"] == "done":
        return state["has_results"] and state["unrefunded_charges"] == 1
    if state["status"] == "failed":
        return not state["has_results"] and state["unrefunded_charges"] == 0
    return False


def request_release(stack: Stack, slug: str, token: str) -> tuple[int, Any, float]:
    started = time.monotonic()
    code, body = stack.http(
        "POST", f"/api/v1/surveys/{slug}/releases/", {"mechanism": "laplace", "epsilon": 0.5}, token
    )
    return code, body, time.monotonic() - started


# --------------------------------------------------------------------------- reporting


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def report(title: str, summary: dict[str, Any], extra: dict[str, Any], verdict: bool) -> None:
    keys = ["requests", "2xx", "4xx", "5xx", "503", "conn_errors", "p50_ms", "p99_ms", "max_ms"]
    print(f"\n### {title}\n")
    headers = ["concurrency", "seconds", *keys, "rows stored", "rows lost"]
    row = [summary.get(k, "") for k in ("concurrency", "seconds", *keys)]
    row += [extra.get("rows_stored", ""), extra.get("rows_lost", "")]
    print(markdown_table(headers, [row]))
    details = {k: v for k, v in extra.items() if k not in ("rows_stored", "rows_lost")}
    if details:
        print("\n" + "; ".join(f"{k} = {v}" for k, v in details.items()))
    print(f"\n**verdict: {'PASS' if verdict else 'FAIL'}**")


def _background(fn: Callable[[], LoadResult]) -> tuple[threading.Thread, list[LoadResult]]:
    out: list[LoadResult] = []
    thread = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    thread.start()
    return thread, out


def _rows(stack: Stack, slug: str, results: list[LoadResult]) -> dict[str, Any]:
    acknowledged = {sid for r in results for sid in r.ok_ids}
    stored = stored_ids(stack, slug)
    return {
        "acknowledged": acknowledged,
        "rows_stored": len(stored),
        "rows_lost": len(acknowledged - stored),
        "rows_unacknowledged": len(stored - acknowledged),
    }


# --------------------------------------------------------------------------- scenarios


def scenario_knee(
    stack: Stack, *, step_seconds: float, sustain_seconds: float, ramp: tuple[int, ...] = RAMP
) -> dict[str, Any]:
    """Ramp to find the knee, then sustain it: zero 5xx, rows == 2xx, every 2xx id stored."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT="0")
    slug, _ = stack.survey_create("faults: knee")
    # Warm-up (imports, connections); its rows are checked with the others.
    runs = [stack.load(slug, 2, 1.0, seed=97)]
    steps = []
    for c in ramp:
        result = stack.load(slug, c, step_seconds, seed=c)
        runs.append(result)
        steps.append(result.summary())
    # The knee: the lowest concurrency that no higher step beats by more than 10 % (a global
    # rule, so one noisy step on a shared machine does not stop the ramp early).
    knee = ramp[-1]
    for i, step in enumerate(steps):
        if all(s["throughput_rps"] <= step["throughput_rps"] * 1.10 for s in steps[i + 1 :]):
            knee = step["concurrency"]
            break
    print("\n### 1. Ramp (each step", step_seconds, "s)\n")
    print(
        markdown_table(
            ["concurrency", "requests", "2xx", "5xx", "2xx/s", "p50 ms", "p99 ms"],
            [
                [
                    s["concurrency"],
                    s["requests"],
                    s["2xx"],
                    s["5xx"],
                    s["throughput_rps"],
                    s["p50_ms"],
                    s["p99_ms"],
                ]
                for s in steps
            ],
        )
    )
    print(f"\nknee: concurrency {knee} (no higher step adds > 10 % throughput)")
    sustained = stack.load(slug, knee, sustain_seconds, seed=1000)
    runs.append(sustained)
    summary = sustained.summary()
    rows = _rows(stack, slug, runs)
    total_5xx = sum(r.summary()["5xx"] for r in runs)
    checks = integrity(stack, slug)
    verdict = (
        total_5xx == 0
        and summary["conn_errors"] == 0
        and summary["requests"] > 0
        and rows["rows_lost"] == 0
        and rows["rows_stored"] == len(rows["acknowledged"])
        and checks["submissions_without_10_answers"] == 0
        and checks["tally_cells_mismatched"] == 0
    )
    extra = {
        "rows_stored": rows["rows_stored"],
        "rows_lost": rows["rows_lost"],
        "2xx over ramp + sustained": len(rows["acknowledged"]),
        "5xx over ramp + sustained": total_5xx,
        "throughput_rps": summary["throughput_rps"],
        **{k: v for k, v in checks.items() if k != "submissions"},
    }
    report(f"1. {sustain_seconds:g} s at the knee (concurrency {knee})", summary, extra, verdict)
    stack.stop_web()
    return {"ramp": steps, "knee": knee, "sustained": summary, **extra, "pass": verdict}


def scenario_redis(
    stack: Stack,
    *,
    concurrency: int,
    before: float,
    paused: float,
    killed: float,
    after: float,
) -> dict[str, Any]:
    """SIGSTOP Redis, then SIGKILL it, then start a new one, all under load (limiter ON)."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT=str(LIMITER_ON))
    stack.start_worker()
    slug, token = stack.survey_create("faults: redis")
    total = before + paused + killed + after
    thread, out = _background(lambda: stack.load(slug, concurrency, total, seed=2000))
    t0 = time.monotonic()
    time.sleep(before)
    pause_at = time.monotonic()
    stack.redis.pause()
    release_code, release_body, release_seconds = request_release(stack, slug, token)
    release_id = release_body.get("id") if isinstance(release_body, dict) else None
    time.sleep(max(0.0, pause_at + paused - time.monotonic()))
    kill_at = time.monotonic()
    assert stack.redis.process is not None
    stack.redis.process.kill()  # SIGKILL while stopped: the worst end for a hung server
    stack.redis.process.wait(10)
    time.sleep(killed)
    pending_during_outage = release_id is not None and (
        release_state(stack, release_id)["status"] == "pending"
    )
    restart_at = time.monotonic()
    stack.redis.start()  # a fresh, empty redis-server on the same port
    thread.join(total + 60)
    result = out[0]
    # The release: the sweeper (what beat runs every 60 s) re-enqueues it; the worker, which lost
    # its broker, must have reconnected by itself to compute it.
    swept: list[str] = []
    state: dict[str, Any] = {"status": "missing"}
    if release_id:
        wait_until(lambda: bool(swept.extend(stack.sweep()) or release_id in swept), 30, 1.0)
        wait_until(
            lambda: release_state(stack, release_id)["status"] in ("done", "failed"), 90, 0.5
        )
        state = release_state(stack, release_id)
    summary = result.summary()
    # Every request in flight during the pause, including those SIGSTOP caught mid-request.
    in_pause = result.overlapping(pause_at, kill_at).summary()
    in_kill = result.overlapping(kill_at, restart_at).summary()
    rows = _rows(stack, slug, [result])
    # Bounded: one socket timeout (2 s) per process and back-off window, plus queueing behind it.
    bound_ms = 6000.0
    verdict = (
        summary["5xx"] == 0
        and summary["conn_errors"] == 0
        and summary["4xx"] == 0
        and summary["max_ms"] < bound_ms
        and rows["rows_lost"] == 0
        and rows["rows_stored"] == len(rows["acknowledged"])
        and release_code == 202
        and pending_during_outage
        and state["status"] == "done"
        and state["unrefunded_charges"] == 1
    )
    extra = {
        "rows_stored": rows["rows_stored"],
        "rows_lost": rows["rows_lost"],
        "timeline_s": f"pause {pause_at - t0:.1f}, kill {kill_at - t0:.1f}, "
        f"restart {restart_at - t0:.1f}, end {result.finished - t0:.1f}",
        "paused: requests/2xx/p99_ms/max_ms": f"{in_pause['requests']}/{in_pause['2xx']}/"
        f"{in_pause['p99_ms']}/{in_pause['max_ms']}",
        "killed: requests/2xx/p99_ms": (
            f"{in_kill['requests']}/{in_kill['2xx']}/{in_kill['p99_ms']}"
        ),
        "latency bound_ms": bound_ms,
        "release request during pause": f"{release_code} in {release_seconds:.1f} s",
        "release pending during outage": pending_during_outage,
        "release after restart + sweep": f"{state['status']} (attempts {state.get('attempts')}, "
        f"unrefunded charges {state.get('unrefunded_charges')})",
    }
    report("2. Redis paused (SIGSTOP) then killed under load", summary, extra, verdict)
    stack.stop_worker()
    stack.stop_web()
    return {
        "summary": summary,
        "paused": in_pause,
        "killed": in_kill,
        "release": state,
        **extra,
        "pass": verdict,
    }


def scenario_postgres(
    stack: Stack, *, concurrency: int, before: float, after: float, recovery_grace: float = 3.0
) -> dict[str, Any]:
    """``pg_ctl restart -m fast`` under load while a release holds its row lock mid-compute."""
    stack.start_web(DENIABLE_SUBMISSION_RATE_LIMIT="0")
    # The task sleeps 3 s holding its row lock just before storing: the restart lands inside it.
    stack.start_worker(DENIABLE_RELEASE_STORE_DELAY="3")
    slug, token = stack.survey_create("faults: postgres")
    stop = threading.Event()
    thread, out = _background(
        lambda: stack.load(slug, concurrency, before + after + 120, seed=3000, stop=stop)
    )
    t0 = time.monotonic()
    time.sleep(before)
    release_code, release_body, _ = request_release(stack, slug, token)
    release_id = release_body.get("id") if isinstance(release_body, dict) else None
    running = bool(release_id) and wait_until(
        lambda: release_state(stack, release_id)["status"] == "running", 20, 0.05
    )
    begin, end = stack.pg.restart_fast()
    # Run the load for `after` seconds past the restart, whatever the restart took.
    time.sleep(after)
    stop.set()
    thread.join(60)
    result_full = out[0]
    stop_at = result_full.finished
    result = result_full
    summary = result.summary()
    failed = [s for s in result.samples if not s.ok]
    # Errors "inside the window": the request overlapped [restart begin, restart end + grace].
    outside = [s for s in failed if s.end < begin - 0.5 or s.start > end + recovery_grace]
    after_grace = result.window(end + recovery_grace, stop_at).summary()
    recovered = 0 < after_grace["requests"] == after_grace["2xx"]
    last_error_end = max((s.end for s in failed), default=end)
    # A client retries what failed (same submission id and body): stored or duplicate, never lost.
    retry_codes = resend(
        host=HOST,
        port=stack.web_port,
        path=f"/api/v1/surveys/{slug}/responses/",
        bodies=[s.body for s in failed],
    )
    stored = stored_ids(stack, slug)
    acknowledged = {s.submission_id for s in result_full.samples if s.ok}
    retried_ok = {
        s.submission_id for s, code in zip(failed, retry_codes, strict=True) if 200 <= code < 300
    }
    failed_ids = {s.submission_id for s in failed}
    # The release: after the restart and the sweeper it must be done, or failed and refunded.
    swept = stack.sweep() if release_id else []
    state: dict[str, Any] = {"status": "missing"}
    if release_id:
        wait_until(
            lambda: release_state(stack, release_id)["status"] in ("done", "failed"), 60, 0.5
        )
        stack.sweep()  # a second pass must change nothing
        state = release_state(stack, release_id)
    checks = integrity(stack, slug)
    verdict = (
        summary["5xx"] == summary["503"]  # never a 500: only clean 503s
        and not outside
        and recovered
        and not (acknowledged - stored)  # no acknowledged row lost
        and stored <= acknowledged | failed_ids  # nothing appeared from nowhere
        and all(200 <= c < 300 for c in retry_codes)
        and stored == acknowledged | retried_ok
        and checks["submissions_without_10_answers"] == 0
        and checks["tally_cells_mismatched"] == 0
        and release_code == 202
        and running
        and release_consistent(state)
    )
    extra = {
        "rows_stored": len(stored),
        "rows_lost": len(acknowledged - stored),
        "restart window_s": f"{end - begin:.2f} (pg_ctl restart -m fast, {begin - t0:.1f} s in)",
        "error window_s": (
            f"{min(s.end for s in failed) - begin:+.2f} .. {last_error_end - end:+.2f} "
            "(first error answered vs restart begin .. last error answered vs restart end)"
            if failed
            else "no errors"
        ),
        "errors": f"{len(failed)} ({summary['503']} × 503, {summary['5xx'] - summary['503']} "
        f"other 5xx, {summary['conn_errors']} connection errors, {summary['4xx']} 4xx)",
        "errors outside the window": len(outside),
        f"after restart + {recovery_grace:g} s": (
            f"{after_grace['2xx']}/{after_grace['requests']} 2xx"
        ),
        "retried failures": f"{len(retry_codes)} → "
        + (", ".join(f"{c}: {retry_codes.count(c)}" for c in sorted(set(retry_codes))) or "none"),
        "committed before the error (retry said 200 duplicate)": retry_codes.count(200),
        **{k: v for k, v in checks.items() if k != "submissions"},
        "release mid-compute at restart": running,
        "release swept": len(swept),
        "release final": f"{state['status']} (attempts {state.get('attempts')}, results "
        f"{state.get('has_results')}, unrefunded charges {state.get('unrefunded_charges')})",
    }
    report("3. PostgreSQL restarted (pg_ctl restart -m fast) under load", summary, extra, verdict)
    stack.stop_worker()
    stack.stop_web()
    return {"summary": summary, "release": state, "recovered": recovered, **extra, "pass": verdict}


def run(quick: bool) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with private_stack() as stack:
        if quick:
            results["knee"] = scenario_knee(
                stack, step_seconds=1.5, sustain_seconds=5, ramp=RAMP[:4]
            )
            results["redis"] = scenario_redis(
                stack, concurrency=4, before=1.5, paused=3, killed=2, after=3
            )
            results["postgres"] = scenario_postgres(stack, concurrency=4, before=1.5, after=6)
        else:
            results["knee"] = scenario_knee(stack, step_seconds=5, sustain_seconds=60)
            results["redis"] = scenario_redis(
                stack, concurrency=results["knee"]["knee"], before=5, paused=10, killed=10, after=10
            )
            results["postgres"] = scenario_postgres(
                stack, concurrency=results["knee"]["knee"], before=5, after=15
            )
    print(
        "\n4. Worker killed mid-release: tests/integration/test_releases_integration.py::"
        "test_sigkill_mid_task_gives_exactly_one_result_and_one_charge (CI)"
    )
    failed = [name for name, r in results.items() if not r["pass"]]
    print(f"\nfaults: {'ALL PASS' if not failed else 'FAILED: ' + ', '.join(failed)}")
    results["pass"] = not failed
    return results


def main(argv: list[str] | None = None) -> int:
    """:func:`bench.common.main_for`, but the exit status says whether every scenario passed."""
    args = parse_args(argv, DESCRIPTION)
    # SIGTERM (e.g. `timeout`) unwinds like Ctrl-C, so the private services are stopped and the
    # temp dir removed (atexit alone does not run on a signal).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    record = execute(sys.modules[__name__], quick=args.quick)
    return 0 if record.get("results", {}).get("pass", True) else 1


if __name__ == "__main__":
    raise SystemExit(main())
