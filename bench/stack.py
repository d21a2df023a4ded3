"""The services the HTTP/database benchmarks (items 1, 2, 3, 6) run against.

* PostgreSQL at ``BENCH_PG_URL`` (default ``postgres://postgres@127.0.0.1:5432``): a dedicated
  database ``deniable_bench`` (``BENCH_DB``) is created and migrated here, with the bench-only
  settings ``bench.settings_bench`` (the product settings + the DRF baseline endpoint);
* Redis at ``BENCH_REDIS_URL`` (default ``redis://127.0.0.1:6379/7``: a database number of its
  own, so a bench worker never takes other people's tasks);
* gunicorn (the project's ``gunicorn.conf.py``) and a Celery worker as subprocesses;
* process CPU time and peak RSS read from ``/proc`` (no psutil in the app's requirements).

The bench process itself sets up Django on the same settings (bulk loads, checks, in-process
timings), once: every DB benchmark of a ``run_all`` shares that set-up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from testsupport.processes import free_port

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("BENCH_PG_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")
DB_NAME = os.environ.get("BENCH_DB", "deniable_bench")
# BENCH_DATABASE_URL=sqlite:////path/file.sqlite3 runs the benches that support it on the embedded
# SQLite default instead (bench.http_throughput: issue 24 goal 1 asks for both backends).
DATABASE_URL = os.environ.get("BENCH_DATABASE_URL", f"{PG_URL}/{DB_NAME}")
SQLITE = DATABASE_URL.startswith("sqlite")
REDIS_URL = os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/7")
SETTINGS = "bench.settings_bench"
CLK_TCK = os.sysconf("SC_CLK_TCK")


def bench_env(**extra: str) -> dict[str, str]:
    """Environment of every bench subprocess (and of this process's Django)."""
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE=SETTINGS,
        DATABASE_URL=DATABASE_URL,
        REDIS_URL=REDIS_URL,
        DJANGO_DEBUG="false",
        LOG_LEVEL="WARNING",
        # Load runs measure the endpoint, not the per-survey flood limit.
        DENIABLE_SUBMISSION_RATE_LIMIT="0",
        PYTHONPATH=str(ROOT),
    )
    env.update(extra)
    return env


# --------------------------------------------------------------------------- availability


def _pg_ok() -> str | None:
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    try:
        with psycopg.connect(f"{PG_URL}/postgres", connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - any failure means "no PostgreSQL here"
        return f"needs PostgreSQL at {PG_URL} ({type(exc).__name__})"
    return None


def _redis_ok() -> str | None:
    try:
        import redis
    except ImportError:
        return "redis-py is not installed"
    try:
        redis.Redis.from_url(REDIS_URL, socket_timeout=2, socket_connect_timeout=2).ping()
    except Exception as exc:  # noqa: BLE001
        return f"needs Redis at {REDIS_URL} ({type(exc).__name__})"
    return None


def need(*, postgres: bool = False, redis: bool = False, tools: tuple[str, ...] = ()) -> str | None:
    """The reason a benchmark cannot run here, or None."""
    if postgres and (reason := _pg_ok()):
        return reason
    if redis and (reason := _redis_ok()):
        return reason
    for tool in tools:
        if shutil.which(tool) is None:
            hint = {"wrk": "apt-get install wrk", "pgbench": "apt-get install postgresql-client"}
            return f"needs `{tool}` on PATH ({hint.get(tool, 'install it')})"
    return None


def ensure_wrk() -> str | None:
    """Install Debian's ``wrk`` when missing and we may (root + apt-get); None when present."""
    if shutil.which("wrk"):
        return None
    if shutil.which("apt-get") and os.geteuid() == 0:
        print("wrk not found: apt-get install -y wrk …")
        subprocess.run(
            ["apt-get", "install", "-y", "-q", "wrk"],
            check=False,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )
    if shutil.which("wrk"):
        return None
    return "needs `wrk` (Debian: apt-get install wrk); could not install it here"


# --------------------------------------------------------------------------- database + Django


def ensure_database() -> None:
    """Create ``deniable_bench`` if missing and migrate it (idempotent, a few seconds); on SQLite
    the file is created by the migration itself."""
    if not SQLITE:
        import psycopg

        with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
            exists = conn.execute(
                "SELECT 1 FROM pg_database WHERE datname = %s", [DB_NAME]
            ).fetchone()
            if not exists:
                conn.execute(f'CREATE DATABASE "{DB_NAME}"')
    # --run-syncdb creates the bench-only baseline table (its app has no migrations on purpose).
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--run-syncdb", "-v", "0"],
        cwd=ROOT,
        env=bench_env(),
        check=True,
    )


_django_ready = False


