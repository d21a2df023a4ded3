"""The stored spent figure of a survey's budget (:class:`privacy.models.BudgetState`;
docs/privacy-model.md#budget, issue 21 item 11, issue 24 goal 2).

What runs where:

* :func:`ledger_snapshot` reads the non-refunded ledger and its fingerprint — *outside* the
  budget lock; the release request composes the tight figure from it there
  (:func:`dpcore.central.accounting.epsilon_spent`, however long it takes, holding no lock).
* :func:`ledger_fingerprint` is one aggregate query: inside the lock the charge compares it with
  the snapshot's and, when the ledger is unchanged, uses the figure computed outside.
* :func:`state_write` stores the figure and the composed state in the charge's transaction.
* :func:`state_refresh` recomputes a state that is missing (rows from before migration 0004) or
  stale (after a refund), outside any lock, and stores it only if the ledger did not move.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, Max, Sum

from dpcore.central import accounting, event_codec, ledger_state
from privacy.models import BudgetState, LedgerEntry
from privacy.services.lock import lock_survey
from surveys.models import Survey

Fingerprint = tuple[int, int, int]  # (entries, largest id, sum of ids) of the non-refunded rows
EMPTY_FINGERPRINT: Fingerprint = (0, 0, 0)


@dataclass(frozen=True)
class LedgerSnapshot:
    events: list[accounting.Event]
    fingerprint: Fingerprint


def ledger_snapshot(*, survey_id: int) -> LedgerSnapshot:
    """The non-refunded events and their fingerprint, from one query."""
    events: list[accounting.Event] = []
    ids: list[int] = []
    rows = LedgerEntry.objects.filter(survey_id=survey_id, refunded=False).values_list(
        "id", "event"
    )
    for pk, stored in rows:
        ids.append(pk)
        events.extend(event_codec.decode(stored))
    return LedgerSnapshot(events, (len(ids), max(ids, default=0), sum(ids)))


def ledger_fingerprint(*, survey_id: int) -> Fingerprint:
    agg = LedgerEntry.objects.filter(survey_id=survey_id, refunded=False).aggregate(
        n=Count("id"), last=Max("id"), total=Sum("id")
    )
    return (int(agg["n"]), int(agg["last"] or 0), int(agg["total"] or 0))


def fingerprints(*, survey_ids: list[int]) -> dict[int, Fingerprint]:
    """Fingerprints of many surveys in one grouped query (absent: no charged entry)."""
    rows = (
        LedgerEntry.objects.filter(survey_id__in=survey_ids, refunded=False)
        .values("survey_id")
        .annotate(n=Count("id"), last=Max("id"), total=Sum("id"))
    )
    out = dict.fromkeys(survey_ids, EMPTY_FINGERPRINT)
    for row in rows:
        out[row["survey_id"]] = (int(row["n"]), int(row["last"] or 0), int(row["total"] or 0))
    return out


def fingerprint_of(state: BudgetState) -> Fingerprint:
    return (state.entries, state.last_entry, state.entry_sum)


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def stored_result(state: BudgetState) -> accounting.AccountingResult:
    candidates = {
        k: (math.inf if v is None else float(v)) for k, v in (state.candidates or {}).items()
    }
    return accounting.AccountingResult(state.epsilon, state.method, candidates)


def stored_composed(
    state: BudgetState | None, fingerprint: Fingerprint, delta: float
) -> ledger_state.Composed | None:
    """The stored :class:`~dpcore.central.ledger_state.Composed` if it is the given ledger's
    (None otherwise: recompose)."""
    if state is None or fingerprint_of(state) != fingerprint or state.delta != delta:
        return None
    return ledger_state.from_json(state.composed)


def state_write(
    *,
    survey_id: int,
    fingerprint: Fingerprint,
    delta: float,
    result: accounting.AccountingResult,
    composed: ledger_state.Composed,
) -> None:
    """Store the figure for the ledger with this fingerprint (call inside the budget lock)."""
    fields = {
        "entries": fingerprint[0],
        "last_entry": fingerprint[1],
        "entry_sum": fingerprint[2],
        "delta": delta,
        "epsilon": result.epsilon,
        "method": result.method,
        "candidates": {k: _finite(v) for k, v in result.candidates.items()},
        "composed": ledger_state.to_json(composed),
    }
    # One UPDATE in the usual case (the row exists after the first charge): the lock is held.
    if not BudgetState.objects.filter(survey_id=survey_id).update(**fields):
        BudgetState.objects.create(survey_id=survey_id, **fields)


def state_refresh(*, survey: Survey) -> BudgetState | None:
    """Recompute the tight figure outside any lock and store it if the ledger did not move
    meanwhile (else leave it: the charge that moved it wrote its own). Returns the stored row."""
    delta = survey.budget_delta
    snapshot = ledger_snapshot(survey_id=survey.pk)
    result = accounting.epsilon_spent(snapshot.events, delta)
    composed = ledger_state.compose(ledger_state.EMPTY, snapshot.events)
    with transaction.atomic():
        locked = lock_survey(survey)
        if (
            ledger_fingerprint(survey_id=survey.pk) == snapshot.fingerprint
            and locked.budget_delta == delta
        ):
            state_write(
                survey_id=survey.pk,
                fingerprint=snapshot.fingerprint,
                delta=delta,
                result=result,
                composed=composed,
            )
    return BudgetState.objects.filter(survey_id=survey.pk).first()


def state_for_read(*, survey: Survey, refresh_stale: bool) -> BudgetState | None:
    """The stored figure for a read (None: nothing charged). Recomputed (:func:`state_refresh`)
    only when missing for a charged ledger (rows from before migration 0004), for another δ, or
    — with ``refresh_stale`` (the budget detail) — when the ledger moved since (a refund)."""
    state = BudgetState.objects.filter(survey_id=survey.pk).first()
    if state is not None and state.delta == survey.budget_delta and not refresh_stale:
        return state
    fingerprint = ledger_fingerprint(survey_id=survey.pk)
    if state is not None and state.delta == survey.budget_delta:
        if fingerprint_of(state) == fingerprint:
            return state
    elif fingerprint == EMPTY_FINGERPRINT:
        return None
    return state_refresh(survey=survey)


def states_for_list(*, surveys: list[Survey]) -> dict[int, float]:
    """ε spent per survey for a list: the stored figures (an upper bound even when a refund made
    them stale), never the accountant — except once for a charged ledger with no stored figure
    (before migration 0004) or one stored for another δ."""
    ids = [s.pk for s in surveys]
    states = {st.survey_id: st for st in BudgetState.objects.filter(survey_id__in=ids)}
    out: dict[int, float] = {}
    missing = [s for s in surveys if s.pk not in states]
    charged = fingerprints(survey_ids=[s.pk for s in missing]) if missing else {}
    for survey in surveys:
        state = states.get(survey.pk)
        if state is None and charged.get(survey.pk, EMPTY_FINGERPRINT) == EMPTY_FINGERPRINT:
            out[survey.pk] = 0.0
            continue
        if state is None or state.delta != survey.budget_delta:
            state = state_refresh(survey=survey)
        out[survey.pk] = math.inf if state is None else state.epsilon
    return out
