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
    """The budget summary of ``GET /api/v1/surveys/<slug>/budget/`` (without the release list)."""
    result = accounting.epsilon_spent(survey_ledger_events(survey=survey), survey.budget_delta)
    return {
        "epsilon_total": survey.budget_epsilon,
        "delta_total": survey.budget_delta,
        "epsilon_spent": result.epsilon,
        "epsilon_remaining": max(0.0, survey.budget_epsilon - result.epsilon),
        "method": result.method,
        "candidates": {k: _finite(v) for k, v in result.candidates.items()},
    }


def surveys_epsilon_remaining(surveys: Sequence[Survey]) -> dict[int, float]:
    """ε remaining of each survey (as ``survey_budget`` computes it), with one ledger query for
    the whole list: the survey list's "budget left" column (``surveys.summaries``)."""
    events: dict[int, list[accounting.Event]] = {s.pk: [] for s in surveys}
    entries = LedgerEntry.objects.filter(survey_id__in=list(events), refunded=False)
    for survey_id, stored in entries.values_list("survey_id", "event"):
        events[survey_id].extend(event_codec.decode(stored))
    return {
        s.pk: max(
            0.0,
            s.budget_epsilon - accounting.epsilon_spent(events[s.pk], s.budget_delta).epsilon,
        )
        for s in surveys
    }


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
