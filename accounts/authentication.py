"""``Authorization: Token <key>`` for the API, against :class:`accounts.models.ApiToken`.

First in ``REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"]``: DRF takes the ``WWW-Authenticate``
challenge from the first class, so a missing, unknown, revoked or expired token is a 401 (with
session authentication first it was a 403).
"""

from __future__ import annotations

from typing import Any

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from accounts.services import TokenRefused, api_token_authenticate
from deniable.errors import ErrorCode

KEYWORD = "Token"
# Longer than any key we issue (48 characters); refused before hashing or querying.
MAX_KEY_LENGTH = 200


class ApiTokenAuthentication(BaseAuthentication):
    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD.lower().encode():
            return None
        if len(parts) != 2:
            raise AuthenticationFailed(
                "Invalid Authorization header: expected 'Token <key>'.",
                code=ErrorCode.INVALID_TOKEN,
            )
        try:
            key = parts[1].decode("ascii")
        except UnicodeError:
            raise AuthenticationFailed("Invalid token.", code=ErrorCode.INVALID_TOKEN) from None
        if len(key) > MAX_KEY_LENGTH:
            raise AuthenticationFailed("Invalid token.", code=ErrorCode.INVALID_TOKEN)
        try:
            token = api_token_authenticate(key=key)
        except TokenRefused as exc:
            raise AuthenticationFailed(exc.detail, code=exc.code) from None
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return KEYWORD
