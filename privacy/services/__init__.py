"""Releases and the privacy budget: validate, charge, run, refund
(docs/architecture.md#release-flow).

Request → plan → charge → task:

0. :mod:`privacy.inputs` — the input serializer validates the request body into a frozen
   :class:`privacy.specs.ReleaseSpec` (the API, commands and tests alike).
1. :mod:`~privacy.services.plan` — :func:`release_plan` derives the noise, writing nothing (the
   sensitivity argument is there; the per-contribution scaling in
   :mod:`~privacy.services.sensitivity`).
2. :mod:`~privacy.services.budget` — :func:`release_request` charges the budget under a lock on
   the survey row and creates the pending release; :mod:`~privacy.services.enqueue` sends the task
   on commit, and :mod:`~privacy.services.sweep` re-enqueues releases that got stuck.
3. :mod:`~privacy.services.run` — :func:`release_run` (the Celery task body) computes the results
   (:mod:`~privacy.services.results`) and stores them, or fails and refunds the release.

:mod:`~privacy.services.preview` tells what a release would cost and how accurate it would be.
"""

from privacy.services.budget import release_request
from privacy.services.enqueue import logger, release_enqueue
from privacy.services.plan import (
    MECHANISMS,
    PARAMETER_RANGES,
    ReleasePlan,
    release_plan,
)
from privacy.services.preview import release_preview
from privacy.services.refund import release_fail
from privacy.services.results import DEFAULT_CONFIDENCE, release_results
from privacy.services.run import MAX_ATTEMPTS, release_run
from privacy.services.sensitivity import contribution_count
from privacy.services.sweep import releases_sweep, releases_sweep_embedded

__all__ = [
    "DEFAULT_CONFIDENCE",
    "MAX_ATTEMPTS",
    "MECHANISMS",
    "PARAMETER_RANGES",
    "ReleasePlan",
    "contribution_count",
    "logger",
    "release_enqueue",
    "release_fail",
    "release_plan",
    "release_preview",
    "release_request",
    "release_results",
    "release_run",
    "releases_sweep",
    "releases_sweep_embedded",
]
