"""Input serializer of ``POST /api/v1/designs/preview/`` (the builder's live preview)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from deniable.input_fields import StrictFloatField, StrictIntegerField
from deniable.inputs import validate_input
from dpcore.validation import CONFIDENCE_MAX, CONFIDENCE_MIN
from surveys.analysis.confidence import CONFIDENCE_MESSAGE
from surveys.definitions.specs import (
    MAX_OPTION_LENGTH,
    MAX_OPTIONS,
    MIN_OPTIONS,
    DesignPreviewRequest,
)
from surveys.kinds._definitions import definition_kind
from surveys.models import Question


class DesignFieldsSerializer(serializers.Serializer):
    """A design to evaluate, as the builder sends it: the spec, and a choice question's options
    or k (shared by the design preview and the power request)."""

    design = serializers.JSONField(required=False, allow_null=True)
    options = serializers.ListField(
        child=serializers.CharField(max_length=MAX_OPTION_LENGTH),
        required=False,
        max_length=MAX_OPTIONS,
        help_text="choice: its options (or give k).",
    )
    k = StrictIntegerField(
        required=False,
        min_value=MIN_OPTIONS,
        max_value=MAX_OPTIONS,
        help_text="choice, if no options",
    )


class DesignPreviewRequestSerializer(DesignFieldsSerializer):
    kind = serializers.ChoiceField(
        choices=list(Question.RANDOMIZED_KINDS),
        help_text="Only yes_no, choice and multi questions have a design (multi: give its "
        "options or k; ε is summed over them).",
    )
    planned_n = StrictIntegerField(
        required=False, min_value=1, max_value=2_000_000_000, default=1000
    )
    prior = StrictFloatField(
        required=False, allow_null=True, min_value=0.0, max_value=1.0, help_text="Guessed π."
    )
    confidence = StrictFloatField(
        required=False,
        default=0.95,
        min_value=CONFIDENCE_MIN,
        max_value=CONFIDENCE_MAX,
        error_messages={"min_value": CONFIDENCE_MESSAGE, "max_value": CONFIDENCE_MESSAGE},
    )

    def validate(self, attrs: dict[str, Any]) -> DesignPreviewRequest:
        kind, k = attrs["kind"], attrs.get("k")
        with_options = definition_kind(kind).has_options  # choice, multi
        if with_options and attrs.get("options"):
            k = len(attrs["options"])
        if with_options and k is None:
            raise serializers.ValidationError(
                {"options": f"Give the options (or k) of a {kind} question."}
            )
        return DesignPreviewRequest(
            kind=kind,
            design=attrs.get("design"),
            k=k,
            planned_n=attrs["planned_n"],
            prior=attrs.get("prior"),
            confidence=attrs["confidence"],
        )


def design_preview_request(data: Any) -> DesignPreviewRequest:
    """A design preview body, validated (raises ``InvalidInput``)."""
    return validate_input(DesignPreviewRequestSerializer, data, DesignPreviewRequest)
