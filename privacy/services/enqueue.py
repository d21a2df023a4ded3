"""Enqueueing a release's compute task (DESIGN.md §6).

Broker failures are logged and swallowed: the release stays pending and
:func:`privacy.services.sweep.releases_sweep` re-enqueues it.
"""

from __future__ import annotations

import logging
import uuid

# The name the services have always logged under (one logger for the whole package).
logger = logging.getLogger("privacy.services")


def release_enqueue(*, release_id: uuid.UUID | str) -> bool:
    """Send the compute task to the broker; never raises (a failure leaves it to the sweeper).

    ``retry=False``: with the broker socket timeouts from settings a dead or hung Redis fails in
    seconds instead of blocking the request (DESIGN.md §6).
    """
    from privacy.tasks import release_compute

    try:
        release_compute.apply_async(args=[str(release_id)], retry=False)
    except Exception as exc:  # any broker failure: leave it pending for the sweeper
        logger.debug("release %s: enqueue error", release_id, exc_info=True)
        logger.warning(
            "release %s: enqueue failed (%s); it stays pending for the sweeper",
            release_id,
            type(exc).__name__,
        )
        return False
    return True
