"""A Celery app whose release task sleeps while holding its row lock, just before it stores the
results, so a test can SIGKILL the worker mid-task deterministically.

Start a worker with ``celery -A tests.integration.slow_store worker …`` and
``DENIABLE_RELEASE_STORE_DELAY=<seconds>`` in its environment (used by the integration tests and
``bench/faults.py``). Production code has no such hook: the delay wraps
``privacy.services.run.release_results``, the last computation before the results are saved in
the same transaction.
"""

from __future__ import annotations

import os
import time
from typing import Any

import django

from deniable.celery import app

django.setup()

from privacy.services import run  # noqa: E402 — needs the app registry set up just above

DELAY_SECONDS = float(os.environ.get("DENIABLE_RELEASE_STORE_DELAY", "0") or 0)
_compute = run.release_results


def _compute_then_wait(**kwargs: Any) -> Any:
    results = _compute(**kwargs)
    time.sleep(DELAY_SECONDS)
    return results


run.release_results = _compute_then_wait

__all__ = ["app"]
