"""The privacy budget: charge it under a row lock, refund a failed release
(docs/privacy-model.md#budget, docs/architecture.md#release-flow).

:func:`release_request` charges the budget *before* anything runs, in ONE transaction that
holds a lock on the survey row (``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite, which ignores
it, a no-op UPDATE of the row takes the database write lock at the start of the transaction):
all non-refunded ledger events + the new ones are composed with
:func:`dpcore.central.accounting.epsilon_spent` at the survey's δ; over ``budget_epsilon`` → 409
``budget_exceeded`` with what remains. Otherwise the ``Release`` (pending) and its
``LedgerEntry`` are created and the task is enqueued on commit. Broker failures are logged and
swallowed: the release stays pending and :func:`privacy.services.sweep.releases_sweep`
re-enqueues it.

:func:`privacy.services.refund.release_fail` refunds the charge of a release that failed before
storing any result.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F

from deniable.errors import Conflict
from dpcore.central import accounting
from privacy.models import LedgerEntry, Release
from privacy.selectors import survey_ledger_events
from privacy.services.enqueue import release_enqueue
from privacy.services.plan import release_plan
from privacy.specs import ReleaseSpec
from surveys.models import Survey


def _lock_survey(survey: Survey) -> Survey:
    """Take the survey's budget lock for the rest of the current transaction.

    PostgreSQL: ``SELECT … FOR UPDATE`` on the survey row. SQLite ignores FOR UPDATE, so a no-op
    UPDATE takes the database write lock up front (SQLite has one writer at a time), which
    serializes concurrent charges as well.
    """
    if connection.vendor == "sqlite":
        Survey.objects.filter(pk=survey.pk).update(budget_epsilon=F("budget_epsilon"))
        return Survey.objects.get(pk=survey.pk)
    return Survey.objects.select_for_update().get(pk=survey.pk)


def _remaining(survey: Survey, spent: float) -> dict[str, float]:
    return {
        "epsilon": max(0.0, survey.budget_epsilon - spent),
        "delta": survey.budget_delta,
    }


def release_request(
    *, survey: Survey, user: User | None, spec: ReleaseSpec
) -> tuple[Release, bool]:
    """Charge the budget and create a pending release; enqueue it on commit.

    ``spec`` is a request validated by :class:`privacy.inputs.ReleaseRequestSerializer`.

    Returns ``(release, created)``. The same ``request_id`` again returns the existing release
    with ``created=False`` and charges nothing (whatever the rest of the body says).
    Raises :class:`InvalidInput` (400) or :class:`Conflict` ``budget_exceeded`` (409); neither
    writes anything.
    """
    plan = release_plan(survey=survey, spec=spec)
    with transaction.atomic():
        locked = _lock_survey(survey)
        if locked.status == Survey.Status.ARCHIVED:
            # Read-only (docs/teams.md#archiving): unarchive to publish anything new.
            raise Conflict(
                "The survey is archived: it is read-only. Unarchive it to request a release.",
                code="survey_archived",
            )
        if plan.request_id is not None:
            existing = Release.objects.filter(survey=locked, request_id=plan.request_id).first()
            if existing is not None:
                return existing, False
        before = survey_ledger_events(survey=locked)
        spent_before = accounting.epsilon_spent(before, locked.budget_delta).epsilon
        if not accounting.can_afford(
            before, plan.events, locked.budget_epsilon, locked.budget_delta
        ):
            after = accounting.epsilon_spent([*before, *plan.events], locked.budget_delta)
            raise Conflict(
                f"This release would bring the composed ε to {after.epsilon:.6g} "
                f"({after.method}), over the survey's budget of {locked.budget_epsilon:g}.",
                code="budget_exceeded",
                remaining=_remaining(locked, spent_before),
            )
        release = Release.objects.create(
            survey=locked,
            requested_by=user if getattr(user, "is_authenticated", False) else None,
            request_id=plan.request_id,
            mechanism=plan.mechanism,
            epsilon=plan.epsilon,
            delta=plan.delta,
            rho=plan.rho,
            noise_scale=plan.noise_scale,
            l1_sensitivity=plan.l1_sensitivity,
            l2_sensitivity=plan.l2_sensitivity,
            questions=plan.questions,
            group_by=plan.group_by,
        )
        LedgerEntry.objects.create(survey=locked, release=release, event=plan.event)
        release_id = release.pk
        transaction.on_commit(lambda: release_enqueue(release_id=release_id))
    return release, True
