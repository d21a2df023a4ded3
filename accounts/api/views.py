"""API v1 for accounts: the token exchange, the token list and revocation
(docs/api.md#authentication). Thin: parse, call :mod:`accounts.services`, serialize."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import inputs, selectors, services, two_factor
from accounts.api import serializers as s
from deniable.api import json_object_body
from deniable.api_schema import ErrorSerializer, FieldErrorsSerializer
from deniable.errors import ErrorCode, InvalidInput
from deniable.users import signed_in_user

ERRORS_400 = OpenApiResponse(FieldErrorsSerializer, description="Invalid input, per field.")


def _second_factor(request: Request, user: Any, otp: str) -> str:
    """A token is a login: an account with a second factor needs its code (DESIGN §8.8); a
    wrong code is a failed login for django-axes (accounts.two_factor.check_code). Returns what
    the token records: the persistent id of the device that matched, or "" where none is needed
    (such a token stops working if the account comes to need one: two_factor.token_refusal)."""
    if not two_factor.needs_code(user):
        return ""
    if not two_factor.enrolled(user):
        raise two_factor.OtpRequired(
            "Two-factor login is required for this account: set it up on the site first."
        )
    if not otp:
        raise two_factor.OtpRequired("This account has two-factor login on: send the code as otp.")
    device = two_factor.check_code(request._request, user, otp)
    if device is None:
        raise two_factor.OtpRequired(
            "The two-factor code is not valid.", code=ErrorCode.OTP_INVALID
        )
    return str(device.persistent_id)


class AuthTokenView(APIView):
    """Exchange a researcher's username and password for a new API token."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=inputs.TokenRequestSerializer,
        responses={
            200: s.TokenCreatedSerializer,
            400: ERRORS_400,
            401: OpenApiResponse(
                ErrorSerializer,
                description="otp_required: this account has two-factor login on; send `otp`.",
            ),
            409: OpenApiResponse(
                ErrorSerializer, description="too_many_tokens: revoke an unexpired token first."
            ),
            # django-axes (deniable.security.lockout_response): 5 failures lock the username.
            429: OpenApiResponse(ErrorSerializer, description="locked_out: too many failures."),
        },
        description="Every call issues a new token (name and lifetime optional); the key is in "
        "this response only. List and revoke tokens at auth/tokens/.",
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        given = inputs.token_request(json_object_body(request))
        user = authenticate(request._request, username=given.username, password=given.password)
        if user is None or not user.is_active:
            raise InvalidInput.single(
                "non_field_errors", "Unable to log in with the provided credentials."
            )
        second_factor = _second_factor(request, user, given.otp)
        # A token exchange is a login: django-axes resets the username's failure count on this
        # signal (AXES_RESET_ON_SUCCESS) and Django records last_login. No session is started.
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        issued = services.api_token_create(
            user=user,
            name=given.name,
            expires_in_days=given.expires_in_days,
            second_factor=second_factor,
        )
        created = {
            "token": issued.key,
            "id": issued.token.pk,
            "name": issued.token.name,
            "expires": issued.token.expires,
        }
        return Response(s.TokenCreatedSerializer(created).data)


class TokenListView(APIView):
    @extend_schema(
        responses={200: s.TokenOutSerializer(many=True)},
        description="Your API tokens, newest first, expired ones included; never their keys.",
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        tokens = selectors.api_tokens_for(user=signed_in_user(request.user))
        context = {"current": request.auth}
        return Response(s.TokenOutSerializer(tokens, many=True, context=context).data)


class TokenDetailView(APIView):
    @extend_schema(
        responses={
            204: None,
            404: OpenApiResponse(ErrorSerializer, description="No such token (or not yours)."),
        },
        description="Revoke one of your tokens: it stops working at once.",
        tags=["auth"],
    )
    def delete(self, request: Request, token_id: int) -> Response:
        services.api_token_revoke(user=signed_in_user(request.user), token_id=token_id)
        return Response(status=204)
