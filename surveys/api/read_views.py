"""API v1 read views with a CSV form: estimates and the reports export (docs/api.md#estimates,
docs/api.md#export).

Thin: look the survey up (someone else's is a 404), call a selector, hand the data to an output
serializer; the negotiated renderer (``deniable.negotiation``) writes JSON or CSV.
"""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, HttpResponse, JsonResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.recording import record
from deniable.errors import InvalidInput
from deniable.negotiation import FormatNegotiationMixin, attachment, wants_download
from deniable.renderers import CSVRenderer, FiniteJSONRenderer
from surveys import selectors, services
from surveys.analysis import export, export_labelled
from surveys.analysis import joint as joint_analysis
from surveys.analysis import regression as analysis
from surveys.api import serializers as s
from surveys.api.estimates import SurveyEstimatesOut, estimates_filename, estimates_table
from surveys.inputs.poststratify import poststratification

ERRORS_400 = OpenApiResponse(s.FieldErrorsSerializer, description="Invalid input, per field.")
ERROR_404 = OpenApiResponse(s.ErrorSerializer, description="No such survey (or not yours).")
#: Seconds a client is asked to wait while the worker makes a shuffled file.
PREPARING_RETRY_AFTER = 5
SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)
FORMAT = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"])
DOWNLOAD = OpenApiParameter(
    "download",
    OpenApiTypes.STR,
    description="1: send JSON as a file (Content-Disposition: attachment).",
)


def _survey_read(request: Request, slug: str) -> Any:
    """The survey, for a member who may view it. Embedded mode (no beat): surveys past their
    closing time are closed first, at most once a minute (surveys.services.closing)."""
    services.surveys_sweep_embedded()
    return selectors.survey_get_for_user(user=request.user, slug=slug, need="view")


class EstimatesView(FormatNegotiationMixin, APIView):
    @extend_schema(
        parameters=[
            SLUG,
            OpenApiParameter("confidence", OpenApiTypes.DOUBLE, default=0.95),
            OpenApiParameter("group_by", OpenApiTypes.STR, description="A category question."),
            OpenApiParameter(
                "compare", OpenApiTypes.BOOL, description="With group_by: group comparisons."
            ),
            OpenApiParameter(
                "joint",
                OpenApiTypes.STR,
                description="A multi question (≤ 6 options): adds its joint over option patterns.",
            ),
            OpenApiParameter(
                "poststratify", OpenApiTypes.STR, description="A category question to weight by."
            ),
            OpenApiParameter(
                "shares", OpenApiTypes.STR, description="With poststratify: <option>:<share>,…"
            ),
            FORMAT,
            DOWNLOAD,
        ],
        responses={
            (200, "application/json"): s.EstimatesSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: ERRORS_400,
            404: ERROR_404,
        },
        tags=["estimates"],
        description="Debiased estimates from the tallies (one aggregate query).",
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = _survey_read(request, slug)
        fmt = self.negotiated_format(request)
        group_by = request.query_params.get("group_by") or None
        compare = analysis.wants_compare(request.query_params.get("compare"), group_by)
        joint_key = request.query_params.get("joint") or None
        if joint_key is not None:
            joint_analysis.joint_question(survey, joint_key)  # a bad key is a 400 before the work
            if fmt == "csv":
                raise InvalidInput.single("joint", "The joint is in the JSON body only.")
        weighting = poststratification(request.query_params, list(survey.questions.all()))
        estimates = selectors.survey_estimates(
            survey=survey,
            confidence=request.query_params.get("confidence", 0.95),
            group_by=group_by,
            poststratify=weighting,
        )
        body = dict(SurveyEstimatesOut(estimates).data)
        if compare:  # docs/analysis.md: differences and tests across the groups
            analysis.add_comparisons(body, survey=survey)
        if joint_key is not None:  # docs/analysis.md#joint: the multi-select's joint
            body["joint"] = joint_analysis.joint_body(
                survey, joint_key, confidence=body["confidence"]
            )
        name = estimates_filename(slug, estimates.group_by, fmt, estimates.poststratified_by)
        if fmt == "csv":
            return attachment(Response(estimates_table(body)), name)
        response = Response(body)
        return attachment(response, name) if wants_download(request) else response


class _FileRenderer(BaseRenderer):
    """Lets content negotiation accept a binary format the view writes itself (never renders)."""

    charset = None

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> Any:
        raise NotImplementedError("the view returns a file response")


class StataRenderer(_FileRenderer):
    media_type = export_labelled.FORMATS["dta"].content_type
    format = "dta"


class SPSSRenderer(_FileRenderer):
    media_type = export_labelled.FORMATS["sav"].content_type
    format = "sav"


class ExportView(FormatNegotiationMixin, APIView):
    # CSV unless another is asked for.
    renderer_classes = [CSVRenderer, FiniteJSONRenderer, StataRenderer, SPSSRenderer]
    format_names = ("csv", "json", "dta", "sav")

    @extend_schema(
        parameters=[SLUG, OpenApiParameter("format", OpenApiTypes.STR, enum=list(format_names))],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): s.ExportSerializer,
            (200, StataRenderer.media_type): OpenApiTypes.BINARY,
            (200, SPSSRenderer.media_type): OpenApiTypes.BINARY,
            400: ERRORS_400,
            404: ERROR_404,
        },
        tags=["estimates"],
        description=(
            "Reports (never true answers), one row per respondent, in the database's random order"
            " (not a cryptographic shuffle, and no amplification by shuffling is claimed: rows keep"
            " the direct answers; see responses/export/shuffled/), without ids or dates."
            " CSV: a header row of question keys, then the rows; every text cell is ' followed by"
            " the exact text (drop the first character to read it), numbers are bare, empty is"
            " missing (docs/exports.md). The designs are at responses/export/metadata/."
            " format=dta (Stata 118) and format=sav (SPSS): the same rows and columns with the"
            " question texts as variable labels and the options as value labels (yes/no: 1 = Yes,"
            " 0 = No)."
        ),
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse | FileResponse:
        survey = _survey_read(request, slug)
        fmt = self.negotiated_format(request)
        record("export.download", survey=survey, detail={"format": fmt})
        if fmt in export_labelled.FORMATS:
            labelled = FileResponse(
                export_labelled.export_labelled(survey, fmt),
                as_attachment=True,
                filename=f"{slug}-reports.{fmt}",
                content_type=export_labelled.FORMATS[fmt].content_type,
            )
            labelled["Cache-Control"] = "no-store"
            return labelled
        # Streamed (one row per respondent, any number of them): the renderers are bypassed, the
        # format is still the negotiated one.
        if fmt == "json":
            response = StreamingHttpResponse(
                export.export_json(survey), content_type="application/json"
            )
        else:
            response = StreamingHttpResponse(
                export.export_csv(survey), content_type="text/csv; charset=utf-8"
            )
            response["Content-Disposition"] = f'attachment; filename="{slug}-reports.csv"'
        response["Cache-Control"] = "no-store"
        return response


