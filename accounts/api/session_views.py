"""API v1: a researcher's signed-in sessions (docs/api.md#sessions). Thin: parse, call the
services the sessions page calls (:mod:`accounts.sessions`), serialize.

Token or session authentication, like the other auth/ endpoints. "The session asking" is the
request's session only when the session authenticated it: a token request has none of its own
(for it every session is one of "the others"), and a cookie sent beside a token is not the
token's. The two-factor gate (accounts.two_factor_gate) holds a session past the password but not
the code before any of this runs."""

from __future__ import annotations

from django.http import HttpRequest
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.authentication import SessionAuthentication
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import inputs, sessions
from accounts.api import serializers as s
from accounts.api.views import ERRORS_400
from deniable.api import json_object_body
from deniable.api_schema import ErrorSerializer
from deniable.users import signed_in_user

SESSION_ID = OpenApiParameter(
    "session_id",
    OpenApiTypes.INT,
    OpenApiParameter.PATH,
    description="A session's id, from the list (a positive whole number; anything else is a "
    "400 naming session_id).",
)


def _session_asking(request: Request) -> HttpRequest | None:
    if isinstance(request.successful_authenticator, SessionAuthentication):
        return request._request
    return None


class SessionListView(APIView):
    @extend_schema(
        responses={200: s.SessionOutSerializer(many=True)},
        description="Your signed-in sessions (browsers), most recently seen first; expired ones "
        "are not listed. Never a session's key or its digest.",
        tags=["auth"],
    )
    def get(self, request: Request) -> Response:
        user = signed_in_user(request.user)
        asking = _session_asking(request)
        current = sessions.current_session_id(asking, user=user) if asking else None
        rows = sessions.sessions_for(user=user)
        return Response(s.SessionOutSerializer(rows, many=True, context={"current": current}).data)


class SessionDetailView(APIView):
    @extend_schema(
        parameters=[SESSION_ID],
        responses={
            204: None,
            400: ERRORS_400,
            404: OpenApiResponse(ErrorSerializer, description="No such session (or not yours)."),
        },
        description="Sign one of your sessions out: its cookie opens nothing from its next "
        "request on. Ending the session that makes this request logs it out.",
        tags=["auth"],
    )
    def delete(self, request: Request, session_id: str) -> Response:
        sessions.session_end(
            user=signed_in_user(request.user),
            session_id=inputs.session_id(session_id),
            request=_session_asking(request),
        )
        return Response(status=204)


class SessionSignOutView(APIView):
    @extend_schema(
        request=inputs.SignOutRequestSerializer,
        responses={200: s.SignedOutSerializer, 400: ERRORS_400},
        description='Sign out of your other sessions ("others") or of all of them '
        '("everywhere"), and with "revoke_tokens" also revoke every API token of the account. '
        "For a token request every session is one of the others.",
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        given = inputs.sign_out_request(json_object_body(request))
        ended = sessions.sessions_end(
            user=signed_in_user(request.user),
            everywhere=given.everywhere,
            revoke_tokens=given.revoke_tokens,
            request=_session_asking(request),
        )
        body = {
            "sessions_ended": ended.sessions,
            "tokens_revoked": ended.tokens,
            "current_ended": ended.current,
        }
        return Response(s.SignedOutSerializer(body).data)
