"""Input serializers of the account API: the token exchange (docs/api.md#authentication)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from rest_framework import serializers

from deniable.input_fields import StrictCharField, StrictIntegerField
from deniable.inputs import validate_input

REQUIRED = "This field is required."
DEFAULT_TOKEN_NAME = "API"  # noqa: S105 — a label, not a secret
MAX_NAME = 100


@dataclass(frozen=True)
class TokenRequest:
    username: str
    password: str = field(repr=False)
    name: str = DEFAULT_TOKEN_NAME
    expires_in_days: int | None = None
    otp: str = field(default="", repr=False)


def _days_message() -> str:
    return f"A whole number of days from 1 to {settings.DENIABLE_API_TOKEN_MAX_DAYS}."


class TokenRequestSerializer(serializers.Serializer):
    # Strings a database cannot store (NUL) are refused before the username lookup.
    username = StrictCharField(trim_whitespace=False, error_messages={"invalid": REQUIRED})
    password = StrictCharField(
        trim_whitespace=False,
        style={"input_type": "password"},
        error_messages={"invalid": REQUIRED},
    )
    name = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=MAX_NAME,
        help_text=f'A label shown in the token list (default "{DEFAULT_TOKEN_NAME}").',
    )
    expires_in_days = StrictIntegerField(
        required=False,
        help_text="Days until the token expires (default 90, at most "
        "DENIABLE_API_TOKEN_MAX_DAYS, 365 unless configured).",
    )

    otp = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=32,
        trim_whitespace=False,
        help_text="The two-factor code (or a recovery code), for an account that has it on.",
    )

    def validate_expires_in_days(self, value: int) -> int:
        if not 1 <= value <= settings.DENIABLE_API_TOKEN_MAX_DAYS:
            raise serializers.ValidationError(_days_message())
        return value

    def validate(self, attrs: dict[str, Any]) -> TokenRequest:
        return TokenRequest(
            username=attrs["username"],
            password=attrs["password"],
            name=attrs.get("name") or DEFAULT_TOKEN_NAME,
            expires_in_days=attrs.get("expires_in_days"),
            otp=attrs.get("otp") or "",
        )


def token_request(data: Any) -> TokenRequest:
    """A token-exchange body, validated (raises ``InvalidInput`` naming the field)."""
    return validate_input(TokenRequestSerializer, data, TokenRequest)
