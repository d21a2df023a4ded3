"""A survey's audit log, for its owner: the page ``/surveys/<slug>/audit/`` and
``GET /api/v1/surveys/<slug>/audit/`` (DESIGN §8.8; docs/accounts.md#audit).

Thin: the permission resolver decides (``need="own"``: editors and viewers get a 403, anyone
else a 404); the audit app reads and writes the log (``audit.views``).
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit import selectors as audit_selectors
from audit import views as audit_views
from deniable.negotiation import FormatNegotiationMixin
from surveys import selectors
from surveys.api.views import ERROR_403, ERROR_404, ERRORS_400
from surveys.pages.researcher import survey_or_404

SLUG = OpenApiParameter("slug", OpenApiTypes.STR, OpenApiParameter.PATH)


class SurveyAuditView(FormatNegotiationMixin, APIView):
    @extend_schema(
        parameters=[SLUG, audit_views.FORMAT],
        responses={
            200: audit_views.AuditLogSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            400: ERRORS_400,
            403: ERROR_403,
            404: ERROR_404,
        },
        tags=["audit"],
        description="Owner only. Who did what to this survey, newest first; append-only. Never "
        "respondents, answers, their timing or invitations' use.",
    )
    def get(self, request: Request, slug: str) -> Response | StreamingHttpResponse:
        survey = selectors.survey_get_for_user(user=request.user, slug=slug, need="own")
        qs = audit_selectors.entries(survey_pk=survey.pk)
        return audit_views.log_response(self, request, qs, name=survey.slug, site=False)


@never_cache
@require_safe
@login_required
def survey_audit_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "own")
    return audit_views.log_page(
        request,
        audit_selectors.entries(survey_pk=survey.pk),
        title=f"Audit log of “{survey.title}”",
        csv_url=reverse("api-survey-audit", args=[survey.slug]) + "?format=csv",
        context={"survey": survey},
    )
