"""Enqueueing a release's compute task (docs/architecture.md#tasks).

With a broker (``REDIS_URL``), broker failures are logged and swallowed: the release stays
pending and :func:`privacy.services.sweep.releases_sweep` (Celery beat) re-enqueues it.

Embedded mode (``CELERY_TASK_ALWAYS_EAGER``, what ``make run`` uses) has no worker, no beat and no
sweeper: the task runs inside this call, and Celery's eager retries run at once, back to back. A
task that still raises there would leave the release pending or running forever with its budget
charged (issue 11, item 4), so here it is failed and refunded instead; nothing else would ever
finish it. :func:`privacy.services.sweep.releases_sweep_embedded` covers a process that died
mid-task.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from celery import current_app

from privacy.services.refund import release_fail

# The name the services have always logged under (one logger for the whole package).
logger = logging.getLogger("privacy.services")

#: The compute task's registered name (``privacy.tasks``; registered by ``PrivacyConfig.ready``).
RELEASE_COMPUTE_TASK = "privacy.tasks.release_compute"


def _compute_task() -> Any:
    """The compute task, looked up by name in the Celery app's registry.

    Not imported: :mod:`privacy.tasks` imports the services (its bodies call them), so the
    services importing the task module would make a cycle. The dependency runs one way, tasks →
    services; the services know the task by its name only.
    """
    return current_app.tasks[RELEASE_COMPUTE_TASK]


def _eager() -> bool:
    """Tasks run in-process (the Celery app's own setting, which tests may switch)."""
    return bool(_compute_task().app.conf.task_always_eager)


def release_enqueue(*, release_id: uuid.UUID | str) -> bool:
    """Send the compute task to the broker (or run it, embedded); never raises.

    ``retry=False``: with the broker socket timeouts from settings a dead or hung Redis fails in
    seconds instead of blocking the request (docs/architecture.md#tasks).
    """
    try:
        release_compute = _compute_task()
        release_compute.apply_async(args=[str(release_id)], retry=False)
    except Exception as exc:  # any broker failure: leave it pending for the sweeper
        logger.debug("release %s: enqueue error", release_id, exc_info=True)
        if _eager():
            return _fail_embedded(release_id, exc)
        logger.warning(
            "release %s: enqueue failed (%s); it stays pending for the sweeper",
            release_id,
            type(exc).__name__,
        )
        return False
    return True


def _fail_embedded(release_id: uuid.UUID | str, exc: BaseException) -> bool:
    """Embedded mode: the in-process task gave up; fail the release and refund its charge."""
    logger.warning(
        "release %s: in-process task failed (%s); refunded", release_id, type(exc).__name__
    )
    try:
        release_fail(
            release_id=release_id,
            error=f"The computation failed ({type(exc).__name__}); the charge is refunded.",
        )
    except Exception:  # the database itself is unusable: the embedded sweep retries later
        logger.exception("release %s: could not record the failure", release_id)
    return False
