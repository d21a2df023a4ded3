"""The invitation endpoints of DESIGN §8 (create, revoke, check), beside the survey views."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.api import json_object_body
from deniable.errors import InvalidInput
from surveys import inputs, selectors, services
from surveys.api import serializers as s
from surveys.api.views import ERROR_403, ERROR_404, ERROR_409, ERRORS_400, SLUG, _reload
from surveys.collection.admission import client_of
from surveys.collection.ratelimit import junk_rate_check, submission_rate_check
from surveys.services.invitation_check import invitation_check


def _invitation_links(request: Request, survey: Any, tokens: list[str]) -> list[str]:
    # The token goes after "#": browsers never send the fragment, so it stays out of logs.
    base = request.build_absolute_uri(reverse("respond", args=[survey.slug]))
    return [f"{base}#t={token}" for token in tokens]


class InvitationCreateView(APIView):
    """Invitation counts (GET) and new one-time tokens (POST)."""

    @extend_schema(
        parameters=[SLUG],
        responses={200: s.InvitationCountsSerializer, 404: ERROR_404},
        tags=["surveys"],
        description="How many tokens were issued, used, revoked, and how many still work.",
    )
    def get(self, request: Request, slug: str) -> Response:
        counts = services.invitation_counts(survey=_reload(request, slug))
        return Response(counts.as_dict())

    @extend_schema(
        parameters=[SLUG],
        request=inputs.InvitationRequestSerializer,
        responses={
            (201, "application/json"): s.InvitationResponseSerializer,
            (201, "text/csv"): OpenApiTypes.STR,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
            409: ERROR_409,
        },
        tags=["surveys"],
        description=(
            "Editors and the owner. Invite-only surveys: one-time tokens, returned once (only "
            "digests are kept). With"
            ' "format": "csv" the answer is a download, <slug>-invitations.csv: a header "link",'
            " then one link per line, each ' + the link like every CSV text cell."
        ),
    )
    def post(self, request: Request, slug: str) -> Response | HttpResponse:
        survey = _reload(request, slug, "edit")
        wanted = inputs.invitation_request(json_object_body(request))
        tokens = services.invitations_create(survey=survey, count=wanted.count)
        links = _invitation_links(request, survey, tokens)
        if wanted.format == "csv":
            response = HttpResponse(
                services.invitation_links_csv(links),
                status=201,
                content_type="text/csv; charset=utf-8",
            )
            response["Content-Disposition"] = f'attachment; filename="{slug}-invitations.csv"'
            response["Cache-Control"] = "no-store"
            return response
        return Response({"tokens": tokens, "links": links}, status=201)


class InvitationRevokeView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={
            200: s.InvitationRevokeSerializer,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
            409: ERROR_409,
        },
        tags=["surveys"],
        description="Editors and the owner. Revokes every unused token of the survey; used ones "
        "stay counted as used (409 `survey_archived` on an archived survey).",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = _reload(request, slug, "edit")
        json_object_body(request)  # no fields, but a list or a scalar is still a 400
        revoked = services.invitations_revoke(survey=survey)
        counts = services.invitation_counts(survey=survey)
        return Response({"revoked": revoked, "counts": counts.as_dict()})


# --- Responses ----------------------------------------------------------------------------------


class InvitationCheckView(APIView):
    """Is this invitation still usable? Asked by the respondent page when it opens; the token
    is not consumed. No authentication, like the respondent POST, and rate-limited like it."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG],
        request=inputs.InvitationCheckRequestSerializer,
        responses={
            200: s.InvitationCheckResponseSerializer,
            400: ERRORS_400,
            404: ERROR_404,
            429: OpenApiResponse(s.ErrorSerializer, description="Survey rate limit reached."),
        },
        auth=[],
        tags=["responses"],
        description="Check an invitation token without using it up (the token travels in the "
        "body only). Open-access and closed surveys answer false.",
    )
    def post(self, request: Request, slug: str) -> Response:
        body = json_object_body(request)
        # Not the per-process cache: the answer must reflect a survey closed a moment ago.
        survey = selectors.survey_get_public(slug=slug)
        try:
            token = inputs.invitation_token(body)
        except InvalidInput:
            junk_rate_check(client=client_of(request))
            raise
        valid = invitation_check(survey=survey, token=token)
        # As for submissions (surveys.collection.admission): only checks of a usable token spend the
        # survey's allowance, so a flood of made-up tokens cannot lock invitees' pages out.
        if valid:
            submission_rate_check(survey_id=survey.pk, scope="invitation_checks")
        else:
            junk_rate_check(client=client_of(request))
        return Response({"valid": valid})
