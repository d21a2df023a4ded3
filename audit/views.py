"""The audit log's pages and API views (docs/accounts.md#audit).

The site's log is for staff: ``/audit/`` and ``GET /api/v1/audit/``. A survey's log is for its
owner, at ``/surveys/<slug>/audit/`` and ``GET /api/v1/surveys/<slug>/audit/`` (DESIGN §8.8):
those views live in surveys (``surveys.audit_views``), which decides who owns a survey, and call
:func:`log_response` and :func:`log_page` here. ``?format=csv`` gives the whole log as CSV.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from audit import selectors
from audit.models import Entry
from deniable.errors import Forbidden
from deniable.negotiation import FormatNegotiationMixin

FORMAT = OpenApiParameter("format", OpenApiTypes.STR, enum=["json", "csv"])


class AuditEntrySerializer(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True, help_text="Username; null for the system.")
    action = serializers.CharField()
    detail = serializers.DictField()
    survey = serializers.CharField(
        allow_null=True, required=False, help_text="Site log only: the survey's slug."
    )


class AuditLogSerializer(serializers.Serializer[Any]):
    results = AuditEntrySerializer(many=True)


def log_response(
    view: FormatNegotiationMixin, request: Request, qs: QuerySet[Entry], *, name: str, site: bool
) -> Response | StreamingHttpResponse:
    """JSON ``{"results": [...]}`` newest first, or the CSV file (``?format=csv``)."""
    if view.negotiated_format(request) == "csv":
        response = StreamingHttpResponse(
            selectors.csv_chunks(qs, site=site), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{name}-audit.csv"'
        response["Cache-Control"] = "no-store"
        return response
    return Response({"results": selectors.as_rows(qs, site=site)})


def log_page(
    request: HttpRequest, qs: QuerySet[Entry], *, title: str, csv_url: str, context: dict[str, Any]
) -> HttpResponse:
    rows = list(qs[: selectors.PAGE_ROWS])
    return render(
        request,
        "audit/log.html",
        {
            **context,
            "title": title,
            "entries": rows,
            "truncated": len(rows) == selectors.PAGE_ROWS,
            "csv_url": csv_url,
        },
    )


class SiteAuditView(FormatNegotiationMixin, APIView):
    @extend_schema(
        parameters=[
            FORMAT,
            OpenApiParameter("survey", OpenApiTypes.STR, description="Only this slug's entries."),
        ],
        responses={200: AuditLogSerializer, (200, "text/csv"): OpenApiTypes.STR},
        tags=["audit"],
        description="Staff only. The whole site's audit log, newest first (docs/accounts.md#audit)."
        " Entries of deleted surveys are kept.",
    )
    def get(self, request: Request) -> Response | StreamingHttpResponse:
        if not request.user.is_staff:
            raise Forbidden("Only staff can read the site's audit log.")
        qs = selectors.entries(survey_slug=request.query_params.get("survey") or None)
        return log_response(self, request, qs, name="site", site=True)


@never_cache
@require_safe
@login_required
def site_audit_page(request: HttpRequest) -> HttpResponse:
    if not request.user.is_staff:
        raise PermissionDenied("Only staff can read the site's audit log.")
    qs = selectors.entries(survey_slug=request.GET.get("survey") or None)
    return log_page(
        request,
        qs,
        title="Audit log of the site",
        csv_url=reverse("api-audit") + "?format=csv",
        context={"site": True},
    )
