"""Releases and budget API (docs/api.md#releases), mounted at ``api/v1/``."""

from __future__ import annotations

from django.urls import path

from privacy.api import views

urlpatterns = [
    path(
        "surveys/<str:slug>/releases/",
        views.SurveyReleasesView.as_view(),
        name="privacy-survey-releases",
    ),
    path(
        "surveys/<str:slug>/releases/preview/",
        views.ReleasePreviewView.as_view(),
        name="privacy-release-preview",
    ),
    path(
        "surveys/<str:slug>/budget/",
        views.SurveyBudgetView.as_view(),
        name="privacy-survey-budget",
    ),
    path(
        "releases/<str:release_id>/",
        views.ReleaseDetailView.as_view(),
        name="privacy-release-detail",
    ),
]
