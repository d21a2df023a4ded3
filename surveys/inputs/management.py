"""Inputs of survey management (docs/api.md#managing-surveys): the list's query, a deletion's
confirmation and a collaborator. Each validates into a small frozen value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rest_framework import serializers

from deniable.input_fields import StrictCharField
from deniable.inputs import validate_input
from surveys.models import Collaborator

# ?ordering= of the survey list: a column, "-" in front for descending.
ORDERINGS = ("title", "created", "status", "responses", "budget_left")
DEFAULT_ORDERING = "-created"
ORDERING_MESSAGE = "One of " + ", ".join(ORDERINGS) + ", with - in front for descending."


@dataclass(frozen=True)
class SurveyListQuery:
    ordering: str = DEFAULT_ORDERING
    archived: bool = False  # True: the archived surveys only; False: all the others


class SurveyListQuerySerializer(serializers.Serializer):
    ordering = serializers.ChoiceField(
        choices=[*ORDERINGS, *(f"-{o}" for o in ORDERINGS)],
        required=False,
        error_messages={"invalid_choice": ORDERING_MESSAGE},
        help_text="Sort by " + ", ".join(ORDERINGS) + "; -name for descending (default -created).",
    )
    archived = serializers.BooleanField(
        required=False,
        help_text="true: only archived surveys (hidden by default); false (default): the others.",
    )

    def validate(self, attrs: dict[str, Any]) -> SurveyListQuery:
        return SurveyListQuery(
            ordering=attrs.get("ordering", DEFAULT_ORDERING),
            archived=bool(attrs.get("archived", False)),
        )


def survey_list_query(params: Mapping[str, Any]) -> SurveyListQuery:
    """``GET /api/v1/surveys/`` query parameters (400 naming ``ordering`` or ``archived``)."""
    data = {k: params.get(k) for k in ("ordering", "archived") if params.get(k) not in (None, "")}
    return validate_input(SurveyListQuerySerializer, data, SurveyListQuery)


class SurveyDeleteSerializer(serializers.Serializer):
    confirm = serializers.CharField(
        required=True, help_text="The survey's slug, typed again: the deletion is irreversible."
    )


class CollaboratorInSerializer(serializers.Serializer):
    username = StrictCharField(max_length=150, help_text="An existing researcher's username.")
    role = serializers.ChoiceField(choices=Collaborator.Role.choices)

    def validate(self, attrs: dict[str, Any]) -> CollaboratorSpec:
        return CollaboratorSpec(username=attrs["username"], role=attrs["role"])


@dataclass(frozen=True)
class CollaboratorSpec:
    username: str
    role: str


def collaborator_spec(data: Any) -> CollaboratorSpec:
    """A ``POST …/collaborators/`` body (400 naming ``username`` or ``role``)."""
    return validate_input(CollaboratorInSerializer, data, CollaboratorSpec)
