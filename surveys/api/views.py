"""API v1 views for surveys, responses, estimates and exports (DESIGN.md §8).

Thin: parse the request, call a service or selector, serialize. Researcher endpoints look the
survey up with ``survey_get_for_owner`` — someone else's survey is a 404 on every endpoint.
The respondent endpoint has no authentication at all (no session → no CSRF, no cookies needed).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.http.request import RawPostDataException
from django.urls import reverse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from deniable import json_input
from deniable.api import CSVRenderer, json_object_body
from deniable.errors import DomainError, InvalidInput
from privacy import rr
from surveys import analysis, csv_cells, designs, export, selectors, services
from surveys.api import serializers as s
from surveys.ratelimit import submission_rate_check
from surveys.services.invitation_check import invitation_check
from surveys.services.validation import text_problem

ERRORS_400 = OpenApiResponse(s.FieldErrorsSerializer, description="Invalid input, per field.")
ERROR_404 = OpenApiResponse(s.ErrorSerializer, description="No such survey (or not yours).")
ERROR_409 = OpenApiResponse(s.ErrorSerializer, description="The survey's state forbids it.")
SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)


class FormatMixin:
    """``?format=`` picks JSON or CSV; an unknown format is a 400 naming ``format``."""

    renderer_classes = [JSONRenderer, CSVRenderer]

    def perform_content_negotiation(self, request: Request, force: bool = False):
        try:
            return super().perform_content_negotiation(request, force)  # type: ignore[misc]
        except Http404:
            if force:
                raise
            self.format_error = True  # rendered as JSON by the error handler
            return (JSONRenderer(), JSONRenderer.media_type)
        except Exception:  # noqa: BLE001 — NotAcceptable: fall back to JSON
            return (JSONRenderer(), JSONRenderer.media_type)

    def handle_exception(self, exc: Exception) -> Response:
        # Errors are always JSON ({"errors": …} / {"error": …}), even when CSV was asked for.
        response = super().handle_exception(exc)  # type: ignore[misc]
        self.request.accepted_renderer = JSONRenderer()  # type: ignore[attr-defined]
        self.request.accepted_media_type = JSONRenderer.media_type  # type: ignore[attr-defined]
        return response

    def check_format(self, request: Request) -> str:
        if getattr(self, "format_error", False):
            raise InvalidInput.single("format", "One of: json, csv.")
        return request.accepted_renderer.format


# --- Auth ---------------------------------------------------------------------------------------


class AuthTokenView(APIView):
    """Exchange a researcher's username and password for an API token."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        request=s.TokenRequestSerializer,
        responses={
            200: s.TokenResponseSerializer,
            400: ERRORS_400,
            # django-axes (deniable.security.lockout_response): 5 failures lock the username.
            429: OpenApiResponse(
                s.ErrorSerializer, description="locked_out: too many failed attempts."
            ),
        },
        auth=[],
        tags=["auth"],
    )
    def post(self, request: Request) -> Response:
        data = json_object_body(request)
        username, password = data.get("username"), data.get("password")
        errors: dict[str, list[str]] = {}
        for name, value in (("username", username), ("password", password)):
            if not isinstance(value, str) or not value:
                errors[name] = ["This field is required."]
            elif text_problem(value):  # NUL: a database error on PostgreSQL's username lookup
                errors[name] = [text_problem(value) or ""]
        if errors:
            raise InvalidInput(errors)
        user = authenticate(request._request, username=username, password=password)
        if user is None or not user.is_active:
            raise InvalidInput.single(
                "non_field_errors", "Unable to log in with the provided credentials."
            )
        # A token exchange is a login: django-axes resets the username's failure count on this
        # signal (AXES_RESET_ON_SUCCESS) and Django records last_login. No session is started.
        user_logged_in.send(sender=user.__class__, request=request._request, user=user)
        token, _ = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


# --- Surveys ------------------------------------------------------------------------------------


def _survey_out(survey: Any, request: Request) -> dict[str, Any]:
    return s.SurveyOutSerializer(survey, context={"request": request}).data


def _reload(request: Request, slug: str) -> Any:
    return selectors.survey_get_for_owner(user=request.user, slug=slug)


