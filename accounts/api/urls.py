"""API v1 routes for accounts (docs/api.md#authentication); included at ``api/v1/``."""

from __future__ import annotations

from django.urls import path

from accounts.api import session_views, views

urlpatterns = [
    path("auth/token/", views.AuthTokenView.as_view(), name="api-auth-token"),
    path("auth/tokens/", views.TokenListView.as_view(), name="api-auth-tokens"),
    path(
        "auth/tokens/<int:token_id>/",
        views.TokenDetailView.as_view(),
        name="api-auth-token-detail",
    ),
    # docs/api.md#sessions. sign-out/ comes before <session_id>/, which takes any segment so that
    # a malformed id is a 400 naming it (accounts.inputs.session_id), not a 404.
    path("auth/sessions/", session_views.SessionListView.as_view(), name="api-auth-sessions"),
    path(
        "auth/sessions/sign-out/",
        session_views.SessionSignOutView.as_view(),
        name="api-auth-sessions-sign-out",
    ),
    path(
        "auth/sessions/<str:session_id>/",
        session_views.SessionDetailView.as_view(),
        name="api-auth-session-detail",
    ),
]
