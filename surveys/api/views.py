"""API v1 views for surveys, responses, invitations and design previews
(docs/api.md#endpoints).

The read views with a CSV form (estimates, the export) are in ``surveys.api.read_views``.

Thin: parse the request, call a service or selector, serialize. Researcher endpoints look the
survey up with ``survey_get_for_user(need=…)`` — a survey not shared with the requester is a 404
on every endpoint, and a team member whose role is too low gets a 403 (docs/teams.md#roles).
The management endpoints (duplicate, archive, delete, collaborators) are in
``surveys.api.management_views``.
The respondent endpoint has no authentication at all (no session → no CSRF, no cookies needed).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.http.request import RawPostDataException
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable import json_input
from deniable.api import json_object_body
from deniable.errors import DomainError, InvalidInput, NotFound
from deniable.users import signed_in_user
from dpcore import local as rr
from surveys import inputs, selectors, services
from surveys.api import serializers as s
from surveys.collection import public_survey_cache
from surveys.collection.admission import charge_respondent_post, client_of
from surveys.definitions import question_designs as designs
from surveys.models import Survey

ERRORS_400 = OpenApiResponse(s.FieldErrorsSerializer, description="Invalid input, per field.")
ERROR_403 = OpenApiResponse(
    s.ErrorSerializer, description="forbidden: your role on this survey does not allow it."
)
ERROR_404 = OpenApiResponse(s.ErrorSerializer, description="No such survey (or not shared).")
ERROR_409 = OpenApiResponse(s.ErrorSerializer, description="The survey's state forbids it.")
SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)


# --- Surveys ------------------------------------------------------------------------------------


def _survey_out(survey: Any, request: Request) -> dict[str, Any]:
    return s.SurveyOutSerializer(survey, context={"request": request}).data


def _reload(request: Request, slug: str, need: selectors.Need = "view") -> Any:
    return selectors.survey_get_for_user(user=request.user, slug=slug, need=need)


class SurveyListCreateView(APIView):
    @extend_schema(
        parameters=[inputs.SurveyListQuerySerializer],
        responses={200: s.SurveyOutSerializer(many=True), 400: ERRORS_400},
        tags=["surveys"],
        description="Your surveys and those shared with you (`role`), archived ones only with "
        "`?archived=true`; `?ordering=` title, created, status, responses or budget_left "
        "(-name: descending; default -created).",
    )
    def get(self, request: Request) -> Response:
        query = inputs.survey_list_query(request.query_params)
        services.surveys_sweep_embedded()  # embedded mode: no beat closes them
        surveys = selectors.survey_list_sorted(
            user=request.user, ordering=query.ordering, archived=query.archived
        )
        return Response(
            s.SurveyOutSerializer(surveys, many=True, context={"request": request}).data
        )

    @extend_schema(
        request=inputs.SurveyInSerializer,
        responses={201: s.SurveyOutSerializer, 400: ERRORS_400},
        tags=["surveys"],
    )
    def post(self, request: Request) -> Response:
        spec = inputs.survey_spec(json_object_body(request))
        survey = services.survey_create(owner=signed_in_user(request.user), **spec.kwargs())
        return Response(_survey_out(_reload(request, survey.slug), request), status=201)


class SurveyDetailView(APIView):
    @extend_schema(
        parameters=[SLUG], responses={200: s.SurveyOutSerializer, 404: ERROR_404}, tags=["surveys"]
    )
    def get(self, request: Request, slug: str) -> Response:
        services.surveys_sweep_embedded()  # embedded mode: no beat closes them
        return Response(_survey_out(_reload(request, slug), request))

    @extend_schema(
        parameters=[SLUG],
        request=inputs.SurveyPatchSerializer,
        responses={
            200: s.SurveyOutSerializer,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
            409: ERROR_409,
        },
        tags=["surveys"],
        description="Drafts only (409 once open; `slug_fixed` for a new slug). Editors and the "
        "owner. `questions`, when given, replaces them all.",
    )
    def patch(self, request: Request, slug: str) -> Response:
        survey = _reload(request, slug, "edit")
        changes = inputs.survey_changes(json_object_body(request))
        services.survey_update(survey=survey, changes=changes)
        return Response(_survey_out(_reload(request, survey.slug), request))

    @extend_schema(
        parameters=[SLUG],
        request=inputs.SurveyDeleteSerializer,
        responses={204: None, 400: ERRORS_400, 403: ERROR_403, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="Owner only. Deletes the survey with its reports, tallies, invitations, "
        'team, releases and privacy ledger, irreversibly. Body `{"confirm": <slug>}`; an '
        "open survey must be closed first (409).",
    )
    def delete(self, request: Request, slug: str) -> Response:
        survey = _reload(request, slug, "own")
        body = json_object_body(request)
        services.survey_delete(survey=survey, confirm=body.get("confirm"))
        return Response(status=204)


class SurveyOpenView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 403: ERROR_403, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="draft → open. Editors and the owner.",
    )
    def post(self, request: Request, slug: str) -> Response:
        services.survey_open(survey=_reload(request, slug, "edit"))
        return Response(_survey_out(_reload(request, slug), request))


class SurveyCloseView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 403: ERROR_403, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="open → closed. Editors and the owner.",
    )
    def post(self, request: Request, slug: str) -> Response:
        services.survey_close(survey=_reload(request, slug, "edit"))
        return Response(_survey_out(_reload(request, slug), request))


class ResponseCreateView(APIView):
    """A respondent's reported answers. No authentication: no cookies, no CSRF, no account."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG],
        request=inputs.SubmissionRequestSerializer,
        responses={
            201: s.SubmissionResponseSerializer,
            200: OpenApiResponse(s.SubmissionResponseSerializer, description="Duplicate retry."),
            400: ERRORS_400,
            404: ERROR_404,
            409: ERROR_409,
            413: OpenApiResponse(s.ErrorSerializer, description="Body over the size cap."),
            429: OpenApiResponse(s.ErrorSerializer, description="Survey rate limit reached."),
        },
        auth=[],
        tags=["responses"],
    )
    def post(self, request: Request, slug: str) -> Response:
        body, code = _submit(slug, json_object_body(request), client_of(request))
        return Response(body, status=code)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        # The hot path of the whole product (issue 5): a well-formed JSON POST skips DRF's
        # Request/negotiation/parser/renderer layers (≈ a third of the CPU per submission). The
        # same service call, the same bodies and status codes; anything else (another method or
        # content type, a body that is not a JSON object, non-UTF-8) takes DRF's path unchanged,
        # so error shapes stay DRF's. The schema still comes from ``post`` above.
        if request.method == "POST" and request.content_type == "application/json":
            parsed = _json_object(request)
            if parsed is not None:
                text, data = parsed
                try:
                    json_input.check_utf8_json(text, data)
                    body, code = _submit(kwargs["slug"], data, client_of(request))
                except DomainError as exc:
                    body, code = exc.as_body(), exc.status_code
                response = HttpResponse(_dumps(body), status=code, content_type="application/json")
                response["Vary"] = "Accept"  # as DRF's Response would say
                response["Allow"] = "POST, OPTIONS"
                return response
        return super().dispatch(request, *args, **kwargs)


