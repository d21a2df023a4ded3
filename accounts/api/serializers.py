"""Response representations of the account API (docs/api.md#authentication)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from accounts.models import ApiToken


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

    class Meta:
        model = ApiToken
        fields = ["id", "name", "created", "expires", "last_used", "expired", "current"]

    def get_expired(self, token: ApiToken) -> bool:
        return token.is_expired

    def get_current(self, token: ApiToken) -> bool:
        current: Any = self.context.get("current")
        return isinstance(current, ApiToken) and current.pk == token.pk
