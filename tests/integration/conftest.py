"""Real services for the integration tests: PostgreSQL (pytest-django's test database), a PRIVATE
Redis server, and real ``celery worker`` subprocesses.

* Redis: a ``redis-server --port <free> --save "" --appendonly no`` subprocess per session, so
  the tests can SIGSTOP / SIGCONT / kill it without touching the machine's shared Redis (and no
  other engineer's worker can steal our tasks). The test process's Celery app is pointed at it
  and made non-eager for the test (``celery_broker``); the DB is flushed after each test.
* Workers: ``.venv/bin/celery -A deniable worker --pool=solo`` subprocesses with
  ``DJANGO_SETTINGS_MODULE=deniable.settings.base`` (non-eager because ``REDIS_URL`` is set),
  ``DATABASE_URL`` = the pytest-django test database, ``REDIS_URL`` = the private Redis.
  ``--pool=solo`` keeps the task in the main process, so SIGKILL really kills the task.
  ``workers.start(DENIABLE_RELEASE_STORE_DELAY="60")`` starts the worker from
  :mod:`tests.integration.slow_store`, whose release task sleeps holding its row lock just before
  storing results, so a test can kill it mid-task deterministically.

* Beat: ``beat`` starts ``celery -A deniable beat`` with the product's HeartbeatScheduler,
  sweeping every second; it yields the process, its log and a ``healthy()`` probe (the
  container's health check, ``python -m deniable.beat``).

Locally these skip when PostgreSQL or ``redis-server`` is missing; in CI they fail instead.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import pytest

from testsupport.processes import PrivateRedis, free_port, wait_until
from testsupport.services import require_service

ROOT = Path(__file__).resolve().parents[2]
CELERY = ROOT / ".venv" / "bin" / "celery"


@pytest.fixture(scope="session")
def private_redis(tmp_path_factory) -> Iterator[PrivateRedis]:
    require_service(shutil.which("redis-server") is not None, "redis-server (the binary)")
    server = PrivateRedis(port=free_port(), workdir=tmp_path_factory.mktemp("redis"))
    server.start()
    yield server
    server.stop()


def _database_url() -> str:
    from django.db import connection

    cfg = connection.settings_dict
    user = quote(cfg.get("USER") or "", safe="")
    password = quote(cfg.get("PASSWORD") or "", safe="")
    auth = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = cfg.get("HOST") or "127.0.0.1"
    port = cfg.get("PORT") or "5432"
    return f"postgres://{auth}{host}:{port}/{cfg['NAME']}"


@pytest.fixture
def celery_broker(private_redis, require_postgres, transactional_db, settings) -> Iterator[str]:
    """Point this process's Celery app (and Django's cache) at the private Redis, non-eager."""
    from deniable.celery import app

    saved = {k: app.conf[k] for k in ("broker_url", "task_always_eager")}

    def reset_pools() -> None:
        # Drop the app's references only: kombu keeps one global pool per broker URL, and
        # closing it would leave a closed pool registered for the next test.
        app._pool = None
        app.amqp._producer_pool = None

    reset_pools()
    app.conf.update(broker_url=private_redis.url, task_always_eager=False)
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": private_redis.url.replace("/0", "/1"),
            "OPTIONS": {"socket_timeout": 2, "socket_connect_timeout": 2},
        }
    }
    yield private_redis.url
    private_redis.resume()
    reset_pools()
    app.conf.update(**saved)
    if private_redis.ping():
        private_redis.flush()


@dataclass
class Worker:
    process: subprocess.Popen
    log: Path

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(10)


@dataclass
class WorkerFactory:
    broker_url: str
    tmp: Path
    workers: list[Worker] = field(default_factory=list)

    def start(self, **extra_env: str) -> Worker:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "deniable.settings.base",
            "DATABASE_URL": _database_url(),
            "REDIS_URL": self.broker_url,
            "DENIABLE_VAR_DIR": str(self.tmp),
            "DB_CONN_MAX_AGE": "0",
            "PYTHONUNBUFFERED": "1",
            **extra_env,
        }
        env.pop("CI", None)  # nothing in the worker needs it
        log = self.tmp / f"worker-{len(self.workers)}.log"
        process = subprocess.Popen(
            [
                str(CELERY) if CELERY.exists() else sys.executable.replace("python", "celery"),
                "-A",
                # The slow-store app only when a delay is asked for (no hook in production code).
                "tests.integration.slow_store"
                if "DENIABLE_RELEASE_STORE_DELAY" in extra_env
                else "deniable",
                "worker",
                "-l",
                "INFO",
                "--pool=solo",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-n",
                f"it{len(self.workers)}@%h",
            ],
            cwd=ROOT,
            env=env,
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker = Worker(process, log)
        self.workers.append(worker)
        if not wait_until(lambda: " ready." in worker.output() or process.poll() is not None, 60):
            raise RuntimeError(f"celery worker did not start:\n{worker.output()}")
        if process.poll() is not None:
            raise RuntimeError(f"celery worker exited:\n{worker.output()}")
        return worker

    def stop_all(self) -> None:
        for worker in self.workers:
            if worker.process.poll() is None:
                worker.process.send_signal(signal.SIGTERM)
                try:
                    worker.process.wait(10)
                except subprocess.TimeoutExpired:
                    worker.kill()


@pytest.fixture
def workers(celery_broker, tmp_path) -> Iterator[WorkerFactory]:
    factory = WorkerFactory(broker_url=celery_broker, tmp=tmp_path)
    yield factory
    factory.stop_all()
    from django.db import connections

    connections.close_all()


@pytest.fixture
def beat(celery_broker, tmp_path):
    """``celery beat`` with the product's scheduler (heartbeat and apply-failure record)."""
    heartbeat = tmp_path / "heartbeat"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "deniable.settings.base",
        "DATABASE_URL": _database_url(),
        "REDIS_URL": celery_broker,
        "DENIABLE_VAR_DIR": str(tmp_path),
        "DENIABLE_BEAT_HEARTBEAT": str(heartbeat),
        "PYTHONUNBUFFERED": "1",
        # Sweep every second, a pending release stale after one (fast tests).
        "DENIABLE_RELEASE_SWEEP_SECONDS": "1",
        "DENIABLE_RELEASE_PENDING_STALE_SECONDS": "1",
        "DENIABLE_CLOSE_SWEEP_SECONDS": "1",  # and close surveys past their closing time
        "DENIABLE_PUBLISH_SWEEP_SECONDS": "1",  # and publish stranded batches
    }
    env.pop("CI", None)
    log = tmp_path / "beat.log"
    celery = str(CELERY) if CELERY.exists() else sys.executable.replace("python", "celery")
    process = subprocess.Popen(
        [
            celery,
            "-A",
            "deniable",
            "beat",
            "-l",
            "INFO",
            "-S",
            "deniable.beat:HeartbeatScheduler",
            "--schedule",
            str(tmp_path / "beat-schedule"),
        ],
        cwd=ROOT,
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    health = [sys.executable, "-m", "deniable.beat"]

    def healthy() -> bool:
        return (
            subprocess.run(health, env=env, cwd=ROOT, capture_output=True, timeout=30).returncode
            == 0
        )

    yield process, log, healthy
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
