"""Input serializer of ``POST …/invitations/`` (the API and the invitations page)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from deniable.input_fields import StrictIntegerField
from deniable.inputs import validate_input
from surveys.definitions.specs import MAX_INVITATIONS, InvitationRequest

COUNT_MESSAGE = f"A whole number from 1 to {MAX_INVITATIONS}."
FORMAT_MESSAGE = "One of: json, csv."


class InvitationRequestSerializer(serializers.Serializer):
    count = StrictIntegerField(
        min_value=1,
        max_value=MAX_INVITATIONS,
        error_messages={
            "invalid": COUNT_MESSAGE,
            "required": COUNT_MESSAGE,
            "null": COUNT_MESSAGE,
            "min_value": COUNT_MESSAGE,
            "max_value": COUNT_MESSAGE,
        },
        help_text="How many one-time tokens to create.",
    )
    format = serializers.ChoiceField(
        choices=["json", "csv"],
        default="json",
        error_messages={"invalid_choice": FORMAT_MESSAGE, "null": FORMAT_MESSAGE},
        help_text=(
            "csv: a download (<slug>-invitations.csv): a header 'link', then one respondent "
            "link per line, written ' + the link like every CSV text cell."
        ),
    )

    def validate(self, attrs: dict[str, Any]) -> InvitationRequest:
        return InvitationRequest(count=attrs["count"], format=attrs["format"])


def invitation_request(data: Any) -> InvitationRequest:
    """An invitations body, validated (raises ``InvalidInput`` naming ``count``/``format``)."""
    return validate_input(InvitationRequestSerializer, data, InvitationRequest)
