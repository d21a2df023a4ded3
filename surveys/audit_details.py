"""What a survey service's audit entry says (``@records(..., detail=...)`` on the services;
docs/accounts.md#audit). Each function gets the service's keyword arguments and its result and
returns the entry's detail, or None when the call changed nothing (no entry). Only researchers'
settings and counts: never a token, a report or anything about a respondent."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.recording import records

__all__ = ["records"]

#: Settings whose new value the log keeps (budget changes are what an ethics board asks about);
#: other changed fields are listed by name only.
VALUES_KEPT = ("budget_epsilon", "budget_delta", "access", "slug", "response_cap")


def survey_changes(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    changes = kwargs["changes"]
    fields = sorted(changes.values)
    if changes.questions is not None:
        fields.append("questions")  # the questions and their designs, replaced
    kept = {name: changes.values[name] for name in VALUES_KEPT if name in changes.values}
    return {"fields": fields, **kept}


def population_shares(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    """The researcher's population shares are a setting: the log keeps the new value."""
    weighting = kwargs["weighting"]
    return {
        "fields": ["population_shares"],
        "population_shares": weighting.as_json() if weighting is not None else {},
    }


def duplicate(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    return {"copy": result.slug}


def collaborator(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    return {"username": kwargs["username"], "role": kwargs["role"]}


def collaborator_removed(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any] | None:
    return {"username": kwargs["username"]} if result else None


def invitations_created(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    return {"count": len(result)}  # how many, never the tokens


def invitations_revoked(kwargs: Mapping[str, Any], result: Any) -> dict[str, Any]:
    return {"count": result}
