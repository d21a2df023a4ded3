"""API v1 routes for surveys (docs/api.md#endpoints); included at ``api/v1/`` by
``deniable.urls``."""

from __future__ import annotations

from django.urls import path

from surveys import audit_views
from surveys.api import (
    analysis_views,
    invitation_views,
    management_views,
    read_views,
    views,
    webhook_views,
    xlsform_views,
)

urlpatterns = [
    path("designs/preview/", views.DesignPreviewView.as_view(), name="api-design-preview"),
    path("designs/power/", analysis_views.PowerView.as_view(), name="api-design-power"),
    path(
        "designs/power/regression/",
        analysis_views.RegressionPowerView.as_view(),
        name="api-design-power-regression",
    ),
    path(
        "designs/recommend/",
        analysis_views.RecommendView.as_view(),
        name="api-design-recommend",
    ),
    path("surveys/", views.SurveyListCreateView.as_view(), name="api-surveys"),
    # Before surveys/<slug>/…: "import" is a reserved slug (surveys.definitions.specs).
    path(
        "surveys/import/xlsform/",
        xlsform_views.XlsformImportView.as_view(),
        name="api-surveys-import-xlsform",
    ),
    path("surveys/<slug:slug>/", views.SurveyDetailView.as_view(), name="api-survey"),
    path(
        "surveys/<slug:slug>/xlsform/",
        xlsform_views.XlsformExportView.as_view(),
        name="api-survey-xlsform",
    ),
    path("surveys/<slug:slug>/open/", views.SurveyOpenView.as_view(), name="api-survey-open"),
    path("surveys/<slug:slug>/close/", views.SurveyCloseView.as_view(), name="api-survey-close"),
    path(
        "surveys/<slug:slug>/duplicate/",
        management_views.SurveyDuplicateView.as_view(),
        name="api-survey-duplicate",
    ),
    path(
        "surveys/<slug:slug>/archive/",
        management_views.SurveyArchiveView.as_view(),
        name="api-survey-archive",
    ),
    path(
        "surveys/<slug:slug>/unarchive/",
        management_views.SurveyUnarchiveView.as_view(),
        name="api-survey-unarchive",
    ),
    path(
        "surveys/<slug:slug>/collaborators/",
        management_views.CollaboratorsView.as_view(),
        name="api-survey-collaborators",
    ),
    path(
        "surveys/<slug:slug>/collaborators/<str:username>/",
        management_views.CollaboratorDetailView.as_view(),
        name="api-survey-collaborator",
    ),
    path(
        "surveys/<slug:slug>/invitations/",
        invitation_views.InvitationCreateView.as_view(),
        name="api-survey-invitations",
    ),
    path(
        "surveys/<slug:slug>/invitations/check/",
        invitation_views.InvitationCheckView.as_view(),
        name="api-survey-invitations-check",
    ),
    path(
        "surveys/<slug:slug>/invitations/revoke/",
        invitation_views.InvitationRevokeView.as_view(),
        name="api-survey-invitations-revoke",
    ),
    path(
        "surveys/<slug:slug>/responses/",
        views.ResponseCreateView.as_view(),
        name="api-survey-responses",
    ),
    path(
        "surveys/<slug:slug>/responses/export/",
        read_views.ExportView.as_view(),
        name="api-survey-export",
    ),
    path(
        "surveys/<slug:slug>/responses/export/shuffled/",
        read_views.ShuffledExportView.as_view(),
        name="api-survey-export-shuffled",
    ),
    path(
        "surveys/<slug:slug>/responses/export/metadata/",
        read_views.ExportMetadataView.as_view(),
        name="api-survey-export-metadata",
    ),
    path(
        "surveys/<slug:slug>/estimates/",
        read_views.EstimatesView.as_view(),
        name="api-survey-estimates",
    ),
    path(
        "surveys/<slug:slug>/webhooks/",
        webhook_views.WebhooksView.as_view(),
        name="api-survey-webhooks",
    ),
    path(
        "surveys/<slug:slug>/webhooks/<int:webhook_id>/",
        webhook_views.WebhookDetailView.as_view(),
        name="api-survey-webhook",
    ),
    path(
        "surveys/<slug:slug>/audit/", audit_views.SurveyAuditView.as_view(), name="api-survey-audit"
    ),
    path(
        "surveys/<slug:slug>/regression/",
        analysis_views.RegressionView.as_view(),
        name="api-survey-regression",
    ),
    path(
        "surveys/<slug:slug>/correlation/",
        analysis_views.CorrelationView.as_view(),
        name="api-survey-correlation",
    ),
]
