"""Celery tasks for releases (docs/architecture.md#tasks). Thin: the logic lives in
:mod:`privacy.services`.

* ``release_compute(release_id)`` — takes an id; locks the row; skips finished releases, so a
  redelivered message (``acks_late`` + ``reject_on_worker_lost`` in settings) is harmless;
  retries with exponential backoff while the row is not visible yet (``ObjectDoesNotExist``) or
  the database is briefly unreachable; soft/hard time limits well under the broker's visibility
  timeout.
* ``releases_sweep()`` — periodic (``CELERY_BEAT_SCHEDULE``): re-enqueues releases stuck pending
  or running past the hard time limit.
"""

from __future__ import annotations

from celery import shared_task
from django.core.exceptions import ObjectDoesNotExist
from django.db import InterfaceError, OperationalError

from privacy import services

RELEASE_SOFT_TIME_LIMIT = 120
RELEASE_TIME_LIMIT = 150


@shared_task(
    name="privacy.tasks.release_compute",
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(ObjectDoesNotExist, OperationalError, InterfaceError),
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=6,
    soft_time_limit=RELEASE_SOFT_TIME_LIMIT,
    time_limit=RELEASE_TIME_LIMIT,
    ignore_result=True,
)
def release_compute(release_id: str) -> str:
    return services.release_run(release_id=release_id)


# Both limits explicitly: a task that sets only time_limit inherits the global soft limit (240 s),
# and Celery refuses to send a task whose soft limit exceeds its hard one. The sweeper then never
# ran under beat ("Couldn't apply scheduled task", issue 21 item 10);
# tests/privacy/test_task_limits.py checks every task.
@shared_task(
    name="privacy.tasks.releases_sweep", ignore_result=True, soft_time_limit=50, time_limit=60
)
def releases_sweep() -> list[str]:
    return services.releases_sweep()
