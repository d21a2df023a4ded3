"""XLSForm import and export (docs/xlsform.md, docs/api.md#xlsform).

Thin: the import reads the upload (bounded) and calls ``survey_import_xlsform``; the export looks
the survey up like every read (a viewer may download the form) and records the download in the
audit log (``export.download``, format ``xlsform``), as every other export.
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.parsers import MultiPartParser
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.recording import record
from deniable.errors import InvalidInput, refuse_repeated
from deniable.renderers import FiniteJSONRenderer
from deniable.users import signed_in_user
from surveys import selectors
from surveys.api import serializers as s
from surveys.api.views import ERROR_404, SLUG
from surveys.services.xlsform import survey_import_xlsform
from surveys.xlsform.reader import max_upload_bytes
from surveys.xlsform.write import survey_xlsx

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
UPLOAD = {
    "multipart/form-data": {
        "type": "object",
        "properties": {"file": {"type": "string", "format": "binary"}},
        "required": ["file"],
    }
}


class _JsonAnswers(APIView):
    """Whatever ``Accept`` says, DRF renders JSON here (the body of a 201 and of every error);
    the .xlsx is an ``HttpResponse`` that no renderer touches, so asking for it is never a 406."""

    def perform_content_negotiation(
        self, request: Request, force: bool = False
    ) -> tuple[BaseRenderer, str]:
        return FiniteJSONRenderer(), FiniteJSONRenderer.media_type


class XlsformImportView(_JsonAnswers):
    parser_classes = [MultiPartParser]

    @extend_schema(
        request=UPLOAD,
        responses={
            201: s.SurveyOutSerializer,
            400: OpenApiResponse(
                s.FieldErrorsSerializer,
                description='Every problem by cell: {"errors": {"survey!D5": ["…"]}} ("file" '
                "for the file as a whole). Nothing is created.",
            ),
            415: OpenApiResponse(
                s.ErrorSerializer, description="Not a multipart/form-data body DRF can read."
            ),
        },
        tags=["surveys"],
        description="An XLSForm (.xlsx, multipart field `file`, at most 1 MiB) → a draft survey "
        "(docs/xlsform.md).",
    )
    def post(self, request: Request) -> Response:
        refuse_repeated(request.FILES, ("file",))  # two files: the first was dropped unsaid
        upload = request.FILES.get("file")
        if upload is None:
            raise InvalidInput.single("file", "Send the .xlsx as the multipart field file.")
        limit = max_upload_bytes()
        data = upload.read(limit + 1)
        if len(data) > limit:
            raise InvalidInput.single("file", f"The file is over {limit} bytes; at most {limit}.")
        survey = survey_import_xlsform(owner=signed_in_user(request.user), data=data)
        fresh = selectors.survey_get_for_user(user=request.user, slug=survey.slug, need="view")
        return Response(s.SurveyOutSerializer(fresh, context={"request": request}).data, status=201)


class XlsformExportView(_JsonAnswers):
    @extend_schema(
        parameters=[SLUG],
        responses={
            (200, XLSX): OpenApiResponse(OpenApiTypes.BINARY, description="The XLSForm."),
            404: ERROR_404,
            409: OpenApiResponse(
                s.ErrorSerializer, description="Words an .xlsx cannot carry (control characters)."
            ),
        },
        tags=["surveys"],
        description="The survey as an XLSForm .xlsx that pyxform converts to an XForm and that "
        "imports back to the same survey (docs/xlsform.md). Anyone on the team.",
    )
    def get(self, request: Request, slug: str) -> HttpResponse:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="view")
        record("export.download", survey=survey, detail={"format": "xlsform"})
        response = HttpResponse(survey_xlsx(survey), content_type=XLSX)
        response["Content-Disposition"] = f'attachment; filename="{survey.slug}.xlsx"'
        response["Cache-Control"] = "no-store"
        return response
