"""``GET /healthz``: database, cache and broker status.

Each check is bounded by short socket timeouts (settings), so a hung dependency makes the check
report ``error`` rather than hang. In embedded mode the broker is reported as ``eager``.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse


def _check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception:  # noqa: BLE001 — any failure means "not healthy"; details stay in the logs
        return "error"
    return "ok"


def _check_cache() -> str:
    probe = f"healthz:{uuid.uuid4().hex}"
    try:
        cache.set(probe, "1", timeout=5)
        ok = cache.get(probe) == "1"
        cache.delete(probe)
    except Exception:  # noqa: BLE001
        return "error"
    return "ok" if ok else "error"


def _check_broker() -> str:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return "eager"
    from deniable.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
    except Exception:  # noqa: BLE001
        return "error"
    return "ok"


def healthz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check_database(), "cache": _check_cache(), "broker": _check_broker()}
    healthy = all(value in {"ok", "eager"} for value in checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "degraded", "checks": checks},
        status=200 if healthy else 503,
    )
