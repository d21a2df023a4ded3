"""Input serializers of the account API: the token exchange (docs/api.md#authentication) and
signing out of sessions (docs/api.md#sessions)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from rest_framework import serializers

from deniable.errors import InvalidInput
from deniable.input_fields import StrictBooleanField, StrictCharField, StrictIntegerField
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


# --- sessions (docs/api.md#sessions) ------------------------------------------------------------

#: "others": every session but the one asking (a token request has none: all of them);
#: "everywhere": all of them.
SIGN_OUT_SCOPES = ("others", "everywhere")
#: A row id (a 64-bit ``BigAutoField``), written in ASCII digits, no sign, no leading zero.
_SESSION_ID = re.compile(r"[1-9][0-9]{0,18}")
_MAX_ID = 2**63 - 1


@dataclass(frozen=True)
class SignOutRequest:
    everywhere: bool
    revoke_tokens: bool = False


class SignOutRequestSerializer(serializers.Serializer):
    scope = serializers.ChoiceField(
        choices=SIGN_OUT_SCOPES,
        help_text='"others": every session but this one (for a token: every session); '
        '"everywhere": every one, this one included.',
    )
    revoke_tokens = StrictBooleanField(
        required=False,
        default=False,
        help_text="Also revoke every API token of the account (this request's own included).",
    )

    def validate(self, attrs: dict[str, Any]) -> SignOutRequest:
        return SignOutRequest(
            everywhere=attrs["scope"] == "everywhere", revoke_tokens=attrs["revoke_tokens"]
        )


def sign_out_request(data: Any) -> SignOutRequest:
    """A sign-out body, validated (raises ``InvalidInput`` naming the field)."""
    return validate_input(SignOutRequestSerializer, data, SignOutRequest)


def session_id(value: str) -> int:
    """A session id from the path: a positive whole number, else a 400 naming ``session_id``
    (the route takes any segment, so that a malformed id is said to be one, not a 404)."""
    if not _SESSION_ID.fullmatch(value) or int(value) > _MAX_ID:
        raise InvalidInput.single("session_id", "A session's id: a positive whole number.")
    return int(value)