class SurveyListCreateView(APIView):
    @extend_schema(responses={200: s.SurveyOutSerializer(many=True)}, tags=["surveys"])
    def get(self, request: Request) -> Response:
        surveys = selectors.survey_list_for_owner(user=request.user)
        return Response(
            s.SurveyOutSerializer(surveys, many=True, context={"request": request}).data
        )

    @extend_schema(
        request=s.SurveyInSerializer,
        responses={201: s.SurveyOutSerializer, 400: ERRORS_400},
        tags=["surveys"],
    )
    def post(self, request: Request) -> Response:
        survey = services.survey_create(owner=request.user, data=json_object_body(request))
        return Response(_survey_out(_reload(request, survey.slug), request), status=201)


class SurveyDetailView(APIView):
    @extend_schema(
        parameters=[SLUG], responses={200: s.SurveyOutSerializer, 404: ERROR_404}, tags=["surveys"]
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(_survey_out(_reload(request, slug), request))

    @extend_schema(
        parameters=[SLUG],
        request=s.SurveyPatchSerializer,
        responses={200: s.SurveyOutSerializer, 400: ERRORS_400, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="Drafts only (409 once open). `questions`, when given, replaces them all.",
    )
    def patch(self, request: Request, slug: str) -> Response:
        survey = _reload(request, slug)
        services.survey_update(survey=survey, data=json_object_body(request))
        return Response(_survey_out(_reload(request, slug), request))


class SurveyOpenView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="draft → open.",
    )
    def post(self, request: Request, slug: str) -> Response:
        services.survey_open(survey=_reload(request, slug))
        return Response(_survey_out(_reload(request, slug), request))


class SurveyCloseView(APIView):
    @extend_schema(
        parameters=[SLUG],
        request=None,
        responses={200: s.SurveyOutSerializer, 404: ERROR_404, 409: ERROR_409},
        tags=["surveys"],
        description="open → closed.",
    )
    def post(self, request: Request, slug: str) -> Response:
        services.survey_close(survey=_reload(request, slug))
        return Response(_survey_out(_reload(request, slug), request))


INVITATION_FORMATS = ("json", "csv")


def _invitation_request(data: Mapping[str, Any]) -> tuple[Any, str]:
    """``count`` (checked by the service) and ``format``; a bad format is a 400 naming it."""
    fmt = data.get("format", "json")
    if fmt not in INVITATION_FORMATS:
        errors = {"format": ["One of: json, csv."]}
        try:
            services.validate_invitation_count(data.get("count"))
        except InvalidInput as exc:
            errors.update(exc.errors)
        raise InvalidInput(errors)
    return data.get("count"), fmt


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
        request=s.InvitationRequestSerializer,
        responses={
            (201, "application/json"): s.InvitationResponseSerializer,
            (201, "text/csv"): OpenApiTypes.STR,
            400: ERRORS_400,
            404: ERROR_404,
            409: ERROR_409,
        },
        tags=["surveys"],
        description=(
            "Invite-only surveys: one-time tokens, returned once (only digests are kept). With"
            ' "format": "csv" the answer is a download, <slug>-invitations.csv, one link per line.'
        ),
    )
    def post(self, request: Request, slug: str) -> Response | HttpResponse:
        survey = _reload(request, slug)
        count, fmt = _invitation_request(json_object_body(request))
        tokens = services.invitations_create(survey=survey, count=count)
        links = _invitation_links(request, survey, tokens)
        if fmt == "csv":
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
        responses={200: s.InvitationRevokeSerializer, 400: ERRORS_400, 404: ERROR_404},
        tags=["surveys"],
        description="Revokes every unused token of the survey; used ones stay counted as used.",
    )
    def post(self, request: Request, slug: str) -> Response:
        survey = _reload(request, slug)
        json_object_body(request)  # no fields, but a list or a scalar is still a 400
        revoked = services.invitations_revoke(survey=survey)
        counts = services.invitation_counts(survey=survey)
        return Response({"revoked": revoked, "counts": counts.as_dict()})


# --- Responses ----------------------------------------------------------------------------------


