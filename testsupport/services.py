"""Which real services a test may use, and what happens when one is missing.

Tests that need a real service call :func:`require_service`. In CI (``CI=true``) or with
``DENIABLE_REQUIRE_SERVICES=1`` a missing service is a *failure*, never a skip, so the tests that
prove the product on PostgreSQL, Redis, a Celery worker and Chromium always run there.
"""

from __future__ import annotations

import os

import pytest


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