class ExportMetadataView(APIView):
    @extend_schema(
        parameters=[SLUG],
        responses={200: s.ExportMetadataSerializer, 404: ERROR_404},
        tags=["estimates"],
        description=(
            "What the export's columns mean: per question its kind, text, options or bounds, the"
            " full design (with c, d and ε) and a ready-made rrreg call; how CSV cells are written."
        ),
    )
    def get(self, request: Request, slug: str) -> Response:
        survey = _survey_read(request, slug)
        return Response(export.export_metadata(survey))


class ShuffledExportView(FormatNegotiationMixin, APIView):
    renderer_classes = [CSVRenderer, FiniteJSONRenderer]  # CSV unless JSON is asked for

    @extend_schema(
        parameters=[SLUG, FORMAT],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): OpenApiTypes.OBJECT,
            400: ERRORS_400,
            404: ERROR_404,
            202: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description='{"status": "preparing"}: being made; Retry-After says when to ask.',
            ),
            409: OpenApiResponse(s.ErrorSerializer, description="survey_open: not closed yet."),
        },
        tags=["estimates"],
        description=(
            "The shuffled file of a closed survey (docs/exports.md#the-shuffled-file): each"
            " randomized question's reports alone, shuffled on their own with a CSPRNG; no direct"
            " answers, ids or dates. Made once, then the same bytes on every download. JSON adds"
            ' "guarantee": the central (epsilon, delta) for whoever receives only this file.'
        ),
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        survey = _survey_read(request, slug)
        fmt = self.negotiated_format(request)
        try:
            stored = services.shuffled_export_get_or_produce(survey=survey)
        except services.ShuffledExportPreparing:
            # The worker is making it (closing enqueued it): say so rather than hold the request.
            preparing = JsonResponse(
                {
                    "status": "preparing",
                    "detail": "The shuffled file is being made; try again in a few seconds.",
                },
                status=202,
            )
            preparing["Retry-After"] = str(PREPARING_RETRY_AFTER)
            return preparing
        record("export.download", survey=survey, detail={"format": fmt, "file": "shuffled"})
        if fmt == "json":
            body, digest, content_type = stored.json_text, stored.json_sha256, "application/json"
        else:
            body, digest, content_type = stored.csv_text, stored.csv_sha256, "text/csv"
        response = HttpResponse(body.encode("utf-8"), content_type=f"{content_type}; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{slug}-shuffled.{fmt}"'
        response["ETag"] = f'"{digest}"'
        response["Cache-Control"] = "no-store"
        return response
