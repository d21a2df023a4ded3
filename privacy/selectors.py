"""Reads for releases and the privacy budget (DESIGN.md §5, §8)."""

from __future__ import annotations

import math
import uuid
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from deniable.errors import NotFound
from privacy import accounting
from privacy.models import LedgerEntry, Release
from surveys.models import Survey


def ledger_event_objects(event: dict[str, Any]) -> list[accounting.Event]:
    """Turn one stored ledger event (JSON) into the accountant's events.

    * ``{"type": "laplace", "epsilon_each": ε₀, "count": Q}`` — Q independent per-question
      histograms, each with discrete Laplace noise of scale t = 1/ε₀ and L1 sensitivity 1: Q
      ``LaplaceEvent(ε₀)`` (discrete; the accountant uses the pure-DP / RR curve for them).
    * ``{"type": "zcdp", "rho": ρ}`` — discrete Gaussian noise, ρ = Δ₂²/(2σ²) (CKS 2020 Thm 14).
    * ``{"type": "pure", "epsilon": ε}`` — any ε-DP mechanism.

    Issue 13 (optional fields, older entries keep their meaning): a laplace event's
    ``"sum_sensitivities": [K, …]`` says that many of the Q contributions are number-question grid
    sums (scale K/ε₀, moved by ≤ K: ``LaplaceEvent(ε₀, shift=K)``); a zcdp event's ``"sigma"`` and
    ``"sensitivities"`` name the discrete Gaussian itself (contribution j: σ·Δ_j on a query of
    sensitivity Δ_j), so the PLD accountant can charge its exact cost.
    """
    kind = event.get("type")
    if kind == "laplace":
        eps_each, count = float(event["epsilon_each"]), int(event["count"])
        sums = [int(k) for k in event.get("sum_sensitivities", [])][:count]
        shifted = [accounting.LaplaceEvent(eps_each, shift=k) for k in sums]
        return [accounting.LaplaceEvent(eps_each)] * (count - len(shifted)) + shifted
    if kind == "zcdp":
        if "sigma" in event and event.get("sensitivities"):
            sens = [int(k) for k in event["sensitivities"]]
            return accounting.discrete_gaussian_events(float(event["sigma"]), sens)
        return [accounting.ZCDPEvent(float(event["rho"]))]
    if kind == "pure":
        return [accounting.PureDPEvent(float(event["epsilon"]))]
    raise ValueError(f"unknown ledger event type {kind!r}")


def survey_ledger_events(*, survey: Survey) -> list[accounting.Event]:
    """Every non-refunded charged event of the survey (call inside the budget lock to charge)."""
    events: list[accounting.Event] = []
    for stored in LedgerEntry.objects.filter(survey=survey, refunded=False).values_list(
        "event", flat=True
    ):
        events.extend(ledger_event_objects(stored))
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


def release_list_for_survey(*, survey: Survey) -> QuerySet[Release]:
    return (
        Release.objects.filter(survey=survey)
        .select_related("survey", "ledger_entry")
        .order_by("-created_at")
    )


def release_get_for_owner(*, user: AbstractBaseUser, release_id: Any) -> Release:
    """The release if it belongs to one of ``user``'s surveys; else NotFound (never 403)."""
    if not getattr(user, "is_authenticated", False):
        raise NotFound("No such release.")
    try:
        pk = uuid.UUID(str(release_id))
    except ValueError:
        raise NotFound("No such release.") from None
    release = Release.objects.select_related("survey").filter(pk=pk, survey__owner=user).first()
    if release is None:
        raise NotFound("No such release.")
    return release