def _submit(slug: str, data: Mapping[str, Any], client: str) -> tuple[dict[str, Any], int]:
    """One submission: the survey from the per-process cache (its open/closed state is checked
    again by the INSERT), validation, the rate limit (the survey's for what could be stored,
    the sender's for junk: :mod:`surveys.collection.admission`), then the service."""
    survey = public_survey_cache.survey_get_public_cached(slug=slug)
    try:
        return _submit_to(survey, data, client)
    except NotFound:
        # The cached survey is gone: deleted, perhaps recreated under the same slug within the
        # cache's few seconds. Read the slug afresh once and validate against what it is now.
        public_survey_cache.invalidate(slug=slug)
        fresh = public_survey_cache.survey_get_public_cached(slug=slug)
        if fresh.pk == survey.pk:
            raise
        return _submit_to(fresh, data, client)


def _submit_to(survey: Survey, data: Mapping[str, Any], client: str) -> tuple[dict[str, Any], int]:
    try:
        spec = inputs.schema_of(survey).spec(data)
    except InvalidInput:
        charge_respondent_post(survey=survey, spec=None, client=client)
        raise
    charge_respondent_post(survey=survey, spec=spec, client=client)
    outcome = services.submission_create(survey=survey, **spec.kwargs())
    code = status.HTTP_201_CREATED if outcome.status == "accepted" else status.HTTP_200_OK
    return {"submission_id": str(outcome.submission_id), "status": outcome.status}, code


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # NaN/Infinity are not JSON (DRF's strict parser refuses them too)


def _json_object(request: HttpRequest) -> tuple[str, dict[str, Any]] | None:
    """The body's text and the JSON object it holds, or None to let DRF parse (and word the
    error) itself."""
    charset = (request.content_params or {}).get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        return None
    try:
        text = request.body.decode("utf-8")
        data = json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RawPostDataException, RecursionError):
        return None  # DRF's path answers these (deep nesting included) with a 400
    return (text, data) if isinstance(data, dict) else None


def _dumps(body: Any) -> bytes:
    # Byte-for-byte what DRF's JSONRenderer writes (compact, UTF-8).
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


# --- Design preview -----------------------------------------------------------------------------


class DesignPreviewView(APIView):
    @extend_schema(
        request=inputs.DesignPreviewRequestSerializer,
        responses={200: s.DesignPreviewResponseSerializer, 400: ERRORS_400},
        tags=["designs"],
        description="Live ε, deniability and planned precision for the survey builder.",
    )
    def post(self, request: Request) -> Response:
        wanted = inputs.design_preview_request(json_object_body(request))
        try:
            preview = designs.design_preview(
                kind=wanted.kind,
                spec=wanted.design,
                k=wanted.k,
                planned_n=wanted.planned_n,
                prior=wanted.prior,
                confidence=wanted.confidence,
            )
        except rr.DesignError as exc:
            field = {"spec": "design", "kind": "kind"}.get(exc.field, f"design.{exc.field}")
            raise InvalidInput.single(field, exc.message) from None
        except ValueError as exc:
            raise InvalidInput.single("prior", str(exc)) from None
        return Response(preview)


# --- Invitation check (respondents) -------------------------------------------------------------
