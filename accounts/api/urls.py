"""API v1 routes for accounts (docs/api.md#authentication); included at ``api/v1/``."""

from __future__ import annotations

from django.urls import path

from accounts.api import views

urlpatterns = [
    path("auth/token/", views.AuthTokenView.as_view(), name="api-auth-token"),
    path("auth/tokens/", views.TokenListView.as_view(), name="api-auth-tokens"),
    path(
        "auth/tokens/<int:token_id>/",
        views.TokenDetailView.as_view(),
        name="api-auth-token-detail",
    ),
]
