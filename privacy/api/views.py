"""Thin views for releases and the budget (docs/api.md#releases): parse, call a service/selector,
shape.

``POST /api/v1/surveys/<slug>/releases/``          → 202 {"id","status","url"} (200 on a repeat
                                                      ``request_id``); 400 / 404 / 409
``GET  /api/v1/surveys/<slug>/releases/``          → the survey's releases (no results)
``POST /api/v1/surveys/<slug>/releases/preview/``  → cost and expected accuracy; charges nothing
``GET  /api/v1/releases/<id>/[?format=csv]``       → one release with its results
``GET  /api/v1/surveys/<slug>/budget/``            → composed ε spent, method, remaining
"""

from __future__ import annotations

from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable.api import CheckedJSONParser, json_object_body
from deniable.errors import Conflict, ErrorCode
from deniable.negotiation import FormatNegotiationMixin, attachment, wants_download
from deniable.renderers import CSVTable
from deniable.users import signed_in
from privacy import inputs, selectors, services
from privacy.api import serializers as s
from privacy.models import Release
from privacy.specs import ReleaseSpec
from surveys.api.serializers import ErrorSerializer, FieldErrorsSerializer
from surveys.models import Survey
from surveys.selectors import survey_get_for_user

SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)
ERRORS_400 = OpenApiResponse(FieldErrorsSerializer, description="Invalid input, per field.")
ERROR_404 = OpenApiResponse(ErrorSerializer, description="No such survey (or not yours).")


class LenientJSONParser(CheckedJSONParser):
    """Accepts the non-standard ``NaN`` / ``Infinity`` literals so that the input serializer can
    reject them with a 400 *naming the field* (the strict parser gives an anonymous parse error)."""

    strict = False


def _release_spec(survey: Survey, request: Request) -> ReleaseSpec:
    """The body, validated by the input serializer against the survey's questions."""
    body = json_object_body(request)
    return inputs.release_spec(questions=list(survey.questions.all()), data=body)


class SurveyReleasesView(APIView):
    parser_classes = [LenientJSONParser]

    @extend_schema(
        parameters=[SLUG],
        responses={200: s.ReleaseSummarySerializer(many=True), 404: ERROR_404},
        summary="List a survey's releases",
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = survey_get_for_user(user=request.user, slug=slug, need="view")
        services.releases_sweep_embedded()
        releases = selectors.release_list_for_survey(survey=survey)
        return Response(s.ReleaseSummarySerializer(releases, many=True).data)

    @extend_schema(
        parameters=[SLUG],
        request=inputs.ReleaseRequestSerializer,
        responses={
            202: s.ReleaseAcceptedSerializer,
            200: OpenApiResponse(s.ReleaseAcceptedSerializer, description="Same request_id."),
            400: ERRORS_400,
            403: OpenApiResponse(
                ErrorSerializer, description="A viewer or editor: only the owner spends the budget."
            ),
            404: ERROR_404,
            409: OpenApiResponse(
                s.BudgetExceededSerializer, description="budget_exceeded, with `remaining`."
            ),
        },
        summary="Request a central-DP release (charges the budget)",
    )
    def post(self, request: Request, slug: str) -> Response:
        # Only the owner spends the privacy budget (docs/teams.md#roles): 403 for the team.
        survey = survey_get_for_user(user=request.user, slug=slug, need="own")
        spec = _release_spec(survey, request)
        release, created = services.release_request(
            survey=survey, user=signed_in(request.user), spec=spec
        )
        body = {"id": str(release.pk), "status": release.status, "url": s.release_url(release)}
        return Response(body, status=status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK)


class ReleasePreviewView(APIView):
    parser_classes = [LenientJSONParser]

    @extend_schema(
        parameters=[SLUG],
        request=inputs.ReleaseRequestSerializer,
        responses={200: s.ReleasePreviewSerializer, 400: ERRORS_400, 404: ERROR_404},
        summary="Preview a release's ε cost and expected error (charges nothing)",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = survey_get_for_user(user=request.user, slug=slug, need="view")
        spec = _release_spec(survey, request)
        return Response(services.release_preview(survey=survey, spec=spec))


def _filename(release: Release, fmt: str) -> str:
    """``<slug>-release-<id>.<fmt>``: names the survey, so downloads from several surveys and
    releases never overwrite each other."""
    return f"{slugify(release.survey.slug)}-release-{release.pk}.{fmt}"


class ReleaseDetailView(FormatNegotiationMixin, APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"]),
            OpenApiParameter(
                "download",
                OpenApiTypes.STR,
                description="1: send JSON as a file (Content-Disposition: attachment).",
            ),
        ],
        responses={
            (200, "application/json"): s.ReleaseSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: ERRORS_400,
            404: OpenApiResponse(ErrorSerializer, description="No such release (or not yours)."),
            409: OpenApiResponse(ErrorSerializer, description="CSV asked before it is done."),
        },
        summary="A release, with its results once done",
    )
    def get(self, request: Request, release_id: str) -> Response:
        fmt = self.negotiated_format(request)
        services.releases_sweep_embedded()
        release = selectors.release_get_for_user(user=request.user, release_id=release_id)
        if fmt == "csv":
            if release.status != Release.Status.DONE:
                raise Conflict(
                    "The release has no results yet.",
                    code=ErrorCode.NOT_READY,
                    status=release.status,
                )
            table = CSVTable(s.CSV_COLUMNS, [s.csv_row(row) for row in s.release_csv_rows(release)])
            return attachment(Response(table), _filename(release, "csv"))
        response = Response(s.ReleaseSerializer(release).data)
        if wants_download(request):
            return attachment(response, _filename(release, "json"))
        return response


class SurveyBudgetView(APIView):
    @extend_schema(
        parameters=[SLUG], responses={200: s.BudgetSerializer, 404: ERROR_404}, summary="Budget"
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = survey_get_for_user(user=request.user, slug=slug, need="view")
        body = selectors.survey_budget(survey=survey)
        releases = selectors.release_list_for_survey(survey=survey)
        body["releases"] = s.ReleaseSummarySerializer(releases, many=True).data
        return Response(body)
