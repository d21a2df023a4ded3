"""The privacy budget: charge it under a row lock, refund a failed release
(docs/privacy-model.md#budget, docs/architecture.md#release-flow).

:func:`release_request` charges the budget *before* anything runs. The tight composed ε
(:func:`dpcore.central.accounting.epsilon_spent` of the non-refunded ledger + the new events at
the survey's δ) is computed first, *holding no lock* (it may take a while: ≈ 5 ms per distinct
discrete-Gaussian event on a cold worker). Then ONE transaction takes the lock on the survey row
(``SELECT … FOR UPDATE`` on PostgreSQL; on SQLite, which ignores it, a no-op UPDATE of the row
takes the database write lock at the start of the transaction) and, inside it, only:

* compares the ledger's fingerprint (one aggregate query) with the one the figure was computed
  for — unchanged: that figure is the charge; changed (another charge or a refund came in
  between): the transaction is rolled back and the figure computed again outside the lock, up
  to :data:`CHARGE_ATTEMPTS` times; on the last attempt the new events are composed onto the
  stored state of the ledger
  (:class:`privacy.models.BudgetState`, :mod:`dpcore.central.ledger_state`: basic / zCDP / RDP,
  O(1) per event — sound, looser than the tight figure), so the time under the lock does not
  grow with the ledger;
* over ``budget_epsilon`` → 409 ``budget_exceeded`` with what remains; otherwise creates the
  ``Release`` (pending), its ``LedgerEntry`` and the new stored figure, and enqueues the task on
  commit. Check and charge stay atomic: both happen under the one lock.

Broker failures are logged and swallowed: the release stays pending and
:func:`privacy.services.sweep.releases_sweep` re-enqueues it.

:func:`privacy.services.refund.release_fail` refunds the charge of a release that failed before
storing any result.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db import transaction

from deniable.errors import Conflict, ErrorCode
from dpcore.central import accounting, ledger_state
from privacy.audit_details import records, release_requested
from privacy.models import BudgetState, LedgerEntry, Release
from privacy.services import spent
from privacy.services.enqueue import release_enqueue
from privacy.services.lock import lock_survey
from privacy.services.plan import ReleasePlan, release_plan
from privacy.specs import ReleaseSpec
from surveys.models import Survey

# Computations outside the lock before the charge settles for the composed-state bound: a
# charge that finds the ledger moved (a concurrent charge) computes the tight figure again.
CHARGE_ATTEMPTS = 3


@dataclass(frozen=True)
class _Charge:
    """Spent before and after the new events, for the ledger with ``fingerprint``."""

    fingerprint: spent.Fingerprint
    delta: float
    before: accounting.AccountingResult
    after: accounting.AccountingResult
    composed_after: ledger_state.Composed


def _composed(
    state: BudgetState | None, snapshot: spent.LedgerSnapshot, delta: float
) -> ledger_state.Composed:
    stored = spent.stored_composed(state, snapshot.fingerprint, delta)
    if stored is not None:
        return stored
    return ledger_state.compose(ledger_state.EMPTY, snapshot.events)


def _tight_outside_the_lock(survey: Survey, new: list[accounting.Event]) -> _Charge:
    """The tight figures before and after ``new``, for the ledger as it is now (no lock held)."""
    delta = survey.budget_delta
    snapshot = spent.ledger_snapshot(survey_id=survey.pk)
    state = BudgetState.objects.filter(survey_id=survey.pk).first()
    before = accounting.epsilon_spent(snapshot.events, delta)
    after = accounting.epsilon_spent([*snapshot.events, *new], delta)
    composed = ledger_state.compose(_composed(state, snapshot, delta), new)
    return _Charge(snapshot.fingerprint, delta, before, after, composed)


class _LedgerMoved(Exception):
    """The ledger changed between the computation outside the lock and the lock."""


def _charge_under_the_lock(
    locked: Survey, new: list[accounting.Event], outside: _Charge, *, last: bool
) -> _Charge:
    """Inside the lock: the figure computed outside if the ledger (and δ) did not move; else
    :class:`_LedgerMoved` (the caller computes again) or, on the ``last`` attempt, ``new``
    composed onto the stored state (bounded time; sound, looser — module notes)."""
    fingerprint = spent.ledger_fingerprint(survey_id=locked.pk)
    delta = locked.budget_delta
    if fingerprint == outside.fingerprint and delta == outside.delta:
        return outside
    if not last:
        raise _LedgerMoved
    state = BudgetState.objects.filter(survey_id=locked.pk).first()
    stored = spent.stored_composed(state, fingerprint, delta)
    if stored is not None and state is not None:
        composed_before = stored
        before = spent.stored_result(state)
    else:  # no state for this ledger (a refund, or rows from before migration 0004)
        snapshot = spent.ledger_snapshot(survey_id=locked.pk)
        fingerprint = snapshot.fingerprint
        composed_before = ledger_state.compose(ledger_state.EMPTY, snapshot.events)
        before = ledger_state.bound(composed_before, delta)
    composed_after = ledger_state.compose(composed_before, new)
    after = ledger_state.bound(composed_after, delta)
    return _Charge(fingerprint, delta, before, after, composed_after)


def _remaining(survey: Survey, spent: float) -> dict[str, float]:
    return {
        "epsilon": max(0.0, survey.budget_epsilon - spent),
        "delta": survey.budget_delta,
    }


@records("release.request", detail=release_requested)
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
    for attempt in range(1, CHARGE_ATTEMPTS + 1):
        outside = _tight_outside_the_lock(survey, plan.events)
        try:
            return _charge(survey, user, plan, outside, last=attempt == CHARGE_ATTEMPTS)
        except _LedgerMoved:  # rolled back, nothing written: compute again without the lock
            continue
    raise AssertionError("unreachable: the last attempt never raises _LedgerMoved")


def _charge(
    survey: Survey, user: User | None, plan: ReleasePlan, outside: _Charge, *, last: bool
) -> tuple[Release, bool]:
    with transaction.atomic():
        locked = lock_survey(survey)
        if locked.status == Survey.Status.ARCHIVED:
            # Read-only (docs/teams.md#archiving): unarchive to publish anything new.
            raise Conflict(
                "The survey is archived: it is read-only. Unarchive it to request a release.",
                code=ErrorCode.SURVEY_ARCHIVED,
            )
        if plan.request_id is not None:
            existing = Release.objects.filter(survey=locked, request_id=plan.request_id).first()
            if existing is not None:
                return existing, False
        charge = _charge_under_the_lock(locked, plan.events, outside, last=last)
        if not charge.after.epsilon <= locked.budget_epsilon * (
            1.0 + accounting.BUDGET_RELATIVE_SLACK
        ):
            raise Conflict(
                f"This release would bring the composed ε to {charge.after.epsilon:.6g} "
                f"({charge.after.method}), over the survey's budget of {locked.budget_epsilon:g}.",
                code=ErrorCode.BUDGET_EXCEEDED,
                remaining=_remaining(locked, charge.before.epsilon),
            )
        release = Release.objects.create(
            survey=locked,
            requested_by=user if getattr(user, "is_authenticated", False) else None,
            request_id=plan.request_id,
            mechanism=plan.mechanism,
            epsilon=plan.epsilon,
            charged_epsilon=max(0.0, charge.after.epsilon - charge.before.epsilon),
            delta=plan.delta,
            rho=plan.rho,
            noise_scale=plan.noise_scale,
            l1_sensitivity=plan.l1_sensitivity,
            l2_sensitivity=plan.l2_sensitivity,
            questions=plan.questions,
            group_by=plan.group_by,
            statistic=plan.statistic,
            quantile=plan.quantile,
        )
        entry = LedgerEntry.objects.create(survey=locked, release=release, event=plan.event)
        n, largest, total = charge.fingerprint
        spent.state_write(
            survey_id=locked.pk,
            fingerprint=(n + 1, max(largest, entry.pk), total + entry.pk),
            delta=locked.budget_delta,
            result=charge.after,
            composed=charge.composed_after,
        )
        release_id = release.pk
        transaction.on_commit(lambda: release_enqueue(release_id=release_id))
    return release, True
