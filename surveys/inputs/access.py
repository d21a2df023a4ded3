"""Input serializer of a respondent's invitation check. It refuses strings a database cannot
store (NUL) before any query. (A researcher's token exchange is accounts.inputs.)"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from deniable.input_fields import StrictCharField
from deniable.inputs import validate_input
from surveys.definitions.specs import MAX_TOKEN_LENGTH

TOKEN_LENGTH_MESSAGE = f"Must be the invitation token: 1 to {MAX_TOKEN_LENGTH} characters."


class InvitationCheckRequestSerializer(serializers.Serializer):
    token = StrictCharField(
        min_length=1,
        max_length=MAX_TOKEN_LENGTH,
        trim_whitespace=False,
        error_messages={
            "invalid": "Must be the invitation token string.",
            "blank": TOKEN_LENGTH_MESSAGE,
            "min_length": TOKEN_LENGTH_MESSAGE,
            "max_length": TOKEN_LENGTH_MESSAGE,
        },
        help_text="The invitation token, in the body only (never in a URL).",
    )

    def validate(self, attrs: dict[str, Any]) -> str:
        return str(attrs["token"])


def invitation_token(data: Any) -> str:
    """An invitation-check body's token, validated (raises ``InvalidInput`` naming ``token``)."""
    return validate_input(InvitationCheckRequestSerializer, data, str)
