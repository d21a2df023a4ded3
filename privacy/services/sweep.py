"""The sweeper: re-enqueue releases stuck pending or running (docs/architecture.md#tasks)."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from deniable.embedded import embedded_sweep_due
from privacy.models import Release
from privacy.services.enqueue import logger, release_enqueue


def releases_sweep(
    *, pending_after_seconds: float | None = None, running_after_seconds: float | None = None
) -> list[str]:
    """Re-enqueue releases stuck pending (enqueue lost, broker down) or running past the hard
    time limit (worker killed). Returns the ids re-enqueued (all of them are attempted)."""
    now = timezone.now()
    pending_after = (
        pending_after_seconds
        if pending_after_seconds is not None
        else settings.DENIABLE_RELEASE_PENDING_STALE_SECONDS
    )
    running_after = (
        running_after_seconds
        if running_after_seconds is not None
        else settings.DENIABLE_RELEASE_RUNNING_STALE_SECONDS
    )
    stale = list(
        Release.objects.filter(
            status=Release.Status.PENDING, created_at__lte=now - timedelta(seconds=pending_after)
        ).values_list("pk", flat=True)
    ) + list(
        Release.objects.filter(
            status=Release.Status.RUNNING, started_at__lte=now - timedelta(seconds=running_after)
        ).values_list("pk", flat=True)
    )
    sent = []
    for pk in stale:
        if release_enqueue(release_id=pk):
            sent.append(str(pk))
    if stale:
        logger.info("releases sweep: %d stale, %d re-enqueued", len(stale), len(sent))
    return sent


def releases_sweep_embedded() -> list[str]:
    """Embedded mode (eager tasks, no Celery beat): run :func:`releases_sweep` in-process, at most
    once a minute, from the researcher's release views (:mod:`deniable.embedded`). It finishes a
    release whose process died mid-task (``runserver`` restarted); in eager mode
    ``release_enqueue`` runs the task inline, and a task that fails there is failed and refunded.
    With a broker it does nothing: beat schedules the real sweeper."""
    return releases_sweep() if embedded_sweep_due("privacy:embedded-sweep") else []
