"""The private stack of the load-and-faults benchmark (``bench/faults.py``): a PostgreSQL 15
cluster initdb'd into a temp dir, a redis-server on a free port, gunicorn and a celery worker,
all on free ports and removed at exit; when it can run at all (:func:`unavailable`); and the
random submissions its load sends."""

from __future__ import annotations

import atexit
import contextlib
import http.client
import importlib.util
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench.loadgen import LoadResult, json_body, run_load
from testsupport.processes import PrivateRedis, free_port, wait_until

ROOT = Path(__file__).resolve().parent.parent
PG_BIN = Path(os.environ.get("DENIABLE_PG_BIN", "/usr/lib/postgresql/15/bin"))
HOST = "127.0.0.1"
RAMP = (1, 2, 4, 8, 16)
GUNICORN_WORKERS = 2
GUNICORN_THREADS = 4
# Big enough to never trigger, small enough that the limiter (and so the cache) is in the path.
LIMITER_ON = 10**9
ANSWERED_QUESTIONS = 10

# Submissions per published batch in the private stack (its servers' environment sets it).
STACK_ESTIMATE_BATCH = 10

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
    for path in (PG_BIN / "initdb", PG_BIN / "pg_ctl"):
        if not path.exists():
            return f"{path} is missing"
    # Run as `python -m`: the bench venv has no console scripts of its own (Makefile, bench venv).
    for module in ("gunicorn", "celery"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not importable by {sys.executable}"
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
from accounts.services import api_token_replace
from surveys.inputs import survey_spec
from surveys.services import survey_create, survey_open
user, _ = get_user_model().objects.get_or_create(username="faults")
token = api_token_replace(user=user, name="faults")
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

    def publish_stranded(self) -> int:
        """What beat's ``surveys-publish-stranded`` does within a minute (the stack runs no beat):
        publish the batches that came due unseen; returns how many surveys had one."""
        out = self.django(
            "from surveys.services.batches import submissions_publish_stranded; "
            "print(len(submissions_publish_stranded()))"
        )
        return int(out)

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
            [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py",
             "deniable.wsgi:application"],
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
                sys.executable, "-m", "celery", "-A", app, "worker", "-l", "INFO", "--pool=solo",
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