class ResponseCreateView(APIView):
    """A respondent's reported answers. No authentication: no cookies, no CSRF, no account."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG],
        request=s.SubmissionRequestSerializer,
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
        body, code = _submit(slug, json_object_body(request))
        return Response(body, status=code)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        # The hot path of the whole product (issue 5): a well-formed JSON POST skips DRF's
        # Request/negotiation/parser/renderer layers (≈ a third of the CPU per submission). The
        # same service call, the same bodies and status codes; anything else (another method or
        # content type, a body that is not a JSON object, non-UTF-8) takes DRF's path unchanged,
        # so error shapes stay DRF's. The schema still comes from ``post`` above.
        if request.method == "POST" and request.content_type == "application/json":
            data = _json_object(request)
            if data is not None:
                try:
                    json_input.check_json_value(data)
                    body, code = _submit(kwargs["slug"], data)
                except DomainError as exc:
                    body, code = exc.as_body(), exc.status_code
                response = HttpResponse(_dumps(body), status=code, content_type="application/json")
                response["Vary"] = "Accept"  # as DRF's Response would say
                response["Allow"] = "POST, OPTIONS"
                return response
        return super().dispatch(request, *args, **kwargs)


def _submit(slug: str, data: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """One submission: the survey from the per-process cache (its open/closed state is checked
    again by the INSERT), the survey's rate limit, then the service."""
    survey = selectors.survey_get_public_cached(slug=slug)
    submission_rate_check(survey_id=survey.pk)
    outcome = services.submission_create(
        survey=survey,
        submission_id=data.get("submission_id"),
        randomizer=data.get("randomizer"),
        answers=data.get("answers"),
        token=data.get("token"),
    )
    code = status.HTTP_201_CREATED if outcome.status == "accepted" else status.HTTP_200_OK
    return {"submission_id": str(outcome.submission_id), "status": outcome.status}, code


def _reject_constant(name: str) -> Any:
    raise ValueError(name)  # NaN/Infinity are not JSON (DRF's strict parser refuses them too)


def _json_object(request: HttpRequest) -> dict[str, Any] | None:
    """The body as a JSON object, or None to let DRF parse (and word the error) itself."""
    charset = (request.content_params or {}).get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        return None
    try:
        data = json.loads(request.body.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RawPostDataException, RecursionError):
        return None  # DRF's path answers these (deep nesting included) with a 400
    return data if isinstance(data, dict) else None


def _dumps(body: Any) -> bytes:
    # Byte-for-byte what DRF's JSONRenderer writes (compact, UTF-8).
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


# --- Estimates ----------------------------------------------------------------------------------

ESTIMATE_COLUMNS = [
    "survey", "group_by", "group", "group_respondents", "key", "kind", "option", "epsilon",
    "design", "confidence", "n", "reported_yes", "reported_yes_rate", "reported",
    "reported_rate", "count", "share", "mean", "estimate", "estimate_unclipped", "std_error",
    "ci_low", "ci_high",
]  # fmt: skip
# Written as text cells (csv_cells: "'" + the exact text); every other column is a number.
ESTIMATE_TEXT_COLUMNS = frozenset(
    {"survey", "group_by", "group", "key", "kind", "option", "design"}
)


def _design_cell(design: dict[str, Any] | None) -> str:
    if not design:
        return ""
    return " ".join(f"{k}={v}" for k, v in design.items())


def _estimate_cell(column: str, value: Any) -> Any:
    if value is None or value == "":
        return csv_cells.MISSING
    if column in ESTIMATE_TEXT_COLUMNS:
        return csv_cells.text_cell(str(value))
    return csv_cells.number_cell(value)


def _estimate_rows(body: dict[str, Any]) -> Iterator[list[Any]]:
    """One row per question (choice/category: per option), per group with ``group_by``."""
    blocks = [("", body["respondents"], body["questions"])]
    blocks += [(g["group"], g["respondents"], g["questions"]) for g in body.get("groups", [])]
    for group, respondents, questions in blocks:
        for q in questions:
            base = {
                "survey": body["survey"],
                "group_by": body.get("group_by", "") if group != "" else "",
                "group": group,
                "group_respondents": respondents,
                "key": q["key"],
                "kind": q["kind"],
                "epsilon": q["epsilon"],
                "design": _design_cell(q["design"]),
                "confidence": body["confidence"],
                "n": q["n"],
            }
            rows = (
                [{**base, **option} for option in q["options"]]
                if "options" in q
                else [{**base, **{k: v for k, v in q.items() if k in ESTIMATE_COLUMNS}}]
            )
            for row in rows:
                row.update({k: base[k] for k in ("design", "group")})
                yield [_estimate_cell(k, row.get(k)) for k in ESTIMATE_COLUMNS]


def estimates_csv(body: dict[str, Any]) -> str:
    """The estimates as CSV, cells written as every Deniable CSV writes them (csv_cells)."""
    return "".join(csv_cells.csv_chunks(ESTIMATE_COLUMNS, _estimate_rows(body)))


def wants_download(request: Request) -> bool:
    """``?download=1`` asks for a JSON body as a file (Content-Disposition: attachment); the
    body itself is unchanged, so API clients see exactly the same response."""
    return request.query_params.get("download", "").lower() in ("1", "true", "yes")


