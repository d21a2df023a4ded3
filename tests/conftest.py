"""Suite-wide hooks and fixtures (thin wrappers: the helpers live in ``testsupport``).

Tests that need a real service call :func:`testsupport.services.require_service`. In CI
(``CI=true``) or with ``DENIABLE_REQUIRE_SERVICES=1`` a missing service is a *failure*, never a
skip, so the tests that prove the product on PostgreSQL, Redis, a Celery worker and Chromium
always run there.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from hypothesis import settings as hypothesis_settings

from testsupport.processes import PrivateRedis, free_port
from testsupport.services import (
    database_is_postgres,
    redis_is_up,
    redis_url,
    require_service,
)
from testsupport.static_index import share_the_finders_index
from testsupport.xdist import group_items

# No per-example time limit in property tests: Hypothesis' default 200 ms deadline is a timed
# assertion, and on CI's two loaded cores a k-RR estimator example took 360 ms and failed. Speed
# is measured by bench/, never asserted in tests (DEVELOPERS.md, Standards).
hypothesis_settings.register_profile("deniable", deadline=None)
hypothesis_settings.load_profile("deniable")


def pytest_sessionstart(session: pytest.Session) -> None:
    """The static root the settings name, as ``manage.py`` would create it: importing settings
    creates nothing, and WhiteNoise warns about a missing directory."""
    from pathlib import Path

    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)
    # Every test client makes a middleware chain; WhiteNoise's static index is built once per
    # process instead of once per chain (testsupport/static_index.py says why).
    share_the_finders_index()


# trylast: -m, -k and --deselect see the items' own node ids before the groups are added.
@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Group the tests for pytest-xdist (:func:`testsupport.xdist.group_items`), then deselect
    ``sqlite_only`` tests when the suite runs on another database: they are about SQLite's own
    files (rowids, page copies). CI's main run is on PostgreSQL, and .ci/run runs
    ``-m "sqlite_only or both_backends"`` again on SQLite, so in CI they always run."""
    from django.conf import settings

    # On an xdist worker `--dist` reads "no"; xdist keeps `--dist loadgroup` as option.loadgroup.
    group_items(items, loadgroup=bool(getattr(config.option, "loadgroup", False)))
    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        return
    keep = [item for item in items if not item.get_closest_marker("sqlite_only")]
    if len(keep) != len(items):
        config.hook.pytest_deselected(
            items=[item for item in items if item.get_closest_marker("sqlite_only")]
        )
        items[:] = keep


@pytest.fixture(scope="session", autouse=True)
def _cache_of_this_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Under pytest-xdist (``-n``) every worker gets a cache no other worker touches.

    pytest-django already gives each worker its own test database, but with ``REDIS_URL`` set
    the cache (rate-limit counters, axes, the estimates cache) is one Redis database shared by
    all workers, and ``cache.clear()`` there is a FLUSHDB: one worker's test would wipe another's
    counters. So each worker starts a private ``redis-server`` on a free port and points the
    cache at it (the same backend, so the tests still run against Redis); without the binary the
    worker falls back to a per-process local-memory cache. A serial run (no ``-n``) is unchanged.
    """
    from django.conf import settings
    from django.test import override_settings

    worker = os.environ.get("PYTEST_XDIST_WORKER")
    backend = settings.CACHES["default"]["BACKEND"]
    if not worker or not backend.endswith("RedisCache"):
        yield
        return
    server: PrivateRedis | None = None
    if shutil.which("redis-server"):
        server = PrivateRedis(port=free_port(), workdir=tmp_path_factory.mktemp(f"redis-{worker}"))
        server.start()
        caches = {"default": {**settings.CACHES["default"], "LOCATION": server.url}}
    else:
        caches = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    with override_settings(CACHES=caches):
        yield
    if server is not None:
        server.stop()


@pytest.fixture
def require_postgres() -> None:
    require_service(database_is_postgres(), "PostgreSQL (DATABASE_URL=postgres://...)")


@pytest.fixture
def require_redis() -> str:
    url = redis_url() or "redis://127.0.0.1:6379/0"
    require_service(redis_is_up(url), f"Redis at {url}")
    return url


def _sqlite_flush_keeps_the_audit_triggers() -> None:
    """Between transactional tests Django empties every table with ``DELETE`` (SQLite has no
    TRUNCATE), which the audit log's append-only trigger refuses. The test database's flush (a
    test facility, never an app path) drops the audit triggers, empties, and re-creates them
    exactly as stored, so the append-only tests still meet the real triggers."""
    # Through the backend's module: importing .operations first is an import cycle in Django.
    from django.db.backends.sqlite3.base import DatabaseWrapper

    operations = DatabaseWrapper.ops_class
    original = operations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        statements = original(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
        if "audit_entry" not in tables:
            return statements
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' "
                "AND tbl_name = 'audit_entry'"
            )
            triggers = cursor.fetchall()
        drops = [f'DROP TRIGGER "{name}"' for name, _ in triggers]
        return [*drops, *statements, *(sql for _, sql in triggers)]

    operations.sql_flush = sql_flush


@pytest.fixture(scope="session", autouse=True)
def _audit_triggers_survive_the_sqlite_flush() -> None:
    # Patched once Django is set up (importing the SQLite backend from conftest itself is a cycle).
    _sqlite_flush_keeps_the_audit_triggers()


def _no_commit_flush_in_tests(sender: object, connection: object, **kwargs: object) -> None:
    """The suite's own PostgreSQL sessions acknowledge a commit before its WAL reaches the disk.

    Thousands of tests commit (transactional tests, live servers, every simulated respondent), and
    waiting for an fsync per commit was a large share of the suite's wall time on CI's disk.
    Durability after a crash is not what any in-process test checks; transactions, constraints,
    locks and visibility are unchanged. The crash tests (tests/integration/test_faults.py) run
    their own PostgreSQL cluster and gunicorn, whose sessions this never reaches.
    """
    if getattr(connection, "vendor", "") == "postgresql":
        with connection.cursor() as cursor:  # type: ignore[attr-defined]
            cursor.execute("SET synchronous_commit TO OFF")


@pytest.fixture(scope="session", autouse=True)
def _fast_commits_for_the_suite() -> None:
    from django.db import connections
    from django.db.backends.signals import connection_created

    connection_created.connect(_no_commit_flush_in_tests, dispatch_uid="tests-sync-commit-off")
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None:
            _no_commit_flush_in_tests(None, connection)


@pytest.fixture(autouse=True)
def _each_test_starts_in_the_default_language() -> Iterator[None]:
    """Django's locale middleware activates a request's language in the serving thread and leaves
    it there (the next request's middleware activates its own). The test client serves in the
    test's thread, so a Spanish respondent request in one test left the next test on that worker
    in Spanish (an order-dependent failure under xdist). In production every request sets its
    own language first (deniable/locale.py); here every test starts from LANGUAGE_CODE."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)
