"""Reads for releases and the privacy budget (docs/api.md#releases, docs/api.md#budget)."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any

from django.db.models import QuerySet

from deniable.errors import NotFound
from deniable.users import RequestUser, signed_in
from dpcore.central import accounting, event_codec
from privacy.models import LedgerEntry, Release
from privacy.services import spent
from surveys.models import Survey
from surveys.selectors import survey_role


def survey_ledger_events(*, survey: Survey) -> list[accounting.Event]:
    """Every non-refunded charged event of the survey (call inside the budget lock to charge)."""
    events: list[accounting.Event] = []
    for stored in LedgerEntry.objects.filter(survey=survey, refunded=False).values_list(
        "event", flat=True
    ):
        events.extend(event_codec.decode(stored))
    return events


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def survey_budget(*, survey: Survey) -> dict[str, Any]:
    """The budget summary of ``GET /api/v1/surveys/<slug>/budget/`` (without the release list):
    the stored figure (:mod:`privacy.services.spent`), recomputed only if the ledger moved since
    it was stored (a refund) — never the accountant on every read."""
    state = spent.state_for_read(survey=survey, refresh_stale=True)
    result = (
        accounting.AccountingResult(epsilon=0.0, method="none", candidates={})
        if state is None
        else spent.stored_result(state)
    )
    return {
        "epsilon_total": survey.budget_epsilon,
        "delta_total": survey.budget_delta,
        "epsilon_spent": result.epsilon,
        "epsilon_remaining": max(0.0, survey.budget_epsilon - result.epsilon),
        "method": result.method,
        "candidates": {k: _finite(v) for k, v in result.candidates.items()},
    }


def surveys_epsilon_remaining(surveys: Sequence[Survey]) -> dict[int, float]:
    """ε remaining of each survey from the stored figures (two queries for the whole list, no
    accountant): the survey list's "budget left" column (``surveys.selectors.summaries``)."""
    used = spent.states_for_list(surveys=list(surveys))
    return {s.pk: max(0.0, s.budget_epsilon - used[s.pk]) for s in surveys}


def release_list_for_survey(*, survey: Survey) -> QuerySet[Release]:
    return (
        Release.objects.filter(survey=survey)
        .select_related("survey", "ledger_entry")
        .order_by("-created_at")
    )


def release_get_for_user(*, user: RequestUser, release_id: Any) -> Release:
    """The release if ``user`` is on its survey's team (any role reads results,
    docs/teams.md#roles); else NotFound (never 403)."""
    if signed_in(user) is None:
        raise NotFound("No such release.")
    try:
        pk = uuid.UUID(str(release_id))
    except ValueError:
        raise NotFound("No such release.") from None
    release = Release.objects.select_related("survey").filter(pk=pk).first()
    if release is None or survey_role(user=user, survey=release.survey) is None:
        raise NotFound("No such release.")
    return release