def estimates_filename(slug: str, group_by: str | None, fmt: str) -> str:
    """Distinct names: ``<slug>-estimates.csv`` and ``<slug>-estimates-by-<group>.csv`` (a
    browser would otherwise save a grouped download over an ungrouped one, or as ``(1)``)."""
    group = f"-by-{slugify(group_by)}" if group_by else ""
    return f"{slugify(slug)}-estimates{group}.{fmt}"


class EstimatesView(FormatMixin, APIView):
    @extend_schema(
        parameters=[
            SLUG,
            OpenApiParameter("confidence", OpenApiTypes.DOUBLE, default=0.95),
            OpenApiParameter("group_by", OpenApiTypes.STR, description="A category question."),
            OpenApiParameter(
                "compare", OpenApiTypes.BOOL, description="With group_by: group comparisons."
            ),
            OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"]),
            OpenApiParameter(
                "download",
                OpenApiTypes.STR,
                description="1: send JSON as a file (Content-Disposition: attachment).",
            ),
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
        survey = _reload(request, slug)
        fmt = self.check_format(request)
        group_by = request.query_params.get("group_by") or None
        compare = analysis.wants_compare(request.query_params.get("compare"), group_by)
        body = selectors.survey_estimates(
            survey=survey,
            confidence=request.query_params.get("confidence", 0.95),
            group_by=group_by,
        )
        if compare:  # DESIGN.md §8.1: differences and tests across the groups
            analysis.add_comparisons(body, survey=survey)
        name = estimates_filename(slug, body.get("group_by"), fmt)
        if fmt == "csv":
            response = Response(estimates_csv(body), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{name}"'
            return response
        response = Response(body)
        if wants_download(request):
            response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


class ExportView(FormatMixin, APIView):
    @extend_schema(
        parameters=[SLUG, OpenApiParameter("format", OpenApiTypes.STR, enum=["csv", "json"])],
        responses={
            (200, "text/csv"): OpenApiTypes.STR,
            (200, "application/json"): s.ExportSerializer,
            400: ERRORS_400,
            404: ERROR_404,
        },
        tags=["estimates"],
        description=(
            "Reports (never true answers), one row per respondent, SHUFFLED, without ids or dates."
            " CSV: a header row of question keys, then the rows; every text cell is ' followed by"
            " the exact text (drop the first character to read it), numbers are bare, empty is"
            " missing (docs/exports.md). The designs are at responses/export/metadata/."
        ),
    )
    def get(self, request: Request, slug: str) -> StreamingHttpResponse:
        survey = _reload(request, slug)
        fmt = self.check_format(request) if "format" in request.query_params else "csv"
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
        return Response(export.export_metadata(_reload(request, slug)))


# --- Design preview -----------------------------------------------------------------------------


class DesignPreviewView(APIView):
    @extend_schema(
        request=s.DesignPreviewRequestSerializer,
        responses={200: s.DesignPreviewResponseSerializer, 400: ERRORS_400},
        tags=["designs"],
        description="Live ε, deniability and planned precision for the survey builder.",
    )
    def post(self, request: Request) -> Response:
        serializer = s.DesignPreviewRequestSerializer(data=json_object_body(request))
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        kind = data["kind"]
        k = data.get("k")
        if kind == "choice" and data.get("options"):
            k = len(data["options"])
        if kind == "choice" and k is None:
            raise InvalidInput.single("options", "Give the options (or k) of a choice question.")
        confidence = selectors.validate_confidence(data.get("confidence", 0.95))
        try:
            preview = designs.design_preview(
                kind=kind,
                spec=data.get("design"),
                k=k,
                planned_n=data.get("planned_n", 1000),
                prior=data.get("prior"),
                confidence=confidence,
            )
        except rr.DesignError as exc:
            field = {"spec": "design", "kind": "kind"}.get(exc.field, f"design.{exc.field}")
            raise InvalidInput.single(field, exc.message) from None
        except ValueError as exc:
            raise InvalidInput.single("prior", str(exc)) from None
        return Response(preview)


# --- Invitation check (respondents) -------------------------------------------------------------


class InvitationCheckView(APIView):
    """Is this invitation still usable? Asked by the respondent page when it opens; the token
    is not consumed. No authentication, like the respondent POST, and rate-limited like it."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(
        parameters=[SLUG],
        request=s.InvitationCheckRequestSerializer,
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
        submission_rate_check(survey_id=survey.pk, scope="invitation_checks")
        valid = invitation_check(survey=survey, token=body.get("token"))
        return Response({"valid": valid})
