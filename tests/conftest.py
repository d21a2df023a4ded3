"""Shared test fixtures.

Tests that need a real service call :func:`require_service`. In CI (``CI=true``) or with
``DENIABLE_REQUIRE_SERVICES=1`` a missing service is a *failure*, never a skip, so the tests that
prove the product on PostgreSQL, Redis, a Celery worker and Chromium always run there.
"""

from __future__ import annotations

import os

import pytest


def pytest_sessionstart(session: pytest.Session) -> None:
    """The static root the settings name, as ``manage.py`` would create it: importing settings
    creates nothing, and WhiteNoise warns about a missing directory."""
    from pathlib import Path

    from django.conf import settings

    Path(settings.STATIC_ROOT).mkdir(parents=True, exist_ok=True)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect ``sqlite_only`` tests when the suite runs on another database: they are about
    SQLite's own files (rowids, page copies). CI's main run is on PostgreSQL, and .ci/run runs
    ``-m "sqlite_only or both_backends"`` again on SQLite, so in CI they always run."""
    from django.conf import settings

    if settings.DATABASES["default"]["ENGINE"].endswith("sqlite3"):
        return
    keep = [item for item in items if not item.get_closest_marker("sqlite_only")]
    if len(keep) != len(items):
        config.hook.pytest_deselected(
            items=[item for item in items if item.get_closest_marker("sqlite_only")]
        )
        items[:] = keep


def services_required() -> bool:
    return os.environ.get("CI") == "true" or os.environ.get("DENIABLE_REQUIRE_SERVICES") == "1"


def require_service(available: bool, what: str) -> None:
    if available:
        return
    if services_required():
        pytest.fail(f"{what} is required in CI but is not available", pytrace=False)
    pytest.skip(f"{what} is not available (set it up to run this test; CI requires it)")


def database_is_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


def redis_url() -> str:
    return os.environ.get("REDIS_URL", "")


def redis_is_up(url: str | None = None) -> bool:
    url = url or redis_url() or "redis://127.0.0.1:6379/0"
    try:
        import redis

        return bool(redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1).ping())
    except Exception:  # noqa: BLE001
        return False


@pytest.fixture
def require_postgres() -> None:
    require_service(database_is_postgres(), "PostgreSQL (DATABASE_URL=postgres://...)")


@pytest.fixture
def require_redis() -> str:
    url = redis_url() or "redis://127.0.0.1:6379/0"
    require_service(redis_is_up(url), f"Redis at {url}")
    return url
