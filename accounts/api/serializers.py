"""Response representations of the account API (docs/api.md#authentication)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import ApiToken, ResearcherSession


class TokenCreatedSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The key, shown this once (only a digest is kept).")
    id = serializers.IntegerField()
    name = serializers.CharField()
    expires = serializers.DateTimeField()


class TokenOutSerializer(serializers.ModelSerializer):
    """A token as listed: never its key (the server does not have it)."""

    expired = serializers.SerializerMethodField()
    current = serializers.SerializerMethodField(
        help_text="True for the token that authenticated this request."
    )
    second_factor = serializers.SerializerMethodField(
        help_text="True if it was issued past a second factor (a code, or a session past one). "
        "A token without one is refused while the account needs one (docs/accounts.md"
        "#tokens-and-the-second-factor)."
    )

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "created",
            "expires",
            "last_used",
            "expired",
            "current",
            "second_factor",
        ]

    def get_expired(self, token: ApiToken) -> bool:
        return token.is_expired

    def get_current(self, token: ApiToken) -> bool:
        current: Any = self.context.get("current")
        return isinstance(current, ApiToken) and current.pk == token.pk

    def get_second_factor(self, token: ApiToken) -> bool:
        return bool(token.second_factor)


class SessionOutSerializer(serializers.ModelSerializer):
    """A signed-in session as listed: never its key, its marker or the marker's digest."""

    browser = serializers.CharField(
        source="device",
        read_only=True,
        help_text='The kind of browser, e.g. "Firefox on Linux" (never more).',
    )
    via = serializers.CharField(
        read_only=True, help_text='How it signed in: "password" or "sso" (single sign-on).'
    )
    current = serializers.SerializerMethodField(
        help_text="True for the session that made this request (always false for a token)."
    )

    class Meta:
        model = ResearcherSession
        fields = ["id", "browser", "via", "created", "last_seen", "current"]
        read_only_fields = fields

    def get_current(self, session: ResearcherSession) -> bool:
        current: Any = self.context.get("current")
        return current is not None and current == session.pk


class SignedOutSerializer(serializers.Serializer):
    sessions_ended = serializers.IntegerField(help_text="How many sessions were signed out.")
    tokens_revoked = serializers.IntegerField(help_text="How many API tokens were revoked.")
    current_ended = serializers.BooleanField(
        help_text="The session that made this request was signed out too (its cookie is cleared)."
    )
