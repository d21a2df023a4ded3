"""Refunding a release that failed before storing any result (docs/privacy-model.md#budget,
docs/architecture.md#release-flow).

Its own module because both the charging side (:mod:`~privacy.services.budget`, through the
enqueue) and the running side (:mod:`~privacy.services.run`) need it: importing it from the
budget module made ``budget → enqueue → budget`` an import cycle.
"""

from __future__ import annotations

import logging
import uuid

from django.db import transaction
from django.utils import timezone

from privacy.models import LedgerEntry, Release
from privacy.services import spent

logger = logging.getLogger(__name__)


def release_fail(*, release_id: uuid.UUID | str, error: str) -> Release | None:
    """Mark a release failed and refund its charge — only if no result was stored (not done).

    Then the stored spent figure is recomputed outside the transaction (it over-states the spend
    until then, never under-states it); a failure there only leaves it stale."""
    with transaction.atomic():
        release = Release.objects.select_for_update().filter(pk=release_id).first()
        if release is None or release.is_final:
            return release
        release.status = Release.Status.FAILED
        release.error = error[:2000]
        release.finished_at = timezone.now()
        release.save(update_fields=["status", "error", "finished_at"])
        refunded = LedgerEntry.objects.filter(release=release, refunded=False).update(
            refunded=True, refunded_at=timezone.now()
        )
    if refunded:
        try:
            spent.state_refresh(survey=release.survey)
        except Exception:  # the stale figure is an upper bound: the refund itself stands
            logger.exception("release %s: the stored budget figure was not refreshed", release.pk)
    return release
