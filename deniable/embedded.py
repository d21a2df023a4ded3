"""Embedded mode's stand-in for Celery beat: periodic work run in-process from page views.

Embedded mode (no ``REDIS_URL``: tasks run in-process, ``task_always_eager``) has no beat, so
the sweepers beat would schedule (stuck releases, surveys past their closing time) run from the
researcher's views instead, each at most once per interval per cache. With a broker this says
no: beat schedules them.
"""

from __future__ import annotations

# At most one in-process sweep of each kind per this many seconds (beat's period for both).
EMBEDDED_SWEEP_INTERVAL_SECONDS = 60


def embedded_sweep_due(key: str, *, interval: float = EMBEDDED_SWEEP_INTERVAL_SECONDS) -> bool:
    """True when tasks run in-process and no sweep under ``key`` ran in the last ``interval``
    seconds (this call then counts as that sweep). A cache outage answers False: a page must
    not fail for a sweep."""
    from celery import current_app
    from django.core.cache import cache

    if not current_app.conf.task_always_eager:
        return False
    try:
        return bool(cache.add(key, 1, interval))
    except Exception:  # noqa: BLE001 - any cache failure: skip this sweep, the page goes on
        return False