def django_setup() -> None:
    """Set up Django in this process on the bench settings and database (once)."""
    global _django_ready
    if _django_ready:
        return
    for key, value in bench_env().items():
        if key in {
            "DJANGO_SETTINGS_MODULE",
            "DATABASE_URL",
            "REDIS_URL",
            "DJANGO_DEBUG",
            "DENIABLE_SUBMISSION_RATE_LIMIT",
        }:
            os.environ[key] = value
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    _django_ready = True


def bench_owner():
    from django.contrib.auth import get_user_model

    user, _ = get_user_model().objects.get_or_create(username="bench")
    return user


# --------------------------------------------------------------------------- /proc


def proc_cpu_seconds(pid: int) -> float:
    """utime + stime of one process (fields 14 and 15 of /proc/<pid>/stat)."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = raw.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_status_kib(pid: int, key: str) -> int | None:
    """A ``/proc/<pid>/status`` figure in KiB (``VmHWM`` = peak RSS, ``VmRSS`` = current)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def established_per_process(pids: Sequence[int], port: int) -> dict[int, int]:
    """How many ESTABLISHED TCP connections to local ``port`` each process holds: its fds that
    are sockets (``/proc/<pid>/fd`` → ``socket:[inode]``) matched against ``/proc/net/tcp{,6}``
    (state 01; the local address's port is the hex after the colon)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                f = line.split()
                if f[3] == "01" and int(f[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f[9])
    counts: dict[int, int] = {}
    for pid in pids:
        n = 0
        with contextlib.suppress(OSError):
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    link = os.readlink(fd)
                    n += link.startswith("socket:[") and link[8:-1] in inodes
        counts[pid] = n
    return counts


def children(pid: int) -> list[int]:
    out: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                out += [int(c) for c in (task / "children").read_text().split()]
    return out


def postgres_backends(dbname: str = DB_NAME) -> list[int]:
    """PIDs of the PostgreSQL backends serving ``dbname`` (their title names the database)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if cmd.startswith("postgres: ") and f" {dbname} " in cmd:
            pids.append(int(entry.name))
    return pids


class CpuMeter:
    """CPU seconds used by a changing set of processes between ``start()`` and ``stop()``."""

    def __init__(self, pids_fn) -> None:
        self.pids_fn = pids_fn
        self.before: dict[int, float] = {}

    def start(self) -> None:
        self.before = {pid: proc_cpu_seconds(pid) for pid in self.pids_fn()}

    def stop(self) -> float:
        # A process born during the interval counts from zero.
        return sum(proc_cpu_seconds(p) - self.before.get(p, 0.0) for p in self.pids_fn())


def loadavg() -> float:
    return float(Path("/proc/loadavg").read_text().split()[0])


def cpu_times() -> tuple[int, int]:
    """(idle + iowait, all) jiffies of the whole machine (``/proc/stat``'s ``cpu`` line)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return fields[3] + fields[4], sum(fields)


def idle_share(before: tuple[int, int]) -> float:
    """The machine's idle share since ``before`` (:func:`cpu_times`): 0 means every core busy."""
    idle, total = cpu_times()
    return (idle - before[0]) / max(1, total - before[1])


# --------------------------------------------------------------------------- servers


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # any HTTP answer means it is up
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


@contextlib.contextmanager
def gunicorn(
    *,
    workers: int,
    threads: int,
    extra_env: Mapping[str, str] | None = None,
    connections_per_worker: int | None = None,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """The project's gunicorn.conf.py on a free loopback port; yields (base URL, master).
    ``connections_per_worker`` caps what one worker accepts (gunicorn's ``worker_connections``;
    None keeps gunicorn.conf.py's)."""
    port = free_port()
    cap = {} if connections_per_worker is None else {
        "GUNICORN_WORKER_CONNECTIONS": str(connections_per_worker)}  # fmt: skip
    env = bench_env(
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY=str(workers),
        GUNICORN_THREADS=str(threads),
        **cap,
        **dict(extra_env or {}),
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "gunicorn.conf.py", "deniable.wsgi:application"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,  # the access log: one line per request, not wanted here
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/healthz")
        deadline = time.monotonic() + 20
        while len(children(proc.pid)) < workers and time.monotonic() < deadline:
            time.sleep(0.1)
        yield base, proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=25)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def celery_worker(*, concurrency: int = 1) -> Iterator[subprocess.Popen]:
    """A real Celery worker (prefork) on the bench Redis; yields the main process."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "deniable",
            "worker",
            "-l",
            "WARNING",
            "--concurrency",
            str(concurrency),
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
            "-n",
            f"bench-{os.getpid()}@%h",
        ],
        cwd=ROOT,
        env=bench_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while not children(proc.pid):  # the pool child exists once the worker is ready
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"celery worker did not start: {proc.stderr.read()[-2000:]}")
            time.sleep(0.2)
        time.sleep(1.0)  # let it connect to the broker and start consuming
        yield proc
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
