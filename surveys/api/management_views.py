"""API v1 survey management (docs/api.md#managing-surveys): duplicate, archive, unarchive and
the team (docs/teams.md). ``DELETE /api/v1/surveys/<slug>/`` is on the detail view
(``surveys.api.views.SurveyDetailView``).

Thin like the other views: every survey is looked up through the permission resolver with the
role the action needs (``surveys.selectors.survey_get_for_user``).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.api import json_object_body
from deniable.errors import NotFound
from deniable.users import signed_in_user
from surveys import inputs, selectors, services
from surveys.api import serializers as s
from surveys.api.views import ERROR_403, ERROR_404, ERROR_409, ERRORS_400, SLUG

USERNAME = OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH)


def _out(request: Request, slug: str) -> dict[str, Any]:
    survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="view")
    return s.SurveyOutSerializer(survey, context={"request": request}).data


class SurveyDuplicateView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={201: s.SurveyOutSerializer, 403: ERROR_403, 404: ERROR_404},
        tags=["surveys"],
        description="Editors and the owner. A new draft owned by you: the questions, designs, "
        "budget and settings, a new slug and the title “… (copy)”; no responses, invitations, "
        "releases or team.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="edit")
        json_object_body(request)  # no fields, but a list or a scalar is still a 400
        copy = services.survey_duplicate(survey=survey, owner=signed_in_user(request.user))
        return Response(_out(request, copy.slug), status=201)


class SurveyArchiveView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 403: ERROR_403, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="Owner only. closed → archived: read-only and hidden from the default list "
        "(the survey list shows them with `?archived=true`). 409 unless closed.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        services.survey_archive(survey=survey)
        return Response(_out(request, slug))


class SurveyUnarchiveView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 403: ERROR_403, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="Owner only. archived → closed. 409 unless archived.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        services.survey_unarchive(survey=survey)
        return Response(_out(request, slug))


class CollaboratorsView(APIView):
    @extend_schema(
        parameters=[SLUG],
        responses={200: s.CollaboratorOutSerializer(many=True), 404: ERROR_404},
        tags=["teams"],
        description="The survey's team besides the owner (any member may read it).",
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="view")
        team = selectors.survey_collaborators(survey=survey)
        return Response(s.CollaboratorOutSerializer(team, many=True).data)

    @extend_schema(
        parameters=[SLUG],
        request=inputs.CollaboratorInSerializer,
        responses={
            201: s.CollaboratorOutSerializer,
            200: s.CollaboratorOutSerializer,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
        },
        tags=["teams"],
        description="Owner only. Share the survey as viewer or editor (201); posting the same "
        "username again changes the role (200). An unknown username is a 400 naming it.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        spec = inputs.collaborator_spec(json_object_body(request))
        collaborator, created = services.collaborator_set(
            survey=survey, username=spec.username, role=spec.role
        )
        body = s.CollaboratorOutSerializer(collaborator).data
        return Response(body, status=201 if created else 200)


class CollaboratorDetailView(APIView):
    @extend_schema(
        parameters=[SLUG, USERNAME],
        request=None,
        responses={204: None, 403: ERROR_403, 404: ERROR_404},
        tags=["teams"],
        description="Owner only. Stop sharing the survey with this researcher (404 if it was "
        "not shared with them).",
    )
    def delete(self, request: Request, slug: str, username: str) -> Response:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        if not services.collaborator_remove(survey=survey, username=username):
            raise NotFound(f"The survey is not shared with {username}.")
        return Response(status=204)
